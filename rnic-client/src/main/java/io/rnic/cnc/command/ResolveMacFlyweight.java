package io.rnic.cnc.command;

import org.agrona.MutableDirectBuffer;

/**
 * RESOLVE_MAC: the driver asks the wire (ARP, neighbour discovery) for an address's MAC; answered late. Mirrored by
 * {@code struct rnic_resolve_mac} of {@code driver_protocol.h} (docs/driver-protocol.md); little-endian, {@link
 * #LENGTH} bytes.
 */
public final class ResolveMacFlyweight extends CorrelatedMessageFlyweight
{
    /** int32: the source GID index */
    public static final int SGID_INDEX_OFFSET = 16;
    /** int32: how long the driver waits, clamped to 1..RNIC_CTL_MAX_RESOLVE_MS */
    public static final int TIMEOUT_MS_OFFSET = 20;
    /** int32: 1: IPv4, 0: IPv6 */
    public static final int IPV4_OFFSET = 24;
    /** int64: IPv6 bytes 0..7 as a big-endian number; 0 for IPv4 */
    public static final int ADDRESS_HIGH_OFFSET = 32;
    /** int64: IPv6 bytes 8..15; IPv4: the address as an unsigned number */
    public static final int ADDRESS_LOW_OFFSET = 40;
    /** Bytes of the message: every command of its type is exactly this long. */
    public static final int LENGTH = 48;

    public ResolveMacFlyweight wrap(final MutableDirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    public int sgidIndex()
    {
        return buffer.getInt(offset + SGID_INDEX_OFFSET);
    }

    public ResolveMacFlyweight sgidIndex(final int sgidIndex)
    {
        buffer.putInt(offset + SGID_INDEX_OFFSET, sgidIndex);
        return this;
    }

    public int timeoutMs()
    {
        return buffer.getInt(offset + TIMEOUT_MS_OFFSET);
    }

    public ResolveMacFlyweight timeoutMs(final int timeoutMs)
    {
        buffer.putInt(offset + TIMEOUT_MS_OFFSET, timeoutMs);
        return this;
    }

    public int ipv4()
    {
        return buffer.getInt(offset + IPV4_OFFSET);
    }

    public ResolveMacFlyweight ipv4(final int ipv4)
    {
        buffer.putInt(offset + IPV4_OFFSET, ipv4);
        return this;
    }

    public long addressHigh()
    {
        return buffer.getLong(offset + ADDRESS_HIGH_OFFSET);
    }

    public ResolveMacFlyweight addressHigh(final long addressHigh)
    {
        buffer.putLong(offset + ADDRESS_HIGH_OFFSET, addressHigh);
        return this;
    }

    public long addressLow()
    {
        return buffer.getLong(offset + ADDRESS_LOW_OFFSET);
    }

    public ResolveMacFlyweight addressLow(final long addressLow)
    {
        buffer.putLong(offset + ADDRESS_LOW_OFFSET, addressLow);
        return this;
    }
}
