package io.rnic.verbs;

import org.agrona.BitUtil;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A completion queue: a bounded lock-free ring of work completions. Producers are the engine threads whose QPs
 * complete into it (one, or several when QPs on different engine shards share the CQ); any number of application
 * threads may poll. Each slot carries a sequence number (Vyukov's bounded queue): a producer claims a slot with a CAS
 * on the tail and publishes it with a release store after filling it, a consumer claims it with a CAS on the head and
 * hands it back with a release store after copying it out. Nothing is allocated after construction, and no lock is
 * taken on either side.
 * <p>
 * A full queue refuses the completion ({@link #offer} returns false): for ibverbs that is a CQ overrun, a fatal
 * error the engine reports and that moves the affected QP to the error state.
 */
public final class CompletionQueue
{
    private static final VarHandle SEQUENCE = MethodHandles.arrayElementVarHandle(long[].class);
    private static final VarHandle HEAD;
    private static final VarHandle TAIL;
    private static final VarHandle OVERRUNS;

    static
    {
        try
        {
            final MethodHandles.Lookup lookup = MethodHandles.lookup();
            HEAD = lookup.findVarHandle(CompletionQueue.class, "head", long.class);
            TAIL = lookup.findVarHandle(CompletionQueue.class, "tail", long.class);
            OVERRUNS = lookup.findVarHandle(CompletionQueue.class, "overruns", long.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private final int handle;
    private final int capacity;
    private final int mask;
    private final long[] sequences;
    private final long[] wrIds;
    private final int[] statuses;
    private final int[] opcodes;
    private final int[] vendorErrors;
    private final int[] byteLengths;
    private final int[] immediates;
    private final int[] qpNumbers;
    private final int[] sourceQps;
    private final int[] flags;
    private final int[] networkHeaderTypes;

    @SuppressWarnings("unused") // accessed through HEAD
    private volatile long head;
    @SuppressWarnings("unused") // accessed through TAIL
    private volatile long tail;
    @SuppressWarnings("unused") // accessed through OVERRUNS
    private volatile long overruns;

    /** The most entries a CQ can be created with ({@code max_cqe}). */
    public static final int MAX_ENTRIES = 1 << 22;

    /** Made by {@code RnicDevice.createCq}, which numbers the queues of a device; applications ask it for one. */
    public CompletionQueue(final int handle, final int requestedEntries)
    {
        if (requestedEntries < 1 || requestedEntries > MAX_ENTRIES)
        {
            throw new VerbsException("CQ size " + requestedEntries + " out of range 1.." + MAX_ENTRIES);
        }
        this.handle = handle;
        this.capacity = BitUtil.findNextPositivePowerOfTwo(Math.max(2, requestedEntries));
        this.mask = capacity - 1;
        sequences = new long[capacity];
        for (int i = 0; i < capacity; i++)
        {
            sequences[i] = i;
        }
        wrIds = new long[capacity];
        statuses = new int[capacity];
        opcodes = new int[capacity];
        vendorErrors = new int[capacity];
        byteLengths = new int[capacity];
        immediates = new int[capacity];
        qpNumbers = new int[capacity];
        sourceQps = new int[capacity];
        flags = new int[capacity];
        networkHeaderTypes = new int[capacity];
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

    /** Completions the engine could not deliver because the queue was full. */
    public long overruns()
    {
        return overruns;
    }

    /**
     * Adds a completion. Engine threads (any number).
     *
     * @return false when the queue is full (a CQ overrun).
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
        long position;
        int index;
        while (true)
        {
            position = (long)TAIL.getVolatile(this);
            index = (int)position & mask;
            final long sequence = (long)SEQUENCE.getAcquire(sequences, index);
            if (sequence == position)
            {
                if (TAIL.compareAndSet(this, position, position + 1))
                {
                    break;
                }
            }
            else if (sequence < position)
            {
                OVERRUNS.getAndAdd(this, 1L);
                return false;
            }
            // else another producer took this slot: reread the tail
        }
        wrIds[index] = wrId;
        statuses[index] = status.value();
        opcodes[index] = opcode;
        vendorErrors[index] = 0;
        byteLengths[index] = byteLength;
        immediates[index] = immediate;
        qpNumbers[index] = qpNumber;
        sourceQps[index] = sourceQp;
        flags[index] = wcFlags;
        networkHeaderTypes[index] = networkHeaderType;
        SEQUENCE.setRelease(sequences, index, position + 1);
        return true;
    }

    /** Room for this many more completions (a lower bound while consumers run, an upper one while producers do). */
    public int remainingCapacity()
    {
        return capacity - (int)((long)TAIL.getVolatile(this) - (long)HEAD.getVolatile(this));
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
        final int limit = Math.min(max, completions.length);
        int count = 0;
        while (count < limit)
        {
            final long position = (long)HEAD.getVolatile(this);
            final int index = (int)position & mask;
            final long sequence = (long)SEQUENCE.getAcquire(sequences, index);
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
            if (!HEAD.compareAndSet(this, position, position + 1))
            {
                continue;
            }
            count++;
            wc.wrId = wrIds[index];
            wc.status = statuses[index];
            wc.opcode = opcodes[index];
            wc.vendorError = vendorErrors[index];
            wc.byteLength = byteLengths[index];
            wc.immediateOrInvalidatedRKey = immediates[index];
            wc.qpNumber = qpNumbers[index];
            wc.sourceQp = sourceQps[index];
            wc.flags = flags[index];
            wc.networkHeaderType = networkHeaderTypes[index];
            wc.pkeyIndex = 0;
            wc.serviceLevel = 0;
            SEQUENCE.setRelease(sequences, index, position + capacity);
        }
        return count;
    }
}
