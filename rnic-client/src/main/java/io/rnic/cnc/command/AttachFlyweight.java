package io.rnic.cnc.command;

import org.agrona.MutableDirectBuffer;

/**
 * ATTACH: a client's first command. The protocol version comes first, at a place no version moves, so that a driver
 * of another version can name it. Mirrored by {@code struct rnic_attach} of {@code driver_protocol.h} (docs/driver-
 * protocol.md); little-endian, {@link #LENGTH} bytes.
 */
public final class AttachFlyweight extends CorrelatedMessageFlyweight
{
    /** int32: the protocol version the client speaks (the CnC version, RNIC_CNC_VERSION) */
    public static final int PROTOCOL_VERSION_OFFSET = 16;
    /** int64: the client's pid (for messages) */
    public static final int PID_OFFSET = 24;
    /** int64: the nonce of its hello on fds.sock; 0: none (the client can then pass no memory) */
    public static final int NONCE_OFFSET = 32;
    /** Bytes of the message: every command of its type is exactly this long. */
    public static final int LENGTH = 40;

    public AttachFlyweight wrap(final MutableDirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    public int protocolVersion()
    {
        return buffer.getInt(offset + PROTOCOL_VERSION_OFFSET);
    }

    public AttachFlyweight protocolVersion(final int protocolVersion)
    {
        buffer.putInt(offset + PROTOCOL_VERSION_OFFSET, protocolVersion);
        return this;
    }

    public long pid()
    {
        return buffer.getLong(offset + PID_OFFSET);
    }

    public AttachFlyweight pid(final long pid)
    {
        buffer.putLong(offset + PID_OFFSET, pid);
        return this;
    }

    public long nonce()
    {
        return buffer.getLong(offset + NONCE_OFFSET);
    }

    public AttachFlyweight nonce(final long nonce)
    {
        buffer.putLong(offset + NONCE_OFFSET, nonce);
        return this;
    }
}
