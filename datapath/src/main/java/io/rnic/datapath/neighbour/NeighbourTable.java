package io.rnic.datapath.neighbour;

/**
 * IP address → MAC address, learned from ARP and neighbour discovery or set statically. Addresses are GIDs (IPv4
 * as {@code ::ffff:a.b.c.d}). Owned by the engine thread: other threads reach it through engine commands. A small
 * open-addressed table with no allocation after construction; when full, the oldest learned entry is replaced
 * (static entries stay).
 */
public final class NeighbourTable
{
    public static final long NO_MAC = -1;

    private final long[] high;
    private final long[] low;
    private final long[] mac;
    private final boolean[] isStatic;
    private final boolean[] used;
    private int nextVictim;

    public NeighbourTable(final int capacity)
    {
        if (capacity < 1 || capacity > 1 << 16)
        {
            throw new IllegalArgumentException("neighbour table capacity " + capacity + " out of range 1..65536");
        }
        high = new long[capacity];
        low = new long[capacity];
        mac = new long[capacity];
        isStatic = new boolean[capacity];
        used = new boolean[capacity];
    }

    /** The MAC of the address, or {@link #NO_MAC}. */
    public long lookup(final long gidHigh, final long gidLow)
    {
        final int i = indexOf(gidHigh, gidLow);
        return i < 0 ? NO_MAC : mac[i];
    }

    /** Records what the wire told us; a static entry is not overwritten. */
    public void learn(final long gidHigh, final long gidLow, final long macAddress)
    {
        put(gidHigh, gidLow, macAddress, false);
    }

    /** A neighbour the user configured (needed where nobody answers ARP, and to pin a mapping). */
    public void putStatic(final long gidHigh, final long gidLow, final long macAddress)
    {
        put(gidHigh, gidLow, macAddress, true);
    }

    public int size()
    {
        int n = 0;
        for (final boolean u : used)
        {
            n += u ? 1 : 0;
        }
        return n;
    }

    private void put(final long gidHigh, final long gidLow, final long macAddress, final boolean asStatic)
    {
        int i = indexOf(gidHigh, gidLow);
        if (i >= 0)
        {
            if (isStatic[i] && !asStatic)
            {
                return;
            }
        }
        else
        {
            i = freeSlot();
            if (i < 0)
            {
                return; // every slot static: keep the user's entries
            }
        }
        used[i] = true;
        high[i] = gidHigh;
        low[i] = gidLow;
        mac[i] = macAddress;
        isStatic[i] = asStatic;
    }

    private int indexOf(final long gidHigh, final long gidLow)
    {
        for (int i = 0; i < used.length; i++)
        {
            if (used[i] && high[i] == gidHigh && low[i] == gidLow)
            {
                return i;
            }
        }
        return -1;
    }

    private int freeSlot()
    {
        for (int i = 0; i < used.length; i++)
        {
            if (!used[i])
            {
                return i;
            }
        }
        for (int n = 0; n < used.length; n++)
        {
            final int i = nextVictim;
            nextVictim = (nextVictim + 1) % used.length;
            if (!isStatic[i])
            {
                return i;
            }
        }
        return -1;
    }
}
