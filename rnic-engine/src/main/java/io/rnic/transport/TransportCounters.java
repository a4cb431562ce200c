package io.rnic.transport;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The counters of one engine. Written by the engine thread only (plain increments published with release stores),
 * readable from any thread while the engine runs.
 */
public final class TransportCounters
{
    private static final VarHandle VALUES = MethodHandles.arrayElementVarHandle(long[].class);

    private final long[] values = new long[TransportCounter.count()];

    public void increment(final TransportCounter counter)
    {
        add(counter, 1);
    }

    public void add(final TransportCounter counter, final long delta)
    {
        final int i = counter.ordinal();
        VALUES.setRelease(values, i, (long)VALUES.getOpaque(values, i) + delta);
    }

    public long get(final TransportCounter counter)
    {
        return (long)VALUES.getAcquire(values, counter.ordinal());
    }

    /** "label=value" for every non-zero counter. Control path (allocates). */
    public String toString()
    {
        final StringBuilder sb = new StringBuilder();
        for (final TransportCounter counter : TransportCounter.values())
        {
            final long value = get(counter);
            if (value != 0)
            {
                if (sb.length() > 0)
                {
                    sb.append(' ');
                }
                sb.append(counter.label()).append('=').append(value);
            }
        }
        return sb.toString();
    }
}
