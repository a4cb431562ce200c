package io.rnic.verbs;

/** A receive work request ({@code struct ibv_recv_wr}): where an incoming SEND is placed. Mutable and reused. */
public final class RecvWorkRequest
{
    public long wrId;
    public final ScatterGatherList sgl;

    /** A request of up to {@link ScatterGatherList#MAX_SGE} scatter/gather entries. */
    public RecvWorkRequest()
    {
        this(ScatterGatherList.MAX_SGE);
    }

    /** A request of up to {@code maxSge} scatter/gather entries (a receive queue slot of a QP with that many). */
    public RecvWorkRequest(final int maxSge)
    {
        sgl = new ScatterGatherList(maxSge);
    }

    public void copyFrom(final RecvWorkRequest other)
    {
        wrId = other.wrId;
        sgl.copyFrom(other.sgl);
    }

    public RecvWorkRequest reset()
    {
        wrId = 0;
        sgl.clear();
        return this;
    }
}
