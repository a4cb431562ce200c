package io.rnic.cnc.command;

import org.agrona.MutableDirectBuffer;

/**
 * OPEN_ASYNC_EVENTS: the client's event ring, once per client. Mirrored by {@code struct rnic_open_async_events} of
 * {@code driver_protocol.h} (docs/driver-protocol.md); little-endian, {@link #LENGTH} bytes.
 */
public final class OpenAsyncEventsFlyweight extends CorrelatedMessageFlyweight
{
    /** int64: the token the memfd was sent with */
    public static final int MEMFD_TOKEN_OFFSET = 16;
    /** int64: exactly rnic_ae_file_length() */
    public static final int FILE_LENGTH_BYTES_OFFSET = 24;
    /** Bytes of the message: every command of its type is exactly this long. */
    public static final int LENGTH = 32;

    public OpenAsyncEventsFlyweight wrap(final MutableDirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    public long memfdToken()
    {
        return buffer.getLong(offset + MEMFD_TOKEN_OFFSET);
    }

    public OpenAsyncEventsFlyweight memfdToken(final long memfdToken)
    {
        buffer.putLong(offset + MEMFD_TOKEN_OFFSET, memfdToken);
        return this;
    }

    public long fileLengthBytes()
    {
        return buffer.getLong(offset + FILE_LENGTH_BYTES_OFFSET);
    }

    public OpenAsyncEventsFlyweight fileLengthBytes(final long fileLengthBytes)
    {
        buffer.putLong(offset + FILE_LENGTH_BYTES_OFFSET, fileLengthBytes);
        return this;
    }
}
