package io.rnic.transport;

import io.rnic.device.RnicDevice;
import io.rnic.verbs.MemoryRegion;
import io.rnic.verbs.ProtectionDomain;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;

/**
 * A memory region registered over the middle of a larger segment whose ends (the guards) hold a known pattern, with a
 * shadow copy of the whole segment: what the hostile-peer fuzzer compares after each frame to find every byte the
 * RNIC changed, including any just outside the registration.
 */
final class GuardedRegion
{
    static final int GUARD_BYTES = 64;

    final String name;
    final RnicDevice device;
    final ProtectionDomain pd;
    final MemorySegment whole;
    final MemorySegment slice;
    private final MemorySegment shadow;
    private final int guardBytes;
    private final long[] rangeFrom = new long[8];
    private final long[] rangeTo = new long[8];
    /** The live registration over {@link #slice}, or null while deregistered. */
    MemoryRegion mr;

    GuardedRegion(
        final String name,
        final RnicDevice device,
        final ProtectionDomain pd,
        final Arena arena,
        final int length,
        final SplittableRandom random)
    {
        this.name = name;
        this.device = device;
        this.pd = pd;
        whole = arena.allocate(length + 2L * GUARD_BYTES, 4096);
        slice = whole.asSlice(GUARD_BYTES, length);
        for (long i = 0; i < whole.byteSize(); i++)
        {
            final boolean guard = i < GUARD_BYTES || i >= GUARD_BYTES + length;
            whole.set(ValueLayout.JAVA_BYTE, i, guard ? guardByte(i) : (byte)random.nextInt());
        }
        shadow = MemorySegment.ofArray(new byte[(int)whole.byteSize()]);
        MemorySegment.copy(whole, 0, shadow, 0, whole.byteSize());
        guardBytes = GUARD_BYTES;
    }

    /** Watches a region registered elsewhere (a {@link Connection}'s): its shadow, no guards of its own. */
    GuardedRegion(final String name, final RnicDevice device, final MemoryRegion mr)
    {
        this.name = name;
        this.device = device;
        this.pd = mr.pd();
        this.mr = mr;
        whole = mr.segment();
        slice = whole;
        shadow = MemorySegment.ofArray(new byte[(int)whole.byteSize()]);
        MemorySegment.copy(whole, 0, shadow, 0, whole.byteSize());
        guardBytes = 0;
    }

    private static byte guardByte(final long index)
    {
        return (byte)(0xA5 ^ index * 7);
    }

    MemoryRegion register(final int access)
    {
        mr = device.registerMemoryRegion(pd, slice, access);
        return mr;
    }

    void deregister()
    {
        device.deregisterMemoryRegion(mr);
        mr = null;
    }

    long start()
    {
        return slice.address();
    }

    long length()
    {
        return slice.byteSize();
    }

    /**
     * Compares the segment with its shadow outside the absolute address ranges {@code [lo[i], hi[i])}, then takes
     * those ranges into the shadow.
     *
     * @return the first changed byte outside the ranges, as an offset from the registered slice (negative: in the
     * lower guard), or {@link Long#MIN_VALUE} if none changed.
     */
    long changedOutside(final long[] lo, final long[] hi, final int count)
    {
        final long base = whole.address();
        final long size = whole.byteSize();
        int ranges = 0;
        for (int i = 0; i < count; i++)
        {
            final long from = Math.clamp(lo[i] - base, 0, size);
            final long to = Math.clamp(hi[i] - base, from, size);
            if (to > from)
            {
                int j = ranges++;
                while (j > 0 && rangeFrom[j - 1] > from)
                {
                    rangeFrom[j] = rangeFrom[j - 1];
                    rangeTo[j] = rangeTo[j - 1];
                    j--;
                }
                rangeFrom[j] = from;
                rangeTo[j] = to;
            }
        }
        long position = 0;
        for (int i = 0; i <= ranges; i++)
        {
            final long gapEnd = i < ranges ? rangeFrom[i] : size;
            if (gapEnd > position)
            {
                final long mismatch = MemorySegment.mismatch(whole, position, gapEnd, shadow, position, gapEnd);
                if (mismatch >= 0)
                {
                    return position + mismatch - guardBytes;
                }
            }
            if (i < ranges)
            {
                position = Math.max(position, rangeTo[i]);
            }
        }
        for (int i = 0; i < ranges; i++)
        {
            MemorySegment.copy(whole, rangeFrom[i], shadow, rangeFrom[i], rangeTo[i] - rangeFrom[i]);
        }
        return Long.MIN_VALUE;
    }

    /** Offset of the first guard byte that differs from the pattern written at the start, or -1. */
    long firstBrokenGuard()
    {
        for (long i = 0; i < whole.byteSize(); i++)
        {
            final boolean guard = i < guardBytes || i >= guardBytes + slice.byteSize();
            if (guard && whole.get(ValueLayout.JAVA_BYTE, i) != guardByte(i))
            {
                return i;
            }
        }
        return -1;
    }
}
