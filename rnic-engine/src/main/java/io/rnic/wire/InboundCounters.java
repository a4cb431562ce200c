package io.rnic.wire;

import io.rnic.status.CounterBlock;
import io.rnic.status.CounterTypes;
import org.agrona.concurrent.status.CountersManager;

/**
 * Counts of inbound frames by verdict: one counter per {@link DropReason} ({@code NONE} counts accepted frames), a
 * {@link CounterBlock} of type {@link CounterTypes#INBOUND}. Single writer (the thread that validates); readable
 * from any thread, and from another process once the endpoint's counters live in a shared file.
 */
public final class InboundCounters
{
    private static final String[] LABELS = labels();

    private final CounterBlock block;

    /** Counters of their own, for a validator outside an engine (a capture being inspected). */
    public InboundCounters()
    {
        this.block = CounterBlock.standalone(CounterTypes.INBOUND, "inbound: ", LABELS);
    }

    /** The inbound counters of engine {@code shard}. */
    public InboundCounters(final CountersManager manager, final int shard)
    {
        this.block = new CounterBlock(manager, CounterTypes.INBOUND, shard, "engine " + shard + " inbound: ", LABELS);
    }

    private static String[] labels()
    {
        final DropReason[] reasons = DropReason.values();
        final String[] labels = new String[reasons.length];
        for (int i = 0; i < labels.length; i++)
        {
            labels[i] = reasons[i] == DropReason.NONE ? "accepted" : reasons[i].name();
        }
        return labels;
    }

    public void increment(final DropReason reason)
    {
        block.add(reason.ordinal(), 1);
    }

    public long get(final DropReason reason)
    {
        return block.get(reason.ordinal());
    }

    public long accepted()
    {
        return block.get(DropReason.NONE.ordinal());
    }

    public long dropped()
    {
        long sum = 0;
        for (int i = 1; i < block.size(); i++)
        {
            sum += block.get(i);
        }
        return sum;
    }

    public long total()
    {
        return accepted() + dropped();
    }

    public void reset()
    {
        block.reset();
    }

    public String toString()
    {
        final StringBuilder sb = new StringBuilder("InboundCounters{");
        for (int i = 0; i < block.size(); i++)
        {
            final long value = block.get(i);
            if (value != 0)
            {
                sb.append(block.label(i)).append('=').append(value).append(' ');
            }
        }
        return sb.append('}').toString();
    }
}
