package io.rnic.verbs;

/**
 * {@code struct ibv_srq_attr}: the size of a shared receive queue and its limit, given to create, changed (the
 * limit) by modify, filled by query.
 */
public final class SrqAttributes
{
    /** Receive work requests the SRQ holds; query reports the size it was given, which may be larger. */
    public int maxWr = 128;
    /** Scatter/gather entries one receive work request may have. */
    public int maxSge = 1;
    /**
     * The limit event's threshold: armed when not 0, it fires once when the SRQ's posted requests fall below it, and
     * is then 0 again until modify arms it anew.
     */
    public int srqLimit;

    public SrqAttributes maxWr(final int maxWr)
    {
        this.maxWr = maxWr;
        return this;
    }

    public SrqAttributes maxSge(final int maxSge)
    {
        this.maxSge = maxSge;
        return this;
    }

    public SrqAttributes srqLimit(final int srqLimit)
    {
        this.srqLimit = srqLimit;
        return this;
    }
}
