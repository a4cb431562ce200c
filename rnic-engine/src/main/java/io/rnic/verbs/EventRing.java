package io.rnic.verbs;

import io.rnic.shm.Futex;
import org.agrona.BitUtil;
import org.agrona.BufferUtil;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.concurrent.atomic.AtomicLong;

/**
 * A ring of events for one consumer: a device's asynchronous events ({@code ibv_get_async_event}) and, through a
 * driver, a client's RDMA CM id changes ({@code rdma_get_cm_event}). Fixed-size records, each a kind, a handle of the
 * consumer's (an SRQ's, a CM id's) and a payload of that kind's fields. Embedded, the engine threads produce into a
 * ring in the device's own memory ({@link #allocate}); through a driver, the driver's conductor produces into a ring
 * in a file the client shares with it ({@link #format}, {@link #attach}).
 * <p>
 * Each slot carries a sequence (Vyukov's bounded queue, as {@link CompletionQueue}): a producer claims a position on
 * its own counter, fills the slot and publishes it by storing position + 1 in its sequence; the consumer takes the slot
 * at its position once its sequence says so, and hands it back by advancing the consumer position. A consumer that
 * will block arms the ring and sleeps on the futex word; the producer that publishes next into an armed ring bumps
 * the word and wakes it, as a completion queue's notify does: a system call only when someone sleeps.
 * <p>
 * The producer does not trust the consumer: its claim counter is its own, every slot index is masked with the
 * capacity it formatted, and a consumer position that is not credible (ahead, or behind by more than the capacity)
 * reads as a full ring. A full ring refuses a record ({@link #claim} returns -1): an asynchronous event is then
 * dropped and counted ({@link #offerAsyncEvent}); a CM id's change is pushed again later by its producer, which keeps
 * each id's latest state. No allocation, no lock.
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-------------------------------+-------------------------------+
 *  |             magic             |            capacity           |  0
 *  +-------------------------------+-------------------------------+
 *  |          slot length          |   (to byte 64)                |  8
 *  +-------------------------------+-------------------------------+
 *  |      wake armed (0/1)         |     wake-ups (futex word)     |  64
 *  +-------------------------------+-------------------------------+
 *  |                  events dropped (ring full)                   |  72
 *  +---------------------------------------------------------------+
 *  |                consumer position (records taken)              |  128
 *  +---------------------------------------------------------------+
 *  |   capacity slots of 320 bytes from byte 192: sequence (8), kind (4), handle (4), payload (304)
 * </pre>
 */
public final class EventRing
{
    /** "RNEV" in little-endian ASCII: the header of a formatted event ring. */
    public static final int MAGIC = 0x5645_4E52;
    /** Records a ring holds: far more than a consumer that looks now and then lets pile up. */
    public static final int CAPACITY = 1024;
    public static final int SLOT_LENGTH = 320;
    /** Bytes a record's payload has: a CM id's fields and its peer's private data (a REP's, 196 bytes) fit. */
    public static final int PAYLOAD_LENGTH = SLOT_LENGTH - 16;

    /** An asynchronous event: handle is the SRQ's (0 for a QP event); payload event type, QP number. */
    public static final int KIND_ASYNC_EVENT = 1;
    /** A REQ to one of the consumer's ports: a new CM id (handle), in {@code REQ_RCVD}; payload the id's fields. */
    public static final int KIND_CM_REQUEST = 2;
    /** A CM id (handle) of the consumer's in a new state; payload the id's fields, the whole id. */
    public static final int KIND_CM_UPDATE = 3;

    public static final int MAGIC_OFFSET = 0;
    public static final int CAPACITY_OFFSET = 4;
    public static final int SLOT_LENGTH_OFFSET = 8;
    public static final int WAKE_ARMED_OFFSET = BitUtil.CACHE_LINE_LENGTH;
    public static final int WAKEUPS_OFFSET = WAKE_ARMED_OFFSET + 4;
    public static final int DROPPED_OFFSET = WAKE_ARMED_OFFSET + 8;
    public static final int CONSUMER_POSITION_OFFSET = 2 * BitUtil.CACHE_LINE_LENGTH;
    public static final int HEADER_LENGTH = 3 * BitUtil.CACHE_LINE_LENGTH;

    public static final int SEQUENCE_OFFSET = 0;
    public static final int KIND_OFFSET = 8;
    public static final int HANDLE_OFFSET = 12;
    /** Where a record's payload starts in its slot; the kinds' fields are at offsets from here. */
    public static final int PAYLOAD_OFFSET = 16;
    /** An asynchronous event's type ({@link AsyncEvent}'s constants), in the payload. */
    public static final int EVENT_TYPE_OFFSET = 0;
    /** An asynchronous event's QP number (0 for an SRQ event), in the payload. */
    public static final int QP_NUM_OFFSET = 4;

    private static final int PAGE_LENGTH = 4096;

    private final AtomicBuffer buffer;
    private final int capacity;
    private final int mask;
    /** The producers' claims: never a count the consumer could write. */
    private final AtomicLong claimed = new AtomicLong();
    /** The consumer's position (its callers take turns). */
    private long taken;

    private EventRing(final AtomicBuffer buffer, final int capacity)
    {
        this.buffer = buffer;
        this.capacity = capacity;
        this.mask = capacity - 1;
    }

    /** Bytes of the memory a ring takes (a driver's client makes a file this long): whole pages. */
    public static long fileLength()
    {
        return BitUtil.align(HEADER_LENGTH + (long)CAPACITY * SLOT_LENGTH, PAGE_LENGTH);
    }

    /** A ring in memory of its own, for producers and a consumer in this process (an embedded device's). */
    public static EventRing allocate()
    {
        return format(new UnsafeBuffer(BufferUtil.allocateDirectAligned((int)fileLength(), PAGE_LENGTH)));
    }

    /** Lays out an empty ring in {@code buffer} (the producer's side); the magic last, with a release store. */
    public static EventRing format(final AtomicBuffer buffer)
    {
        if (buffer.capacity() < fileLength())
        {
            throw new IllegalArgumentException("an event ring needs " + fileLength() + " bytes, the buffer has " +
                buffer.capacity());
        }
        buffer.verifyAlignment();
        buffer.setMemory(0, HEADER_LENGTH + CAPACITY * SLOT_LENGTH, (byte)0);
        buffer.putInt(CAPACITY_OFFSET, CAPACITY);
        buffer.putInt(SLOT_LENGTH_OFFSET, SLOT_LENGTH);
        buffer.putIntRelease(MAGIC_OFFSET, MAGIC);
        return new EventRing(buffer, CAPACITY);
    }

    /** Opens the ring another process formatted in {@code buffer} (the consumer's side), checking its header. */
    public static EventRing attach(final AtomicBuffer buffer)
    {
        buffer.verifyAlignment();
        if (buffer.capacity() < HEADER_LENGTH || buffer.getIntAcquire(MAGIC_OFFSET) != MAGIC)
        {
            throw new VerbsException("not an event ring: its producer did not format it");
        }
        final int capacity = buffer.getInt(CAPACITY_OFFSET);
        if (capacity < 1 || !BitUtil.isPowerOfTwo(capacity) || buffer.getInt(SLOT_LENGTH_OFFSET) != SLOT_LENGTH ||
            (long)HEADER_LENGTH + (long)capacity * SLOT_LENGTH > buffer.capacity())
        {
            throw new VerbsException("not an event ring of this version: capacity " + capacity + ", slots of " +
                buffer.getInt(SLOT_LENGTH_OFFSET) + " bytes");
        }
        final EventRing ring = new EventRing(buffer, capacity);
        ring.taken = buffer.getLongVolatile(CONSUMER_POSITION_OFFSET);
        return ring;
    }

    public int capacity()
    {
        return capacity;
    }

    /** The memory the ring lies in: records are read and written at the offsets {@link #slotOffset} gives. */
    public AtomicBuffer buffer()
    {
        return buffer;
    }

    /**
     * Claims the next slot for a record of {@code kind} about {@code handle} (a producer, any thread): write its
     * payload at {@link #slotOffset}{@code (position) + PAYLOAD_OFFSET}, then {@link #commit}.
     *
     * @return the record's position, or -1 when the ring is full (or its consumer position not credible).
     */
    public long claim(final int kind, final int handle)
    {
        while (true)
        {
            final long next = claimed.get();
            final long used = next - buffer.getLongVolatile(CONSUMER_POSITION_OFFSET);
            if (used < 0 || used >= capacity)
            {
                return -1;
            }
            if (claimed.compareAndSet(next, next + 1))
            {
                final int slot = slotOffset(next);
                buffer.putInt(slot + KIND_OFFSET, kind);
                buffer.putInt(slot + HANDLE_OFFSET, handle);
                return next;
            }
        }
    }

    /** Where the record at {@code position} lies in {@link #buffer}. */
    public int slotOffset(final long position)
    {
        return HEADER_LENGTH + ((int)position & mask) * SLOT_LENGTH;
    }

    /** Publishes the record {@link #claim} gave {@code position} to, and wakes a consumer that sleeps on the ring. */
    public void commit(final long position)
    {
        // a volatile store, not a release: ordered before the load of the armed flag (a consumer arms, then looks)
        buffer.putLongVolatile(slotOffset(position) + SEQUENCE_OFFSET, position + 1);
        if (buffer.getIntVolatile(WAKE_ARMED_OFFSET) != 0 && buffer.compareAndSetInt(WAKE_ARMED_OFFSET, 1, 0))
        {
            buffer.getAndAddInt(WAKEUPS_OFFSET, 1);
            Futex.wake(buffer.addressOffset() + WAKEUPS_OFFSET, Integer.MAX_VALUE);
        }
    }

    /**
     * Writes an asynchronous event (a producer, any thread; allocates nothing, takes no lock): about the SRQ of
     * {@code srqHandle}, or the QP {@code qpNum} with handle 0.
     *
     * @return false when the ring was full: the event is dropped and counted ({@link #droppedEvents}).
     */
    public boolean offerAsyncEvent(final int eventType, final int qpNum, final int srqHandle)
    {
        final long record = claim(KIND_ASYNC_EVENT, srqHandle);
        if (record < 0)
        {
            buffer.getAndAddLong(DROPPED_OFFSET, 1);
            return false;
        }
        final int payload = slotOffset(record) + PAYLOAD_OFFSET;
        buffer.putInt(payload + EVENT_TYPE_OFFSET, eventType);
        buffer.putInt(payload + QP_NUM_OFFSET, qpNum);
        commit(record);
        return true;
    }

    /**
     * The oldest record not taken yet (the consumer, one thread at a time): its slot's offset in {@link #buffer},
     * or -1 when there is none. Read it, then {@link #take} it.
     */
    public int peek()
    {
        final int slot = slotOffset(taken);
        return buffer.getLongAcquire(slot + SEQUENCE_OFFSET) == taken + 1 ? slot : -1;
    }

    /** Hands the record {@link #peek} returned back to the producers. */
    public void take()
    {
        buffer.putLongRelease(CONSUMER_POSITION_OFFSET, ++taken);
    }

    /** The record's kind ({@code KIND_*}) at a slot {@link #peek} returned. */
    public int kind(final int slot)
    {
        return buffer.getInt(slot + KIND_OFFSET);
    }

    /** The record's handle at a slot {@link #peek} returned. */
    public int handle(final int slot)
    {
        return buffer.getInt(slot + HANDLE_OFFSET);
    }

    /** The payload's int at {@code offset} of the record at a slot {@link #peek} returned. */
    public int payloadInt(final int slot, final int offset)
    {
        return buffer.getInt(slot + PAYLOAD_OFFSET + offset);
    }

    /** The futex word's value: read it before looking at the ring, then {@link #await} it. */
    public int wakeups()
    {
        return buffer.getIntVolatile(WAKEUPS_OFFSET);
    }

    /**
     * Sleeps until a producer publishes a record after the wake-ups read {@code seenWakeups}, or {@code timeoutNs}
     * passes ({@link #arm}, then {@link #sleep}). The caller looks at the ring again on return, whatever woke it.
     */
    public void await(final int seenWakeups, final long timeoutNs)
    {
        if (arm())
        {
            sleep(seenWakeups, timeoutNs);
        }
    }

    /**
     * Asks the next producer to publish to wake the consumer, then looks again (a record published before the arming
     * wakes nobody): true when there is still nothing to take, so the consumer may {@link #sleep}.
     */
    public boolean arm()
    {
        buffer.putIntVolatile(WAKE_ARMED_OFFSET, 1);
        return peek() < 0;
    }

    /** Sleeps on the futex word while it holds {@code seenWakeups}, for at most {@code timeoutNs}. */
    public void sleep(final int seenWakeups, final long timeoutNs)
    {
        if (timeoutNs > 0)
        {
            Futex.await(buffer.addressOffset() + WAKEUPS_OFFSET, seenWakeups, timeoutNs);
        }
    }

    /** Wakes every consumer asleep on the ring with no record for it (its source is gone: they look why). */
    public void wakeConsumers()
    {
        buffer.getAndAddInt(WAKEUPS_OFFSET, 1);
        Futex.wake(buffer.addressOffset() + WAKEUPS_OFFSET, Integer.MAX_VALUE);
    }

    /** Asynchronous events the producers dropped because the ring was full (either side may read it). */
    public long droppedEvents()
    {
        return buffer.getLongVolatile(DROPPED_OFFSET);
    }
}
