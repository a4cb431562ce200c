package io.rnic.verbs;

/** A receive work request ({@code struct ibv_recv_wr}): where an incoming SEND is placed. Mutable and reused. */
public final class RecvWorkRequest
{
    public long wrId;
    public final ScatterGatherList sgl = new ScatterGatherList();

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
