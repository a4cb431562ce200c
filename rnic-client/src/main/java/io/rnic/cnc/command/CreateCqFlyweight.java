package io.rnic.cnc.command;

import org.agrona.MutableDirectBuffer;

/**
 * CREATE_CQ: a completion queue in a memfd the driver formats. Mirrored by {@code struct rnic_create_cq} of {@code
 * driver_protocol.h} (docs/driver-protocol.md); little-endian, {@link #LENGTH} bytes.
 */
public final class CreateCqFlyweight extends CorrelatedMessageFlyweight
{
    /** int64: the token the memfd was sent with */
    public static final int MEMFD_TOKEN_OFFSET = 16;
    /** int64: exactly rnic_cq_file_length(entries) */
    public static final int FILE_LENGTH_BYTES_OFFSET = 24;
    /** int32: 1..RNIC_CTL_MAX_CQ_ENTRIES */
    public static final int ENTRIES_OFFSET = 32;
    /** Bytes of the message: every command of its type is exactly this long. */
    public static final int LENGTH = 40;

    public CreateCqFlyweight wrap(final MutableDirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    public long memfdToken()
    {
        return buffer.getLong(offset + MEMFD_TOKEN_OFFSET);
    }

    public CreateCqFlyweight memfdToken(final long memfdToken)
    {
        buffer.putLong(offset + MEMFD_TOKEN_OFFSET, memfdToken);
        return this;
    }

    public long fileLengthBytes()
    {
        return buffer.getLong(offset + FILE_LENGTH_BYTES_OFFSET);
    }

    public CreateCqFlyweight fileLengthBytes(final long fileLengthBytes)
    {
        buffer.putLong(offset + FILE_LENGTH_BYTES_OFFSET, fileLengthBytes);
        return this;
    }

    public int entries()
    {
        return buffer.getInt(offset + ENTRIES_OFFSET);
    }

    public CreateCqFlyweight entries(final int entries)
    {
        buffer.putInt(offset + ENTRIES_OFFSET, entries);
        return this;
    }
}
