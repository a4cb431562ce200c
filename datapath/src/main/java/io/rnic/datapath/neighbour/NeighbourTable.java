package io.rnic.datapath.neighbour;

/**
 * IP address → MAC address, learned from ARP and neighbour discovery or set statically. Addresses are GIDs (IPv4
 * as {@code ::ffff:a.b.c.d}). Owned by the engine thread: other threads reach it through engine commands. A small
 * open-addressed table with no allocation after construction; when full, the oldest learned entry is replaced
 * (static entries stay).
 * <p>
 * An entry heard from a datagram's source ({@link #learnStale}) is stale, as Linux makes a neighbour entry from
 * received traffic: good enough to answer the one who spoke ({@link #lookup}), never trusted to reach an address
 * on our own initiative ({@link #lookupConfirmed}). It never replaces a confirmed or static entry, nor evicts one.
 */
public final class NeighbourTable
{
    public static final long NO_MAC = -1;

    private final long[] high;
    private final long[] low;
    private final long[] mac;
    private final boolean[] isStatic;
    private final boolean[] used;
    private final boolean[] stale;
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
        stale = new boolean[capacity];
    }

    /** The MAC of the address, stale or not, or {@link #NO_MAC}. */
    public long lookup(final long gidHigh, final long gidLow)
    {
        final int i = indexOf(gidHigh, gidLow);
        return i < 0 ? NO_MAC : mac[i];
    }

    /** The MAC of the address when ARP / ND or the user told it (not only a datagram's source), or {@link #NO_MAC}. */
    public long lookupConfirmed(final long gidHigh, final long gidLow)
    {
        final int i = indexOf(gidHigh, gidLow);
        return i < 0 || stale[i] ? NO_MAC : mac[i];
    }

    /** Records what ARP / neighbour discovery told us; a static entry is not overwritten. */
    public void learn(final long gidHigh, final long gidLow, final long macAddress)
    {
        put(gidHigh, gidLow, macAddress, false, false);
    }

    /**
     * Records the source of a received datagram as a stale entry: only where the address has none or a stale one,
     * and into a free slot or a stale one's, so that a forged source can neither change nor push out what ARP / ND
     * or the user said.
     */
    public void learnStale(final long gidHigh, final long gidLow, final long macAddress)
    {
        final int i = indexOf(gidHigh, gidLow);
        if (i < 0 || stale[i])
        {
            put(gidHigh, gidLow, macAddress, false, true);
        }
    }

    /** A neighbour the user configured (needed where nobody answers ARP, and to pin a mapping). */
    public void putStatic(final long gidHigh, final long gidLow, final long macAddress)
    {
        put(gidHigh, gidLow, macAddress, true, false);
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

    private void put(
        final long gidHigh, final long gidLow, final long macAddress, final boolean asStatic, final boolean asStale)
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
            i = freeSlot(asStale);
            if (i < 0)
            {
                return; // every slot static, or a stale entry and no stale one to replace: keep them
            }
        }
        used[i] = true;
        high[i] = gidHigh;
        low[i] = gidLow;
        mac[i] = macAddress;
        isStatic[i] = asStatic;
        stale[i] = asStale;
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

    /** A free slot, else the oldest learned entry's (only a stale one's for a stale entry); -1 when none may go. */
    private int freeSlot(final boolean forStale)
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
            if (!isStatic[i] && (!forStale || stale[i]))
            {
                return i;
            }
        }
        return -1;
    }
}
