package io.rnic.cnc;

import org.agrona.BitUtil;
import org.agrona.concurrent.AtomicBuffer;

/**
 * A driver's client's asynchronous events ({@code ibv_get_async_event}) in memory both share: the driver's conductor
 * produces ({@link #offer}), the client consumes ({@link #poll}). Fixed-size entries naming the event type, the QP
 * number of a QP event and the client's handle of the SRQ of an SRQ event.
 * <p>
 * The producer does not trust the consumer: it keeps its own position and only publishes it; a consumer position it
 * reads that is not credible (behind by more than the capacity, or ahead) is a full ring. An event that finds the
 * ring full is dropped and counted in the header ({@link #droppedEvents}), as the embedded {@code AsyncEventQueue}
 * drops and counts: nothing goes silently. No allocation, no lock.
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-------------------------------+-------------------------------+
 *  |             magic             |            capacity           |  0
 *  +-------------------------------+-------------------------------+
 *  |              producer position (events written)               |  64
 *  +---------------------------------------------------------------+
 *  |                  events dropped (ring full)                   |  72
 *  +---------------------------------------------------------------+
 *  |              consumer position (events taken)                 |  128
 *  +---------------------------------------------------------------+
 *  |   capacity entries from byte 192: event type, QP number, SRQ handle, 0 (4 bytes each)
 * </pre>
 */
public final class AsyncEventRing
{
    /** "RNAE" in little-endian ASCII: the header of a formatted event ring. */
    public static final int MAGIC = 0x4541_4E52;
    /** Events a client's ring holds: far more than a client that polls now and then lets pile up. */
    public static final int CAPACITY = 1024;

    static final int MAGIC_OFFSET = 0;
    static final int CAPACITY_OFFSET = 4;
    static final int PRODUCER_POSITION_OFFSET = BitUtil.CACHE_LINE_LENGTH;
    static final int DROPPED_OFFSET = PRODUCER_POSITION_OFFSET + Long.BYTES;
    static final int CONSUMER_POSITION_OFFSET = 2 * BitUtil.CACHE_LINE_LENGTH;
    static final int HEADER_LENGTH = 3 * BitUtil.CACHE_LINE_LENGTH;
    static final int EVENT_TYPE_OFFSET = 0;
    static final int QP_NUM_OFFSET = 4;
    static final int SRQ_HANDLE_OFFSET = 8;
    static final int RESERVED_OFFSET = 12;
    static final int ENTRY_LENGTH = 16;

    private final AtomicBuffer buffer;
    private final int capacity;
    private final int mask;
    /** The producer's own position (driver) or the consumer's (client): the shared one is only written. */
    private long position;
    private long dropped;
    // the entry the last poll took
    private int eventType;
    private int qpNum;
    private int srqHandle;

    private AsyncEventRing(final AtomicBuffer buffer, final int capacity)
    {
        this.buffer = buffer;
        this.capacity = capacity;
        this.mask = capacity - 1;
    }

    /** Bytes of the file a client makes for its ring: a whole page. */
    public static long fileLength()
    {
        return BitUtil.align(HEADER_LENGTH + CAPACITY * ENTRY_LENGTH, QpQueuesLayout.FILE_ALIGNMENT);
    }

    /** Lays out an empty ring in {@code buffer} (the driver's side); the magic last, with a release store. */
    public static AsyncEventRing format(final AtomicBuffer buffer)
    {
        if (buffer.capacity() < HEADER_LENGTH + CAPACITY * ENTRY_LENGTH)
        {
            throw new IllegalArgumentException("an event ring needs " + (HEADER_LENGTH + CAPACITY * ENTRY_LENGTH) +
                " bytes, the buffer has " + buffer.capacity());
        }
        buffer.verifyAlignment();
        buffer.setMemory(0, HEADER_LENGTH, (byte)0);
        buffer.putInt(CAPACITY_OFFSET, CAPACITY);
        buffer.putIntRelease(MAGIC_OFFSET, MAGIC);
        return new AsyncEventRing(buffer, CAPACITY);
    }

    /** Opens the ring the driver formatted in {@code buffer} (the client's side), checking its header. */
    public static AsyncEventRing attach(final AtomicBuffer buffer)
    {
        buffer.verifyAlignment();
        if (buffer.capacity() < HEADER_LENGTH || buffer.getIntAcquire(MAGIC_OFFSET) != MAGIC)
        {
            throw new CncException("not an asynchronous event ring: the driver did not format it");
        }
        final int capacity = buffer.getInt(CAPACITY_OFFSET);
        if (capacity < 1 || !BitUtil.isPowerOfTwo(capacity) ||
            (long)HEADER_LENGTH + (long)capacity * ENTRY_LENGTH > buffer.capacity())
        {
            throw new CncException("not an asynchronous event ring: capacity " + capacity);
        }
        final AsyncEventRing ring = new AsyncEventRing(buffer, capacity);
        ring.position = buffer.getLongVolatile(CONSUMER_POSITION_OFFSET);
        return ring;
    }

    public int capacity()
    {
        return capacity;
    }

    /**
     * Writes an event (the producer, one thread).
     *
     * @return false when the ring was full, or its consumer position not credible: the event is dropped and counted.
     */
    public boolean offer(final int eventType, final int qpNum, final int srqHandle)
    {
        final long taken = buffer.getLongVolatile(CONSUMER_POSITION_OFFSET);
        final long used = position - taken;
        if (used < 0 || used >= capacity)
        {
            buffer.putLongOrdered(DROPPED_OFFSET, ++dropped);
            return false;
        }
        final int entry = HEADER_LENGTH + ((int)position & mask) * ENTRY_LENGTH;
        buffer.putInt(entry + EVENT_TYPE_OFFSET, eventType);
        buffer.putInt(entry + QP_NUM_OFFSET, qpNum);
        buffer.putInt(entry + SRQ_HANDLE_OFFSET, srqHandle);
        buffer.putInt(entry + RESERVED_OFFSET, 0);
        buffer.putLongRelease(PRODUCER_POSITION_OFFSET, ++position);
        return true;
    }

    /** Takes the oldest event (the consumer, one thread): true if there was one; read it with the accessors. */
    public boolean poll()
    {
        if (buffer.getLongAcquire(PRODUCER_POSITION_OFFSET) == position)
        {
            return false;
        }
        final int entry = HEADER_LENGTH + ((int)position & mask) * ENTRY_LENGTH;
        eventType = buffer.getInt(entry + EVENT_TYPE_OFFSET);
        qpNum = buffer.getInt(entry + QP_NUM_OFFSET);
        srqHandle = buffer.getInt(entry + SRQ_HANDLE_OFFSET);
        buffer.putLongRelease(CONSUMER_POSITION_OFFSET, ++position);
        return true;
    }

    /** The type of the event the last {@link #poll} took ({@code io.rnic.verbs.AsyncEvent}'s constants). */
    public int eventType()
    {
        return eventType;
    }

    /** The QP number of the event the last poll took, 0 for an SRQ event. */
    public int qpNum()
    {
        return qpNum;
    }

    /** The client's handle of the SRQ of the event the last poll took, 0 for a QP event. */
    public int srqHandle()
    {
        return srqHandle;
    }

    /** Events the producer dropped because the ring was full (either side may read it). */
    public long droppedEvents()
    {
        return buffer.getLongVolatile(DROPPED_OFFSET);
    }
}
