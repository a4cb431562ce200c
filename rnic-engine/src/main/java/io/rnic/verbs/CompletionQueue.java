package io.rnic.verbs;

import io.rnic.shm.Futex;
import org.agrona.BitUtil;
import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * A completion queue: a bounded lock-free ring of work completions. Producers are the engine threads whose QPs
 * complete into it (one, or several when QPs on different engine shards share the CQ); any number of application
 * threads may poll. Each slot carries a sequence number (Vyukov's bounded queue): a producer claims a slot with a CAS
 * on the tail and publishes it with a release store after filling it, a consumer claims it with a CAS on the head and
 * hands it back with a release store after copying it out. Nothing is allocated after construction, and no lock is
 * taken on either side.
 * <p>
 * All of its state lives in one {@link AtomicBuffer}, so the buffer may be shared memory that a driver process (the
 * engine, producing) and its clients (polling) both map: {@link #format} lays a queue out in a buffer, {@link #attach}
 * opens one another process formatted. The consumers are then not trusted by the producer: whatever they write into
 * the header or the sequences, every slot index is masked with the capacity this side read once, and {@link #offer}
 * gives up after {@link #MAX_OFFER_ATTEMPTS} contended attempts (counted as an overrun), so a scribbling client can
 * lose its own completions but cannot hang the engine or make it write outside the buffer.
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-------------------------------+-------------------------------+
 *  |            magic              |           capacity            |  0
 *  +-------------------------------+-------------------------------+
 *  |         slot length           |   (to byte 64)                |  8
 *  +-------------------------------+-------------------------------+
 *  |     notify armed (0/1)        |   notify events (futex word)  |  64
 *  +-------------------------------+-------------------------------+
 *  |                     tail (next position to fill)              |  128
 *  |                     overruns                                  |  136
 *  +---------------------------------------------------------------+
 *  |                     head (next position to poll)              |  256
 *  +---------------------------------------------------------------+
 *  |   capacity slots of 64 bytes from byte 384: sequence (8), wrId (8), status, opcode, vendor error,
 *  |   byte length, immediate, QPN, source QP, flags, network header type (4 each), 12 spare
 * </pre>
 * A full queue refuses the completion ({@link #offer} returns false): for ibverbs that is a CQ overrun, a fatal
 * error the engine reports and that moves the affected QP to the error state.
 */
public final class CompletionQueue
{
    /** "RNCQ" in little-endian ASCII: the header of a formatted completion queue. */
    public static final int MAGIC = 0x5143_4E52;
    public static final int MAX_ENTRIES = 1 << 22;
    public static final int SLOT_LENGTH = 64;
    /**
     * Attempts {@link #offer} makes when other producers keep taking the slot it read or winning the CAS on the tail.
     * Each failed attempt means another producer claimed a slot, and the engine's producers are a few threads, so
     * honest contention ends far sooner; only a consumer scribbling on the tail or the sequences keeps a producer
     * retrying that long.
     */
    public static final int MAX_OFFER_ATTEMPTS = 1024;

    static final int MAGIC_OFFSET = 0;
    static final int CAPACITY_OFFSET = 4;
    static final int SLOT_LENGTH_OFFSET = 8;
    /** Set by a consumer that will block ({@link #requestNotify}); cleared by the producer that wakes it. */
    static final int NOTIFY_ARMED_OFFSET = BitUtil.CACHE_LINE_LENGTH;
    /** Counts notifications; the futex word blocked consumers sleep on. */
    static final int NOTIFY_EVENTS_OFFSET = NOTIFY_ARMED_OFFSET + 4;
    static final int TAIL_OFFSET = 2 * BitUtil.CACHE_LINE_LENGTH;
    static final int OVERRUNS_OFFSET = TAIL_OFFSET + 8;
    static final int HEAD_OFFSET = 4 * BitUtil.CACHE_LINE_LENGTH;
    public static final int HEADER_LENGTH = 6 * BitUtil.CACHE_LINE_LENGTH;

    static final int SEQUENCE_OFFSET = 0;
    static final int WR_ID_OFFSET = 8;
    static final int STATUS_OFFSET = 16;
    static final int OPCODE_OFFSET = 20;
    static final int VENDOR_ERROR_OFFSET = 24;
    static final int BYTE_LENGTH_OFFSET = 28;
    static final int IMMEDIATE_OFFSET = 32;
    static final int QP_NUMBER_OFFSET = 36;
    static final int SOURCE_QP_OFFSET = 40;
    static final int FLAGS_OFFSET = 44;
    static final int NETWORK_HEADER_TYPE_OFFSET = 48;

    private final int handle;
    private final int capacity;
    private final int mask;
    private final AtomicBuffer buffer;
    /**
     * The buffer's memory as Unsafe addresses it (the array, or null off-heap, and the offset of byte 0): offer and
     * poll access the slots through these rather than through the buffer, whose accessors check bounds on every call
     * (on unless {@code agrona.disable.bounds.checks}); every offset is a masked slot index times the slot length
     * plus a constant below it, within the capacity checked against the buffer's length once, in format or attach.
     */
    private final byte[] base;
    private final long baseOffset;

    /**
     * Made by {@code RnicDevice.createCq}, which numbers the queues of a device; applications ask it for one.
     * The queue lives in a direct buffer of its own, aligned to a cache line.
     */
    public CompletionQueue(final int handle, final int requestedEntries)
    {
        this(handle, formatBuffer(new UnsafeBuffer(BufferUtil.allocateDirectAligned(
            requiredBytes(requestedEntries), 2 * BitUtil.CACHE_LINE_LENGTH)), requestedEntries));
    }

    private CompletionQueue(final int handle, final AtomicBuffer buffer)
    {
        if (buffer.byteArray() != null)
        {
            // blocked consumers sleep on a futex word, which has to be at a fixed native address
            throw new VerbsException("a completion queue lives in off-heap memory, not in a byte[]");
        }
        this.handle = handle;
        this.buffer = buffer;
        this.base = buffer.byteArray();
        this.baseOffset = buffer.addressOffset();
        this.capacity = buffer.getInt(CAPACITY_OFFSET);
        this.mask = capacity - 1;
    }

    /** Bytes a queue of at least {@code requestedEntries} entries takes in a buffer (header and slots). */
    public static int requiredBytes(final int requestedEntries)
    {
        return HEADER_LENGTH + capacityFor(requestedEntries) * SLOT_LENGTH;
    }

    /**
     * Lays out an empty queue in {@code buffer} (the creator's side): header and the slots' sequences. The magic is
     * written last, with a release store, so that {@link #attach} never sees a half-formatted queue.
     */
    public static CompletionQueue format(final int handle, final int requestedEntries, final AtomicBuffer buffer)
    {
        final int required = requiredBytes(requestedEntries);
        if (buffer.capacity() < required)
        {
            throw new VerbsException("a CQ of " + requestedEntries + " entries needs " + required +
                " bytes, the buffer has " + buffer.capacity());
        }
        SharedRingHeaders.checkAlignment(buffer, "completion queue");
        return new CompletionQueue(handle, formatBuffer(buffer, requestedEntries));
    }

    /**
     * Opens a queue another process formatted in {@code buffer} (the other side): reads its capacity from the header
     * once, and checks that the slots it implies lie within the buffer.
     */
    public static CompletionQueue attach(final int handle, final AtomicBuffer buffer)
    {
        SharedRingHeaders.checkFormatted(buffer, HEADER_LENGTH, MAGIC, "completion queue");
        final int capacity = buffer.getInt(CAPACITY_OFFSET);
        final int slotLength = buffer.getInt(SLOT_LENGTH_OFFSET);
        if (capacity < 2 || capacity > MAX_ENTRIES || !BitUtil.isPowerOfTwo(capacity) || slotLength != SLOT_LENGTH)
        {
            throw new VerbsException("not a completion queue: capacity " + capacity + ", slot length " + slotLength);
        }
        if ((long)HEADER_LENGTH + (long)capacity * SLOT_LENGTH > buffer.capacity())
        {
            throw new VerbsException("completion queue of " + capacity + " entries needs " +
                (HEADER_LENGTH + capacity * SLOT_LENGTH) + " bytes, the buffer has " + buffer.capacity());
        }
        return new CompletionQueue(handle, buffer);
    }

    private static int capacityFor(final int requestedEntries)
    {
        if (requestedEntries < 1 || requestedEntries > MAX_ENTRIES)
        {
            throw new VerbsException("CQ size " + requestedEntries + " out of range 1.." + MAX_ENTRIES);
        }
        return BitUtil.findNextPositivePowerOfTwo(Math.max(2, requestedEntries));
    }

    private static AtomicBuffer formatBuffer(final AtomicBuffer buffer, final int requestedEntries)
    {
        final int capacity = capacityFor(requestedEntries);
        buffer.setMemory(0, HEADER_LENGTH + capacity * SLOT_LENGTH, (byte)0);
        buffer.putInt(CAPACITY_OFFSET, capacity);
        buffer.putInt(SLOT_LENGTH_OFFSET, SLOT_LENGTH);
        for (int i = 0; i < capacity; i++)
        {
            buffer.putLong(HEADER_LENGTH + i * SLOT_LENGTH + SEQUENCE_OFFSET, i);
        }
        buffer.putIntRelease(MAGIC_OFFSET, MAGIC);
        return buffer;
    }

    public int handle()
    {
        return handle;
    }

    /** Number of entries; at least the size asked for (rounded up to a power of two, as providers do). */
    public int capacity()
    {
        return capacity;
    }

    /** The buffer holding the queue (to share it with another process). */
    public AtomicBuffer buffer()
    {
        return buffer;
    }

    /** Completions the engine could not deliver because the queue was full. */
    public long overruns()
    {
        return buffer.getLongVolatile(OVERRUNS_OFFSET);
    }

    /**
     * Adds a completion. Engine threads (any number).
     *
     * @return false when the queue is full (a CQ overrun), or when {@link #MAX_OFFER_ATTEMPTS} attempts found the
     * slot taken (only a consumer scribbling on the sequences makes that happen): counted as an overrun too.
     */
    public boolean offer(
        final long wrId,
        final WcStatus status,
        final int opcode,
        final int byteLength,
        final int immediate,
        final int qpNumber,
        final int sourceQp,
        final int wcFlags,
        final int networkHeaderType)
    {
        final byte[] base = this.base;
        final long tailAddress = baseOffset + TAIL_OFFSET;
        long position;
        long slot;
        int attempts = 0;
        while (true)
        {
            position = UnsafeApi.getLongVolatile(base, tailAddress);
            slot = baseOffset + HEADER_LENGTH + ((int)position & mask) * SLOT_LENGTH;
            final long sequence = UnsafeApi.getLongAcquire(base, slot + SEQUENCE_OFFSET);
            if (sequence == position)
            {
                if (UnsafeApi.compareAndSetLong(base, tailAddress, position, position + 1))
                {
                    break;
                }
            }
            else if (sequence < position)
            {
                UnsafeApi.getAndAddLong(base, baseOffset + OVERRUNS_OFFSET, 1L);
                return false;
            }
            // else another producer took this slot, or won the CAS: reread the tail, a bounded number of times
            if (++attempts >= MAX_OFFER_ATTEMPTS)
            {
                UnsafeApi.getAndAddLong(base, baseOffset + OVERRUNS_OFFSET, 1L);
                return false;
            }
        }
        UnsafeApi.putLong(base, slot + WR_ID_OFFSET, wrId);
        UnsafeApi.putInt(base, slot + STATUS_OFFSET, status.value());
        UnsafeApi.putInt(base, slot + OPCODE_OFFSET, opcode);
        UnsafeApi.putInt(base, slot + VENDOR_ERROR_OFFSET, 0);
        UnsafeApi.putInt(base, slot + BYTE_LENGTH_OFFSET, byteLength);
        UnsafeApi.putInt(base, slot + IMMEDIATE_OFFSET, immediate);
        UnsafeApi.putInt(base, slot + QP_NUMBER_OFFSET, qpNumber);
        UnsafeApi.putInt(base, slot + SOURCE_QP_OFFSET, sourceQp);
        UnsafeApi.putInt(base, slot + FLAGS_OFFSET, wcFlags);
        UnsafeApi.putInt(base, slot + NETWORK_HEADER_TYPE_OFFSET, networkHeaderType);
        UnsafeApi.putLongRelease(base, slot + SEQUENCE_OFFSET, position + 1);
        if (UnsafeApi.getIntVolatile(base, baseOffset + NOTIFY_ARMED_OFFSET) != 0)
        {
            notifyWaiters(); // a consumer blocks on this queue: the one system call, only when it asked for it
        }
        return true;
    }

    private void notifyWaiters()
    {
        if (buffer.compareAndSetInt(NOTIFY_ARMED_OFFSET, 1, 0))
        {
            buffer.getAndAddInt(NOTIFY_EVENTS_OFFSET, 1);
            Futex.wake(buffer.addressOffset() + NOTIFY_EVENTS_OFFSET, Integer.MAX_VALUE);
        }
    }

    /**
     * ibverbs {@code ibv_req_notify_cq}: the next completion added to this queue wakes the threads blocked in
     * {@link #awaitNotification} (of any process sharing the queue). Notifications are one-shot: ask again after each.
     */
    public void requestNotify()
    {
        buffer.putIntVolatile(NOTIFY_ARMED_OFFSET, 1);
    }

    /** Notifications sent so far: read before {@link #requestNotify}, pass to {@link #awaitNotification}. */
    public int notifications()
    {
        return buffer.getIntVolatile(NOTIFY_EVENTS_OFFSET);
    }

    /**
     * ibverbs {@code ibv_get_cq_event}: blocks the calling thread until a notification later than
     * {@code seenNotifications} (from {@link #notifications()}) or {@code timeoutNs}. From a virtual thread it pins
     * its carrier while it blocks (a system call). Returns whether a notification came.
     */
    public boolean awaitNotification(final int seenNotifications, final long timeoutNs)
    {
        final long deadlineNs = System.nanoTime() + timeoutNs;
        while (buffer.getIntVolatile(NOTIFY_EVENTS_OFFSET) == seenNotifications)
        {
            final long leftNs = deadlineNs - System.nanoTime();
            if (leftNs <= 0)
            {
                return false;
            }
            Futex.await(buffer.addressOffset() + NOTIFY_EVENTS_OFFSET, seenNotifications, leftNs);
        }
        return true;
    }

    /**
     * Polls, and when nothing is there blocks until a completion arrives or {@code timeoutNs} passes: the
     * completion channel's usual loop ({@code ibv_req_notify_cq}, poll again, {@code ibv_get_cq_event}) in one call,
     * without a lost wake-up. The engine makes a system call only for a queue someone is blocked on.
     *
     * @return the number of completions written, 0 after the timeout.
     */
    public int pollBlocking(final WorkCompletion[] completions, final int max, final long timeoutNs)
    {
        final long deadlineNs = System.nanoTime() + timeoutNs;
        while (true)
        {
            int count = poll(completions, max);
            if (count > 0)
            {
                return count;
            }
            final int seen = notifications();
            requestNotify();
            count = poll(completions, max); // one may have arrived before the request: it would not notify
            if (count > 0)
            {
                return count;
            }
            final long leftNs = deadlineNs - System.nanoTime();
            if (leftNs <= 0 || !awaitNotification(seen, leftNs))
            {
                return poll(completions, max);
            }
        }
    }

    /**
     * Room for this many more completions (a lower bound while consumers run, an upper one while producers do),
     * within 0..capacity whatever a consumer wrote into the head.
     */
    public int remainingCapacity()
    {
        final long used = buffer.getLongVolatile(TAIL_OFFSET) - buffer.getLongVolatile(HEAD_OFFSET);
        return used < 0 || used > capacity ? 0 : capacity - (int)used;
    }

    /**
     * Polls up to {@code max} completions into {@code completions}, oldest first. Any thread.
     * <p>
     * A null entry is filled with a new {@link WorkCompletion} before a completion is claimed for it, so an array
     * made with {@code new WorkCompletion[n]} loses nothing; it allocates only on the first polls into that array,
     * and polling into it again allocates nothing.
     *
     * @return the number of completions written (0 when the queue is empty).
     */
    public int poll(final WorkCompletion[] completions, final int max)
    {
        final byte[] base = this.base;
        final long headAddress = baseOffset + HEAD_OFFSET;
        final int limit = Math.min(max, completions.length);
        int count = 0;
        while (count < limit)
        {
            final long position = UnsafeApi.getLongVolatile(base, headAddress);
            final long slot = baseOffset + HEADER_LENGTH + ((int)position & mask) * SLOT_LENGTH;
            final long sequence = UnsafeApi.getLongAcquire(base, slot + SEQUENCE_OFFSET);
            if (sequence != position + 1)
            {
                if (sequence < position + 1)
                {
                    break; // empty
                }
                continue; // another consumer took it: reread the head
            }
            WorkCompletion wc = completions[count];
            if (null == wc)
            {
                wc = new WorkCompletion(); // before the claim: nothing can fail once the slot is ours
                completions[count] = wc;
            }
            if (!UnsafeApi.compareAndSetLong(base, headAddress, position, position + 1))
            {
                continue;
            }
            count++;
            wc.wrId = UnsafeApi.getLong(base, slot + WR_ID_OFFSET);
            wc.status = UnsafeApi.getInt(base, slot + STATUS_OFFSET);
            wc.opcode = UnsafeApi.getInt(base, slot + OPCODE_OFFSET);
            wc.vendorError = UnsafeApi.getInt(base, slot + VENDOR_ERROR_OFFSET);
            wc.byteLength = UnsafeApi.getInt(base, slot + BYTE_LENGTH_OFFSET);
            wc.immediateOrInvalidatedRKey = UnsafeApi.getInt(base, slot + IMMEDIATE_OFFSET);
            wc.qpNumber = UnsafeApi.getInt(base, slot + QP_NUMBER_OFFSET);
            wc.sourceQp = UnsafeApi.getInt(base, slot + SOURCE_QP_OFFSET);
            wc.flags = UnsafeApi.getInt(base, slot + FLAGS_OFFSET);
            wc.networkHeaderType = UnsafeApi.getInt(base, slot + NETWORK_HEADER_TYPE_OFFSET);
            wc.pkeyIndex = 0;
            wc.serviceLevel = 0;
            UnsafeApi.putLongRelease(base, slot + SEQUENCE_OFFSET, position + capacity);
        }
        return count;
    }
}
