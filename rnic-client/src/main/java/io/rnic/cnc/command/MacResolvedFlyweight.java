package io.rnic.cnc.command;

import org.agrona.MutableDirectBuffer;

/**
 * MAC_RESOLVED: RESOLVE_MAC's answer. Mirrored by {@code struct rnic_mac_resolved} of {@code driver_protocol.h}
 * (docs/driver-protocol.md); little-endian, {@link #LENGTH} bytes.
 */
public final class MacResolvedFlyweight extends CorrelatedMessageFlyweight
{
    /** int64: the neighbour's MAC, its first octet the most significant */
    public static final int MAC_OFFSET = 16;
    /** Bytes of the message: every answer of its type is exactly this long. */
    public static final int LENGTH = 24;

    public MacResolvedFlyweight wrap(final MutableDirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    public long mac()
    {
        return buffer.getLong(offset + MAC_OFFSET);
    }

    public MacResolvedFlyweight mac(final long mac)
    {
        buffer.putLong(offset + MAC_OFFSET, mac);
        return this;
    }
}
