package io.rnic.verbs;

import org.agrona.BitUtil;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

/**
 * The ring behind a send or receive queue: application threads post (copy a request into a preallocated slot,
 * lock-free, any number of threads), the engine thread reads slots in order and releases each one when its work is
 * complete, which may be much later (an RC send WQE stays until it is acknowledged, for retransmission).
 * Per-slot sequence numbers as in Vyukov's bounded queue: a slot at position p is free when its sequence is p,
 * posted when it is p + 1, and becomes free for position p + capacity when released.
 */
public final class WorkQueueRing<T>
{
    private static final VarHandle SEQUENCE = MethodHandles.arrayElementVarHandle(long[].class);
    private static final VarHandle TAIL;

    static
    {
        try
        {
            TAIL = MethodHandles.lookup().findVarHandle(WorkQueueRing.class, "tail", long.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private final int capacity;
    private final int mask;
    private final long[] sequences;
    private final T[] slots;
    private final BiConsumer<T, T> copier;

    @SuppressWarnings("unused") // through TAIL
    private volatile long tail;

    @SuppressWarnings("unchecked")
    public WorkQueueRing(final int requestedEntries, final Supplier<T> factory, final BiConsumer<T, T> copier)
    {
        if (requestedEntries < 1 || requestedEntries > (1 << 20))
        {
            throw new VerbsException("work queue size " + requestedEntries + " out of range 1.." + (1 << 20));
        }
        capacity = BitUtil.findNextPositivePowerOfTwo(requestedEntries);
        mask = capacity - 1;
        sequences = new long[capacity];
        slots = (T[])new Object[capacity];
        for (int i = 0; i < capacity; i++)
        {
            sequences[i] = i;
            slots[i] = factory.get();
        }
        this.copier = copier;
    }

    public int capacity()
    {
        return capacity;
    }

    /**
     * Copies {@code request} into the next free slot. Any thread.
     *
     * @return false when the queue is full (ibverbs: ENOMEM).
     */
    public boolean offer(final T request)
    {
        while (true)
        {
            final long position = (long)TAIL.getVolatile(this);
            final int index = (int)position & mask;
            final long sequence = (long)SEQUENCE.getAcquire(sequences, index);
            if (sequence == position)
            {
                if (TAIL.compareAndSet(this, position, position + 1))
                {
                    copier.accept(request, slots[index]);
                    SEQUENCE.setRelease(sequences, index, position + 1);
                    return true;
                }
            }
            else if (sequence < position)
            {
                return false; // the slot a full lap back is not released yet
            }
            // else another producer claimed this position: retry with the new tail
        }
    }

    /** The request posted at {@code position}, or null if nothing is posted there yet. Engine thread. */
    public T posted(final long position)
    {
        final int index = (int)position & mask;
        return (long)SEQUENCE.getAcquire(sequences, index) == position + 1 ? slots[index] : null;
    }

    /** Frees the slot at {@code position} for reuse; positions are released in order. Engine thread. */
    public void release(final long position)
    {
        SEQUENCE.setRelease(sequences, (int)position & mask, position + capacity);
    }

    /** Positions claimed so far (posted or being copied). */
    public long tail()
    {
        return (long)TAIL.getVolatile(this);
    }
}
