package io.rnic.transport;

import io.rnic.status.CounterBlock;
import io.rnic.status.CounterTypes;
import org.agrona.concurrent.status.CountersManager;

/**
 * The counters of one engine, a {@link CounterBlock} of type {@link CounterTypes#TRANSPORT} keyed by
 * {@link TransportCounter} ordinal and engine shard. Written by the engine thread only (a plain read and a release
 * store into the counters' values buffer), readable from any thread while the engine runs.
 */
public final class TransportCounters
{
    private static final String[] LABELS = labels();

    private final CounterBlock block;

    /** The counters of engine {@code shard}, in the endpoint's (or the engine's own) manager. */
    public TransportCounters(final CountersManager manager, final int shard)
    {
        this.block = new CounterBlock(manager, CounterTypes.TRANSPORT, shard, "engine " + shard + ": ", LABELS);
    }

    private static String[] labels()
    {
        final String[] labels = new String[TransportCounter.count()];
        for (int i = 0; i < labels.length; i++)
        {
            labels[i] = TransportCounter.get(i).label();
        }
        return labels;
    }

    public void increment(final TransportCounter counter)
    {
        block.add(counter.ordinal(), 1);
    }

    public void add(final TransportCounter counter, final long delta)
    {
        block.add(counter.ordinal(), delta);
    }

    public long get(final TransportCounter counter)
    {
        return block.get(counter.ordinal());
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
