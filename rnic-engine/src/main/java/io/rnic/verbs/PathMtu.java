package io.rnic.verbs;

/** Path MTU: the payload bytes per packet, with the values of {@code enum ibv_mtu} (1 = 256 .. 5 = 4096). */
public enum PathMtu
{
    MTU_256(1, 256),
    MTU_512(2, 512),
    MTU_1024(3, 1024),
    MTU_2048(4, 2048),
    MTU_4096(5, 4096);

    private final int value;
    private final int bytes;

    PathMtu(final int value, final int bytes)
    {
        this.value = value;
        this.bytes = bytes;
    }

    public int value()
    {
        return value;
    }

    public int bytes()
    {
        return bytes;
    }

    /** The path MTU of {@code IBV_MTU_*} value {@code value}, or null. */
    public static PathMtu ofValue(final int value)
    {
        for (final PathMtu mtu : values())
        {
            if (mtu.value == value)
            {
                return mtu;
            }
        }
        return null;
    }

    /** The path MTU with this many bytes, or null. */
    public static PathMtu ofBytes(final int bytes)
    {
        for (final PathMtu mtu : values())
        {
            if (mtu.bytes == bytes)
            {
                return mtu;
            }
        }
        return null;
    }

    /** The largest IB MTU whose packets fit an Ethernet MTU (IP + UDP + BTH + RETH/AETH + ICRC overhead). */
    public static PathMtu forEthernetMtu(final int ethernetMtu)
    {
        PathMtu best = MTU_256;
        for (final PathMtu mtu : values())
        {
            // IPv6 (40) + UDP (8) + BTH (12) + the largest per-packet extension header (RETH 16 + ImmDt 4) + ICRC (4)
            if (mtu.bytes + 40 + 8 + 12 + 20 + 4 <= ethernetMtu)
            {
                best = mtu;
            }
        }
        return best;
    }
}
