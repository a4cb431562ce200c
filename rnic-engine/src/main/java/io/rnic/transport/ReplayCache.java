package io.rnic.transport;

/**
 * The responder's memory of recent RDMA READ and atomic requests, so that a duplicate (the requester retransmits
 * after losing the response) is answered without executing anything twice: a READ is re-read from memory with
 * the same PSNs, an atomic is answered with the original value saved when it ran (IBTA 9.7.5.1.2, rxe's
 * {@code resp->resources}). A fixed ring: the oldest entry gives way.
 * <p>
 * It also knows which requests have not been answered yet (their first response has not fully left the port): what
 * the responder counts against max_dest_rd_atomic. A duplicate answered again does not count twice.
 */
final class ReplayCache
{
    static final int KIND_READ = 1;
    static final int KIND_ATOMIC = 2;
    /**
     * An ATOMIC WRITE or FLUSH (IBTA 1.5): executed once, answered, and answered again on a duplicate, with an RDMA
     * READ RESPONSE ONLY of zero length. It does not count against max_dest_rd_atomic: rxe's requester does not
     * count these against its max_rd_atomic, so a responder that did would refuse a well-behaved peer.
     */
    static final int KIND_EMPTY_READ_RESPONSE = 3;

    private final int[] kinds;
    private final int[] firstPsns;
    private final int[] packetCounts;
    private final long[] addresses;
    private final int[] rKeys;
    private final long[] lengths;
    private final long[] atomicOriginals;
    private final int[] msns;
    private final boolean[] awaitingAnswers;
    private int next;
    private int awaitingAnswerCount;

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
        awaitingAnswers = new boolean[entries];
    }

    void clear()
    {
        java.util.Arrays.fill(kinds, 0);
        java.util.Arrays.fill(awaitingAnswers, false);
        next = 0;
        awaitingAnswerCount = 0;
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

    /** Returns the entry's index: an ATOMIC WRITE or FLUSH done at {@code psn} ({@link #KIND_EMPTY_READ_RESPONSE}). */
    int recordEmptyReadResponse(final int psn, final int msn)
    {
        final int i = claim(false);
        kinds[i] = KIND_EMPTY_READ_RESPONSE;
        firstPsns[i] = psn;
        packetCounts[i] = 1;
        addresses[i] = 0;
        rKeys[i] = 0;
        lengths[i] = 0;
        msns[i] = msn;
        return i;
    }

    /** The next entry, awaiting its answer (an unanswered one it replaces is forgotten: its response is abandoned). */
    private int claim()
    {
        return claim(true);
    }

    private int claim(final boolean awaitingAnswer)
    {
        final int i = next;
        next = (next + 1) % kinds.length;
        if (awaitingAnswers[i] != awaitingAnswer)
        {
            awaitingAnswers[i] = awaitingAnswer;
            awaitingAnswerCount += awaitingAnswer ? 1 : -1;
        }
        return i;
    }

    /**
     * The first complete response to entry {@code i} left (or was given up): true the first time only, so that the
     * responses to duplicates of the same request are not counted again.
     */
    boolean answered(final int i)
    {
        if (awaitingAnswers[i])
        {
            awaitingAnswers[i] = false;
            awaitingAnswerCount--;
            return true;
        }
        return false;
    }

    /** Requests executed whose first response has not completely left the port. */
    int awaitingAnswerCount()
    {
        return awaitingAnswerCount;
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
