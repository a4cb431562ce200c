package io.rnic.transport;

/**
 * The responses an RC responder owes, in PSN order: RDMA READ responses (one to many packets each) and atomic
 * acknowledgements. A response goes when the port has room and the QP's shaper allows it, so a large READ is paced
 * like the requester's own data and never overruns a full transmit queue; whatever must follow it (a coalesced ACK,
 * the next READ's responses) waits behind it. A fixed ring sized for the READs/atomics a requester may have
 * outstanding: no allocation. Engine thread only.
 */
final class ResponseQueue
{
    static final int KIND_READ = 1;
    static final int KIND_ATOMIC = 2;

    private final int[] kinds;
    private final int[] firstPsns;
    private final int[] packetCounts;
    private final int[] rKeys;
    private final long[] addresses;
    private final long[] lengths;
    private final long[] atomicOriginals;
    private final int[] msns;
    private final int mask;
    private int head;
    private int size;
    /** Packets of the head response already sent. */
    private int headPacketsSent;

    ResponseQueue(final int capacity)
    {
        if (Integer.bitCount(capacity) != 1)
        {
            throw new IllegalArgumentException("capacity " + capacity + " must be a power of two");
        }
        kinds = new int[capacity];
        firstPsns = new int[capacity];
        packetCounts = new int[capacity];
        rKeys = new int[capacity];
        addresses = new long[capacity];
        lengths = new long[capacity];
        atomicOriginals = new long[capacity];
        msns = new int[capacity];
        mask = capacity - 1;
    }

    boolean isEmpty()
    {
        return size == 0;
    }

    boolean isFull()
    {
        return size == kinds.length;
    }

    int size()
    {
        return size;
    }

    /**
     * Queues a READ's responses: {@code packets} packets from {@code firstPsn}, {@code length} bytes from
     * {@code address} of the region of {@code rKey} (looked up again for each packet: a region may be deregistered
     * while its responses wait).
     */
    void addRead(
        final int firstPsn, final int packets, final int rKey, final long address, final long length, final int msn)
    {
        final int i = claim();
        kinds[i] = KIND_READ;
        firstPsns[i] = firstPsn;
        packetCounts[i] = packets;
        rKeys[i] = rKey;
        addresses[i] = address;
        lengths[i] = length;
        msns[i] = msn;
    }

    void addAtomic(final int psn, final long original, final int msn)
    {
        final int i = claim();
        kinds[i] = KIND_ATOMIC;
        firstPsns[i] = psn;
        packetCounts[i] = 1;
        atomicOriginals[i] = original;
        msns[i] = msn;
    }

    private int claim()
    {
        if (size == kinds.length)
        {
            throw new IllegalStateException("response queue full"); // callers check isFull() first
        }
        final int i = (head + size) & mask;
        size++;
        return i;
    }

    int headKind()
    {
        return kinds[head];
    }

    int headFirstPsn()
    {
        return firstPsns[head];
    }

    int headPacketCount()
    {
        return packetCounts[head];
    }

    int headRKey()
    {
        return rKeys[head];
    }

    long headAddress()
    {
        return addresses[head];
    }

    long headLength()
    {
        return lengths[head];
    }

    long headAtomicOriginal()
    {
        return atomicOriginals[head];
    }

    int headMsn()
    {
        return msns[head];
    }

    int headPacketsSent()
    {
        return headPacketsSent;
    }

    /** One more packet of the head response went; the head is removed after its last. */
    void headPacketSent()
    {
        if (++headPacketsSent == packetCounts[head])
        {
            removeHead();
        }
    }

    /** Drops the head response (its memory went away, or the QP stopped responding). */
    void removeHead()
    {
        head = (head + 1) & mask;
        size--;
        headPacketsSent = 0;
    }

    /** PSN of the last packet of the last response queued (only when not empty). */
    int lastPsn()
    {
        final int i = (head + size - 1) & mask;
        return Psn.add(firstPsns[i], packetCounts[i] - 1);
    }

    void clear()
    {
        while (size > 0)
        {
            removeHead();
        }
    }
}
