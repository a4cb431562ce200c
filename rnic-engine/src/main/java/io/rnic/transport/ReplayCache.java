package io.rnic.transport;

/**
 * The responder's memory of recent RDMA READ and atomic requests, so that a duplicate (the requester retransmits
 * after losing the response) is answered without executing anything twice: a READ is re-read from memory with
 * the same PSNs, an atomic is answered with the original value saved when it ran (IBTA 9.7.5.1.2, rxe's
 * {@code resp->resources}). A fixed ring: the oldest entry gives way.
 */
final class ReplayCache
{
    static final int KIND_READ = 1;
    static final int KIND_ATOMIC = 2;

    private final int[] kinds;
    private final int[] firstPsns;
    private final int[] packetCounts;
    private final long[] addresses;
    private final int[] rKeys;
    private final long[] lengths;
    private final long[] atomicOriginals;
    private final int[] msns;
    private int next;

    ReplayCache(final int entries)
    {
        kinds = new int[entries];
        firstPsns = new int[entries];
        packetCounts = new int[entries];
        addresses = new long[entries];
        rKeys = new int[entries];
        lengths = new long[entries];
        atomicOriginals = new long[entries];
        msns = new int[entries];
    }

    void clear()
    {
        java.util.Arrays.fill(kinds, 0);
        next = 0;
    }

    /** Returns the entry's index. */
    int recordRead(final int psn, final int packets, final long address, final int rKey, final long length, final int msn)
    {
        final int i = claim();
        kinds[i] = KIND_READ;
        firstPsns[i] = psn;
        packetCounts[i] = packets;
        addresses[i] = address;
        rKeys[i] = rKey;
        lengths[i] = length;
        msns[i] = msn;
        return i;
    }

    /** Returns the entry's index. */
    int recordAtomic(final int psn, final long original, final int msn)
    {
        final int i = claim();
        kinds[i] = KIND_ATOMIC;
        firstPsns[i] = psn;
        packetCounts[i] = 1;
        atomicOriginals[i] = original;
        msns[i] = msn;
        return i;
    }

    private int claim()
    {
        final int i = next;
        next = (next + 1) % kinds.length;
        return i;
    }

    /** Index of the entry whose PSN range contains {@code psn}, or -1. */
    int find(final int psn)
    {
        for (int i = 0; i < kinds.length; i++)
        {
            if (kinds[i] != 0)
            {
                final int distance = Psn.compare(psn, firstPsns[i]);
                if (distance >= 0 && distance < packetCounts[i])
                {
                    return i;
                }
            }
        }
        return -1;
    }

    int kind(final int i)
    {
        return kinds[i];
    }

    int firstPsn(final int i)
    {
        return firstPsns[i];
    }

    int packetCount(final int i)
    {
        return packetCounts[i];
    }

    long address(final int i)
    {
        return addresses[i];
    }

    int rKey(final int i)
    {
        return rKeys[i];
    }

    long length(final int i)
    {
        return lengths[i];
    }

    long atomicOriginal(final int i)
    {
        return atomicOriginals[i];
    }

    int msn(final int i)
    {
        return msns[i];
    }
}
