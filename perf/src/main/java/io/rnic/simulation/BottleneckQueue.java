package io.rnic.simulation;

import io.rnic.sim.EcnMarking;
import io.rnic.sim.SimulatedLink;
import io.rnic.sim.VirtualClock;
import io.rnic.transport.PacketSink;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.SplittableRandom;

/**
 * A switch egress port: a FIFO queue served at {@code rateBitsPerSec}, then a wire of {@code propagationNs}. While
 * the queue holds more than {@code markMinBytes}, a frame is marked CE with a probability growing linearly from 0
 * to {@code markMaxProbability} at {@code markMaxBytes}, and always above it (RED with ECN, the thresholds the DCQCN
 * paper uses; only ECN-capable frames are marked). A frame that does not fit in {@code capacityBytes} is dropped
 * (tail drop). The queue depth is the bytes not yet serialized (the instantaneous queue).
 * <p>
 * Where the mark is decided matters to the control loop: on dequeue (the default) a frame is judged by the queue it
 * leaves behind and carries the news at once; on enqueue it reports the queue it joins only after waiting through
 * it, which adds the queueing delay to the feedback loop ({@link Settings#markOnEnqueue}).
 * <p>
 * Frames are kept back to back in one byte ring; carrying a frame allocates nothing. Deterministic for a seed.
 */
public final class BottleneckQueue implements PacketSink
{
    /** Settings of the port; fluent, checked by {@link BottleneckQueue}'s constructor. */
    public static final class Settings
    {
        public long rateBitsPerSec = 10_000_000_000L;
        public long propagationNs = 1_000;
        public int capacityBytes = 1 << 20;
        /** 0 with {@code markMaxProbability} 0: never marks. */
        public int markMinBytes = 5 * 1024;
        public int markMaxBytes = 200 * 1024;
        public double markMaxProbability = 0.01;
        /** Decide the mark when a frame joins the queue rather than when it leaves it. */
        public boolean markOnEnqueue;

        public Settings rateBitsPerSec(final long value)
        {
            rateBitsPerSec = value;
            return this;
        }

        public Settings propagationNs(final long value)
        {
            propagationNs = value;
            return this;
        }

        public Settings capacityBytes(final int value)
        {
            capacityBytes = value;
            return this;
        }

        /** RED: no marking up to {@code minBytes}, then up to {@code maxProbability} at {@code maxBytes}, 1 above. */
        public Settings marking(final int minBytes, final int maxBytes, final double maxProbability)
        {
            markMinBytes = minBytes;
            markMaxBytes = maxBytes;
            markMaxProbability = maxProbability;
            return this;
        }

        public Settings markOnEnqueue(final boolean value)
        {
            markOnEnqueue = value;
            return this;
        }

        public Settings noMarking()
        {
            return marking(Integer.MAX_VALUE - 1, Integer.MAX_VALUE, 0);
        }

        public String toString()
        {
            return String.format("rate %.1f Gb/s, capacity %d KB, RED marking on %s %d..%d KB up to %.1f %%, " +
                "wire %d ns", rateBitsPerSec / 1e9, capacityBytes / 1024, markOnEnqueue ? "enqueue" : "dequeue",
                markMinBytes / 1024, markMaxBytes / 1024, markMaxProbability * 100, propagationNs);
        }
    }

    private static final int MAX_FRAME_BYTES = 9216;

    private final double nsPerByte;
    private final long propagationNs;
    private final int capacityBytes;
    private final int markMinBytes;
    private final int markMaxBytes;
    private final double markMaxProbability;
    private final boolean markOnEnqueue;
    private final VirtualClock clock;
    private final SplittableRandom random;
    private final EcnMarking marking = new EcnMarking();

    private final UnsafeBuffer ring;
    private final int ringBytes;
    private final int[] frameOffset;
    private final int[] frameLength;
    private final long[] departNs;
    private final int entryMask;
    /** Oldest frame not yet delivered, oldest not yet serialized, next free entry: positions, not indices. */
    private long head;
    private long departed;
    private long tail;
    private int writeOffset;
    /** When the port finishes serializing what it holds, with the fraction of a ns kept. */
    private double busyUntilNs;
    private long queuedBytes;

    private long framesIn;
    private long framesDropped;
    private long framesMarked;
    private long framesDelivered;
    private long maxQueuedBytes;

    public BottleneckQueue(final Settings settings, final VirtualClock clock, final long seed)
    {
        if (settings.rateBitsPerSec <= 0 || settings.capacityBytes < MAX_FRAME_BYTES || settings.propagationNs < 0 ||
            settings.markMinBytes < 0 || settings.markMaxBytes <= settings.markMinBytes ||
            !(settings.markMaxProbability >= 0 && settings.markMaxProbability <= 1))
        {
            throw new IllegalArgumentException("bottleneck settings out of range: " + settings);
        }
        nsPerByte = 8e9 / settings.rateBitsPerSec;
        propagationNs = settings.propagationNs;
        capacityBytes = settings.capacityBytes;
        markMinBytes = settings.markMinBytes;
        markMaxBytes = settings.markMaxBytes;
        markMaxProbability = settings.markMaxProbability;
        markOnEnqueue = settings.markOnEnqueue;
        this.clock = clock;
        random = new SplittableRandom(seed);
        // the ring also holds the frames on the wire after the queue: a propagation delay's worth at the rate
        final long onWireBytes = (long)(propagationNs / nsPerByte) + 1;
        ringBytes = (int)Math.min(Integer.MAX_VALUE - 64, capacityBytes + onWireBytes + 4L * MAX_FRAME_BYTES);
        ring = new UnsafeBuffer(new byte[ringBytes]);
        final int entries = Integer.highestOneBit(Math.max(64, ringBytes / 60)) << 1; // 60 B: the smallest frame
        frameOffset = new int[entries];
        frameLength = new int[entries];
        departNs = new long[entries];
        entryMask = entries - 1;
    }

    public void send(final DirectBuffer frame, final int offset, final int length)
    {
        final long nowNs = clock.nanoTime();
        framesIn++;
        serializedBy(nowNs);
        if (queuedBytes + length > capacityBytes || length > MAX_FRAME_BYTES)
        {
            framesDropped++;
            return;
        }
        final int at = reserve(length);
        if (at < 0)
        {
            framesDropped++; // the ring is full of frames still on the wire: cannot happen with the sizing above
            return;
        }
        ring.putBytes(at, frame, offset, length);
        if (markOnEnqueue)
        {
            mark(at, length);
        }
        final int entry = (int)(tail & entryMask);
        frameOffset[entry] = at;
        frameLength[entry] = length;
        busyUntilNs = Math.max(busyUntilNs, nowNs) + length * nsPerByte;
        departNs[entry] = (long)Math.ceil(busyUntilNs);
        tail++;
        queuedBytes += length;
        if (queuedBytes > maxQueuedBytes)
        {
            maxQueuedBytes = queuedBytes;
        }
    }

    /**
     * Hands every frame whose last bit has crossed the wire by now to {@code receiver}; returns how many. Called
     * every tick, so the queue a frame is judged by on dequeue is the one it left a wire's delay ago, give or take.
     */
    public int deliver(final SimulatedLink.Receiver receiver)
    {
        final long nowNs = clock.nanoTime();
        serializedBy(nowNs);
        int delivered = 0;
        while (head < departed && departNs[(int)(head & entryMask)] + propagationNs <= nowNs)
        {
            final int entry = (int)(head & entryMask);
            if (!markOnEnqueue)
            {
                mark(frameOffset[entry], frameLength[entry]);
            }
            receiver.onFrame(ring, frameOffset[entry], frameLength[entry]);
            head++;
            delivered++;
        }
        framesDelivered += delivered;
        return delivered;
    }

    /** Bytes waiting to be serialized now (the queue depth). */
    public long queuedBytes()
    {
        serializedBy(clock.nanoTime());
        return queuedBytes;
    }

    public long maxQueuedBytes()
    {
        return maxQueuedBytes;
    }

    /** Resets the maximum to the current depth (for a maximum per sampling period). */
    public long takeMaxQueuedBytes()
    {
        final long max = maxQueuedBytes;
        maxQueuedBytes = queuedBytes();
        return max;
    }

    public boolean isEmpty()
    {
        return head == tail;
    }

    public long framesIn()
    {
        return framesIn;
    }

    public long framesDropped()
    {
        return framesDropped;
    }

    public long framesMarked()
    {
        return framesMarked;
    }

    public long framesDelivered()
    {
        return framesDelivered;
    }

    private void mark(final int at, final int length)
    {
        if (queuedBytes > markMinBytes && shouldMark() && marking.markCongestionExperienced(ring, at, length))
        {
            framesMarked++;
        }
    }

    private boolean shouldMark()
    {
        if (queuedBytes >= markMaxBytes)
        {
            return true;
        }
        final double p = markMaxProbability * (queuedBytes - markMinBytes) / (markMaxBytes - markMinBytes);
        return random.nextDouble() < p;
    }

    /** Frames whose serialization has ended by {@code nowNs} leave the queue (they are on the wire). */
    private void serializedBy(final long nowNs)
    {
        while (departed < tail && departNs[(int)(departed & entryMask)] <= nowNs)
        {
            queuedBytes -= frameLength[(int)(departed & entryMask)];
            departed++;
        }
    }

    /** Where in the ring a frame of {@code length} goes, or -1 when it does not fit before the oldest frame. */
    private int reserve(final int length)
    {
        if (tail - head >= frameOffset.length)
        {
            return -1;
        }
        if (head == tail)
        {
            writeOffset = length;
            return 0;
        }
        final int headOffset = frameOffset[(int)(head & entryMask)];
        int at = -1;
        if (writeOffset > headOffset) // in use: [headOffset, writeOffset)
        {
            if (ringBytes - writeOffset >= length)
            {
                at = writeOffset;
            }
            else if (headOffset > length) // wrap: strictly less than the gap, so full never looks empty
            {
                at = 0;
            }
        }
        else if (headOffset - writeOffset > length) // wrapped: in use [headOffset, end) and [0, writeOffset)
        {
            at = writeOffset;
        }
        if (at >= 0)
        {
            writeOffset = at + length;
        }
        return at;
    }
}
