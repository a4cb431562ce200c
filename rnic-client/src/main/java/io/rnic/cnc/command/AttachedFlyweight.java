package io.rnic.cnc.command;

import org.agrona.MutableDirectBuffer;

/**
 * ATTACHED: ATTACH's answer. Mirrored by {@code struct rnic_attached} of {@code driver_protocol.h} (docs/driver-
 * protocol.md); little-endian, {@link #LENGTH} bytes.
 */
public final class AttachedFlyweight extends CorrelatedMessageFlyweight
{
    /** int64: the driver reclaims a client silent this long */
    public static final int CLIENT_TIMEOUT_NS_OFFSET = 16;
    /** int32: the driver's protocol version */
    public static final int PROTOCOL_VERSION_OFFSET = 24;
    /** Bytes of the message: every answer of its type is exactly this long. */
    public static final int LENGTH = 32;

    public AttachedFlyweight wrap(final MutableDirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    public long clientTimeoutNs()
    {
        return buffer.getLong(offset + CLIENT_TIMEOUT_NS_OFFSET);
    }

    public AttachedFlyweight clientTimeoutNs(final long clientTimeoutNs)
    {
        buffer.putLong(offset + CLIENT_TIMEOUT_NS_OFFSET, clientTimeoutNs);
        return this;
    }

    public int protocolVersion()
    {
        return buffer.getInt(offset + PROTOCOL_VERSION_OFFSET);
    }

    public AttachedFlyweight protocolVersion(final int protocolVersion)
    {
        buffer.putInt(offset + PROTOCOL_VERSION_OFFSET, protocolVersion);
        return this;
    }
}
