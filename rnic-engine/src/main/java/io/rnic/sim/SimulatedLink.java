package io.rnic.sim;

import io.rnic.transport.PacketSink;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.SplittableRandom;

/**
 * One direction of a simulated wire: frames handed to it (it is a {@link PacketSink}) are copied into a fixed pool
 * of slots and come out at their delivery time, after the {@link LinkConditions} have had their way with them.
 * Deterministic for a given seed. Preallocated: carrying a frame allocates nothing.
 */
public final class SimulatedLink implements PacketSink
{
    /** Receives the frames that come out of the link. */
    @FunctionalInterface
    public interface Receiver
    {
        void onFrame(DirectBuffer buffer, int offset, int length);
    }

    private static final int SLOT_BYTES = 9216;

    private final LinkConditions conditions;
    private final SplittableRandom random;
    private final VirtualClock clock;
    private final UnsafeBuffer[] slots;
    private final int[] lengths;
    private final long[] deliverAtNs;
    private final long[] sequence;
    /** Min-heap of slot indices by (deliverAt, sequence). */
    private final int[] heap;
    private final int[] free;
    private int heapSize;
    private int freeCount;
    private long nextSequence;

    private long framesIn;
    private long framesDelivered;
    private long framesLost;
    private long framesDuplicated;
    private long framesCorrupted;
    private long framesReordered;
    private long framesOverflowed;
    private long framesMarked;
    private final EcnMarking marking = new EcnMarking();

    public SimulatedLink(final LinkConditions conditions, final long seed, final VirtualClock clock, final int capacity)
    {
        this.conditions = conditions;
        this.random = new SplittableRandom(seed);
        this.clock = clock;
        slots = new UnsafeBuffer[capacity];
        lengths = new int[capacity];
        deliverAtNs = new long[capacity];
        sequence = new long[capacity];
        heap = new int[capacity];
        free = new int[capacity];
        for (int i = 0; i < capacity; i++)
        {
            slots[i] = new UnsafeBuffer(new byte[SLOT_BYTES]);
            free[i] = i;
        }
        freeCount = capacity;
    }

    public void send(final DirectBuffer frame, final int offset, final int length)
    {
        framesIn++;
        if (random.nextDouble() < conditions.loss)
        {
            framesLost++;
            return;
        }
        final boolean duplicate = random.nextDouble() < conditions.duplicate;
        enqueue(frame, offset, length);
        if (duplicate)
        {
            framesDuplicated++;
            enqueue(frame, offset, length);
        }
    }

    private void enqueue(final DirectBuffer frame, final int offset, final int length)
    {
        if (freeCount == 0 || length > SLOT_BYTES)
        {
            framesOverflowed++; // a full switch buffer drops the frame, as a real one does
            return;
        }
        final int slot = free[--freeCount];
        slots[slot].putBytes(0, frame, offset, length);
        lengths[slot] = length;
        if (length > 0 && random.nextDouble() < conditions.corrupt)
        {
            framesCorrupted++;
            final int at = random.nextInt(length);
            slots[slot].putByte(at, (byte)(slots[slot].getByte(at) ^ (1 + random.nextInt(255))));
        }
        if (conditions.ceMark > 0 && random.nextDouble() < conditions.ceMark &&
            marking.markCongestionExperienced(slots[slot], 0, length))
        {
            framesMarked++;
        }
        long delay = conditions.delayNs;
        if (random.nextDouble() < conditions.reorder)
        {
            framesReordered++;
            delay += 1 + random.nextLong(Math.max(1, conditions.reorderWindowNs));
        }
        deliverAtNs[slot] = clock.nanoTime() + delay;
        sequence[slot] = nextSequence++;
        push(slot);
    }

    /** Delivers every frame due by now; returns how many. */
    public int deliver(final Receiver receiver)
    {
        int delivered = 0;
        final long now = clock.nanoTime();
        while (heapSize > 0 && deliverAtNs[heap[0]] <= now)
        {
            final int slot = pop();
            receiver.onFrame(slots[slot], 0, lengths[slot]);
            free[freeCount++] = slot;
            delivered++;
        }
        framesDelivered += delivered;
        return delivered;
    }

    /** When the next frame is due, or Long.MAX_VALUE when the link is empty. */
    public long nextDeliveryNs()
    {
        return heapSize == 0 ? Long.MAX_VALUE : deliverAtNs[heap[0]];
    }

    public boolean isEmpty()
    {
        return heapSize == 0;
    }

    public long framesIn()
    {
        return framesIn;
    }

    public long framesDelivered()
    {
        return framesDelivered;
    }

    public long framesLost()
    {
        return framesLost;
    }

    public long framesDuplicated()
    {
        return framesDuplicated;
    }

    public long framesCorrupted()
    {
        return framesCorrupted;
    }

    public long framesReordered()
    {
        return framesReordered;
    }

    public long framesOverflowed()
    {
        return framesOverflowed;
    }

    /** ECN-capable frames marked CE ({@link LinkConditions#ceMark}). */
    public long framesMarked()
    {
        return framesMarked;
    }

    private boolean before(final int a, final int b)
    {
        return deliverAtNs[a] < deliverAtNs[b] || deliverAtNs[a] == deliverAtNs[b] && sequence[a] < sequence[b];
    }

    private void push(final int slot)
    {
        int i = heapSize++;
        heap[i] = slot;
        while (i > 0)
        {
            final int parent = (i - 1) >>> 1;
            if (!before(heap[i], heap[parent]))
            {
                break;
            }
            final int t = heap[i];
            heap[i] = heap[parent];
            heap[parent] = t;
            i = parent;
        }
    }

    private int pop()
    {
        final int top = heap[0];
        heap[0] = heap[--heapSize];
        int i = 0;
        while (true)
        {
            final int left = 2 * i + 1;
            if (left >= heapSize)
            {
                break;
            }
            final int right = left + 1;
            final int child = right < heapSize && before(heap[right], heap[left]) ? right : left;
            if (!before(heap[child], heap[i]))
            {
                break;
            }
            final int t = heap[i];
            heap[i] = heap[child];
            heap[child] = t;
            i = child;
        }
        return top;
    }
}
