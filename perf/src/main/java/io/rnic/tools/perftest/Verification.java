package io.rnic.tools.perftest;

import io.rnic.device.RnicContext;
import io.rnic.tools.LocalQp;
import io.rnic.tools.QpLayout;
import io.rnic.tools.ToolKind;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * What {@code --verify} compares: the patterns a side sends from and the reference copy of them, laid out before the
 * run, and what the server finds in its memory after it (the client's WRITEs, the atomic target), where no
 * completion of its own could tell it.
 */
final class Verification
{
    private Verification()
    {
    }

    /** Fills what --verify needs: the slots a side sends from, and the reference copy the other side checks. */
    static MemorySegment preparePatterns(final ToolOptions options, final RnicContext context, final LocalQp[] qps,
        final QpLayout layout)
    {
        final ToolKind kind = options.kind;
        final boolean bandwidth = !kind.isLatency();
        final int sender = kind.operation() == ToolKind.Operation.READ ? Patterns.SERVER : Patterns.CLIENT;
        final MemorySegment expected = context.allocate(layout.areaBytes);
        final int slots = bandwidth ? layout.slots : 1;
        for (int s = 0; s < slots; s++)
        {
            Patterns.fill(expected.asSlice((long)s * layout.slotBytes), layout.messageBytes, s, sender);
        }
        // READ: the server's announced area (its receive area) is what the client reads; WRITE/SEND bandwidth: the
        // client sends from its send area
        final boolean read = kind.operation() == ToolKind.Operation.READ;
        if (read ? options.isServer() : bandwidth && !options.isServer())
        {
            final long offset = read ? layout.areaBytes : 0;
            for (final LocalQp q : qps)
            {
                MemorySegment.copy(expected, 0, q.region, offset, layout.areaBytes);
            }
        }
        return expected;
    }

    /** What the server checks once the client is done: WRITE data in its slots, the atomic counter. */
    static String serverChecks(final ToolOptions options, final LocalQp[] qps, final MemorySegment expected)
    {
        final ToolKind kind = options.kind;
        if (!options.isServer() || !options.verify)
        {
            return null;
        }
        final long total = options.iterations + options.warmup;
        for (final LocalQp q : qps)
        {
            if (kind == ToolKind.WRITE_BW)
            {
                final long used = Math.min(total, q.layout.slots);
                for (long s = 0; s < used; s++)
                {
                    final long local = q.layout.areaBytes + s * q.layout.slotBytes;
                    final long reference = s * q.layout.slotBytes;
                    final long at = MemorySegment.mismatch(q.region, local, local + options.size, expected,
                        reference, reference + options.size);
                    if (at >= 0)
                    {
                        return "verify: slot " + s + " of QP " + q.qp.qpn() + " differs from the client's data at " +
                            "byte " + at;
                    }
                }
            }
            else if (kind.operation() == ToolKind.Operation.ATOMIC)
            {
                final long value = q.region.get(ValueLayout.JAVA_LONG_UNALIGNED, q.layout.areaBytes);
                final long wanted = options.atomicCompareSwap && !kind.isLatency() ? 0 : total;
                if (value != wanted)
                {
                    return "verify: the atomic target of QP " + q.qp.qpn() + " holds " + value + ", expected " +
                        wanted;
                }
            }
        }
        return null;
    }
}
