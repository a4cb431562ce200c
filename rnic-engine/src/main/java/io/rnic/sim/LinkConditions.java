package io.rnic.sim;

/**
 * How a simulated link misbehaves, per frame: loss, reordering (an extra random delay of up to
 * {@code reorderWindowNs}), duplication, corruption (one byte flipped, so the receiver's ICRC check drops it), and
 * the one-way delay. Probabilities from 0 to 1.
 */
public final class LinkConditions
{
    public double loss;
    public double reorder;
    public double duplicate;
    public double corrupt;
    /** Probability that an ECN-capable frame is marked CE, as by a congested switch (see {@link EcnMarking}). */
    public double ceMark;
    public long delayNs = 1_000;
    public long reorderWindowNs = 20_000;

    public LinkConditions loss(final double p)
    {
        loss = check("loss", p);
        return this;
    }

    public LinkConditions reorder(final double p)
    {
        reorder = check("reorder", p);
        return this;
    }

    public LinkConditions duplicate(final double p)
    {
        duplicate = check("dup", p);
        return this;
    }

    public LinkConditions corrupt(final double p)
    {
        corrupt = check("corrupt", p);
        return this;
    }

    public LinkConditions ceMark(final double p)
    {
        ceMark = check("ce-mark", p);
        return this;
    }

    public LinkConditions delayNs(final long ns)
    {
        if (ns < 0)
        {
            throw new IllegalArgumentException("delay must not be negative: " + ns);
        }
        delayNs = ns;
        return this;
    }

    private static double check(final String name, final double p)
    {
        if (!(p >= 0 && p <= 1))
        {
            throw new IllegalArgumentException(name + " probability " + p + " is not between 0 and 1");
        }
        return p;
    }

    public String toString()
    {
        return "loss=" + loss + " reorder=" + reorder + " dup=" + duplicate + " corrupt=" + corrupt +
            " ce-mark=" + ceMark +
            " delay=" + delayNs + "ns";
    }
}
