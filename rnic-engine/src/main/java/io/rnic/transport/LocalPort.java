package io.rnic.transport;

import io.rnic.verbs.VerbsException;

import java.util.Arrays;

/**
 * The addressing of the engine's port: its MAC address and its GID table (RoCEv2 GIDs: IPv6 addresses, and IPv4
 * addresses as {@code ::ffff:a.b.c.d}), which gives the source IP of every packet through the address vector's
 * source GID index, and decides which destination IPs are ours.
 */
public final class LocalPort
{
    public static final int MAX_GIDS = 16;

    private final long mac;
    private final long[] gidHigh = new long[MAX_GIDS];
    private final long[] gidLow = new long[MAX_GIDS];
    private int gidCount;
    private int ethernetMtu = 1500;

    public LocalPort(final long mac)
    {
        this.mac = mac;
    }

    public long mac()
    {
        return mac;
    }

    public int ethernetMtu()
    {
        return ethernetMtu;
    }

    public LocalPort ethernetMtu(final int mtu)
    {
        this.ethernetMtu = mtu;
        return this;
    }

    /** Adds an IPv4 address as the GID {@code ::ffff:a.b.c.d}; returns its GID index. */
    public int addIpv4(final int address)
    {
        return addGid(0, 0x0000_FFFF_0000_0000L | (address & 0xFFFF_FFFFL));
    }

    /** Adds a GID (an IPv6 address); returns its index. */
    public int addGid(final long high, final long low)
    {
        if (gidCount == MAX_GIDS)
        {
            throw new VerbsException("GID table full (" + MAX_GIDS + " entries)");
        }
        gidHigh[gidCount] = high;
        gidLow[gidCount] = low;
        return gidCount++;
    }

    public int gidCount()
    {
        return gidCount;
    }

    public long gidHigh(final int index)
    {
        return gidHigh[index];
    }

    public long gidLow(final int index)
    {
        return gidLow[index];
    }

    public boolean isIpv4Gid(final int index)
    {
        return gidHigh[index] == 0 && (gidLow[index] >>> 32) == 0xFFFF;
    }

    /** Whether an IPv4 destination address is one of ours. */
    public boolean ownsIpv4(final int address)
    {
        final long low = 0x0000_FFFF_0000_0000L | (address & 0xFFFF_FFFFL);
        for (int i = 0; i < gidCount; i++)
        {
            if (gidHigh[i] == 0 && gidLow[i] == low)
            {
                return true;
            }
        }
        return false;
    }

    /** Whether an IPv6 destination address is one of ours. */
    public boolean ownsIpv6(final long high, final long low)
    {
        for (int i = 0; i < gidCount; i++)
        {
            if (gidHigh[i] == high && gidLow[i] == low)
            {
                return true;
            }
        }
        return false;
    }

    public String toString()
    {
        return "LocalPort{mac=" + Long.toHexString(mac) + ", gids=" + gidCount + " " +
            Arrays.toString(Arrays.copyOf(gidLow, gidCount)) + '}';
    }
}
