package io.rnic.wire;

/**
 * Counts of inbound frames by verdict: one counter per {@link DropReason} ({@code NONE} counts accepted frames).
 * Single writer (the thread that validates); a later issue materialises these into shared counters readable
 * from another process.
 */
public final class InboundCounters
{
    private final long[] byReason = new long[DropReason.count()];

    public void increment(final DropReason reason)
    {
        byReason[reason.ordinal()]++;
    }

    public long get(final DropReason reason)
    {
        return byReason[reason.ordinal()];
    }

    public long accepted()
    {
        return byReason[DropReason.NONE.ordinal()];
    }

    public long dropped()
    {
        long sum = 0;
        for (int i = 1; i < byReason.length; i++)
        {
            sum += byReason[i];
        }
        return sum;
    }

    public long total()
    {
        return accepted() + dropped();
    }

    public void reset()
    {
        java.util.Arrays.fill(byReason, 0L);
    }

    public String toString()
    {
        final StringBuilder sb = new StringBuilder("InboundCounters{");
        for (final DropReason reason : DropReason.values())
        {
            final long value = get(reason);
            if (value != 0)
            {
                sb.append(reason == DropReason.NONE ? "accepted" : reason.name()).append('=').append(value).append(' ');
            }
        }
        return sb.append('}').toString();
    }
}
