package io.rnic.verbs;

/**
 * A send work request ({@code struct ibv_send_wr}). Mutable and reused by the application: {@code postSend} copies
 * it into the send queue, so the same object can be filled again at once and posting allocates nothing.
 */
public final class SendWorkRequest
{
    public long wrId;
    public int opcode = WrOpcode.SEND;
    public int sendFlags = SendFlags.SIGNALED;
    public final ScatterGatherList sgl;
    /** Immediate data (SEND/WRITE with immediate) or the R_Key to invalidate (SEND with invalidate). */
    public int immediateOrInvalidateRKey;
    public long remoteAddress;
    public int rKey;
    public long compareAdd;
    public long swap;
    /** FLUSH only ({@code ibv_wr_flush}): the bytes from {@link #remoteAddress} to flush (RANGE selectivity). */
    public int flushLength;
    /** FLUSH only: {@code IBV_FLUSH_GLOBAL} and/or {@code IBV_FLUSH_PERSISTENT} (FethFlyweight.PLACEMENT_*). */
    public int flushPlacementType;
    /** FLUSH only: {@code IBV_FLUSH_RANGE} (0) or {@code IBV_FLUSH_MR} (1). */
    public int flushSelectivityLevel;
    /** UD only: the destination QPN, Q_Key and address. */
    public int udRemoteQpn;
    public int udRemoteQkey;
    public final AddressVector udAddress = new AddressVector();

    /** A request of up to {@link ScatterGatherList#MAX_SGE} scatter/gather entries. */
    public SendWorkRequest()
    {
        this(ScatterGatherList.MAX_SGE);
    }

    /** A request of up to {@code maxSge} scatter/gather entries (a send queue slot of a QP with that many). */
    public SendWorkRequest(final int maxSge)
    {
        sgl = new ScatterGatherList(maxSge);
    }

    public void copyFrom(final SendWorkRequest other)
    {
        wrId = other.wrId;
        opcode = other.opcode;
        sendFlags = other.sendFlags;
        sgl.copyFrom(other.sgl);
        immediateOrInvalidateRKey = other.immediateOrInvalidateRKey;
        remoteAddress = other.remoteAddress;
        rKey = other.rKey;
        compareAdd = other.compareAdd;
        swap = other.swap;
        flushLength = other.flushLength;
        flushPlacementType = other.flushPlacementType;
        flushSelectivityLevel = other.flushSelectivityLevel;
        udRemoteQpn = other.udRemoteQpn;
        udRemoteQkey = other.udRemoteQkey;
        udAddress.copyFrom(other.udAddress);
    }

    public SendWorkRequest reset()
    {
        wrId = 0;
        opcode = WrOpcode.SEND;
        sendFlags = SendFlags.SIGNALED;
        sgl.clear();
        immediateOrInvalidateRKey = 0;
        remoteAddress = 0;
        rKey = 0;
        compareAdd = 0;
        swap = 0;
        flushLength = 0;
        flushPlacementType = 0;
        flushSelectivityLevel = 0;
        udRemoteQpn = 0;
        udRemoteQkey = 0;
        return this;
    }
}
