package io.rnic.transport;

/**
 * The responses an RC responder owes, in PSN order: RDMA READ responses (one to many packets each) and atomic
 * acknowledgements. A response goes when the port has room and the QP's shaper allows it, so a large READ is paced
 * like the requester's own data and never overruns a full transmit queue; whatever must follow it (a coalesced ACK,
 * the next READ's responses) waits behind it.
 * <p>
 * What a response says lives in the {@link ReplayCache} already (a READ's address, R_Key, length and MSN; an atomic's
 * original value), where duplicates are answered from too: the queue holds only which entry, from which packet, and
 * the entry's first PSN to tell whether the entry still holds that request when its turn comes. A fixed ring sized
 * for the READs/atomics a requester may have outstanding: no allocation. Engine thread only.
 */
final class ResponseQueue
{
    private final int[] entries;
    private final int[] firstPsns;
    private final int[] startPackets;
    private final int mask;
    private int head;
    private int size;
    /** Packets of the head response already sent, counted from its start packet. */
    private int headPacketsSent;

    ResponseQueue(final int capacity)
    {
        if (Integer.bitCount(capacity) != 1)
        {
            throw new IllegalArgumentException("capacity " + capacity + " must be a power of two");
        }
        entries = new int[capacity];
        firstPsns = new int[capacity];
        startPackets = new int[capacity];
        mask = capacity - 1;
    }

    boolean isEmpty()
    {
        return size == 0;
    }

    boolean isFull()
    {
        return size == entries.length;
    }

    /**
     * Queues the response to replay cache entry {@code entry} (whose first PSN is {@code firstPsn}), from its packet
     * {@code startPacket} (a duplicate READ may ask for the rest of a READ only). Callers check {@link #isFull} first.
     */
    void add(final int entry, final int firstPsn, final int startPacket)
    {
        if (size == entries.length)
        {
            throw new IllegalStateException("response queue full");
        }
        final int i = (head + size) & mask;
        entries[i] = entry;
        firstPsns[i] = firstPsn;
        startPackets[i] = startPacket;
        size++;
    }

    int headEntry()
    {
        return entries[head];
    }

    int headFirstPsn()
    {
        return firstPsns[head];
    }

    /** Index within its READ of the head response's next packet. */
    int headPacket()
    {
        return startPackets[head] + headPacketsSent;
    }

    /** One more packet of the head response went; the head is removed after the last of {@code packets}. */
    void headPacketSent(final int packets)
    {
        if (startPackets[head] + ++headPacketsSent >= packets)
        {
            removeHead();
        }
    }

    /** Drops the head response (sent, or abandoned). */
    void removeHead()
    {
        head = (head + 1) & mask;
        size--;
        headPacketsSent = 0;
    }

    void clear()
    {
        head = 0;
        size = 0;
        headPacketsSent = 0;
    }
}
