package io.rnic.verbs;

/** What {@code createQp} needs ({@code struct ibv_qp_init_attr}). */
public final class QpInitAttributes
{
    public QpType type = QpType.RC;
    public ProtectionDomain pd;
    public CompletionQueue sendCq;
    public CompletionQueue recvCq;
    public int maxSendWr = 128;
    public int maxRecvWr = 128;
    /**
     * Scatter/gather entries a send / receive WR may have ({@code cap.max_send_sge}, {@code cap.max_recv_sge}): each
     * slot of the work queues holds that many, so a QP of many queues that post one buffer per WR asks for 1.
     */
    public int maxSendSge = ScatterGatherList.MAX_SGE;
    public int maxRecvSge = ScatterGatherList.MAX_SGE;
    /** {@code sq_sig_all}: every send WR completes with a work completion, signaled or not. */
    public boolean signalAll;
    /**
     * The shared receive queue the QP takes its receive work requests from ({@code srq}), or null for a receive queue
     * of its own. RC and UD only; {@link #maxRecvWr} and {@link #maxRecvSge} are then ignored, as in ibverbs.
     */
    public SharedReceiveQueue srq;

    public QpInitAttributes type(final QpType type)
    {
        this.type = type;
        return this;
    }

    public QpInitAttributes pd(final ProtectionDomain pd)
    {
        this.pd = pd;
        return this;
    }

    public QpInitAttributes cqs(final CompletionQueue sendCq, final CompletionQueue recvCq)
    {
        this.sendCq = sendCq;
        this.recvCq = recvCq;
        return this;
    }

    public QpInitAttributes capacity(final int maxSendWr, final int maxRecvWr)
    {
        this.maxSendWr = maxSendWr;
        this.maxRecvWr = maxRecvWr;
        return this;
    }

    public QpInitAttributes maxSge(final int maxSendSge, final int maxRecvSge)
    {
        this.maxSendSge = maxSendSge;
        this.maxRecvSge = maxRecvSge;
        return this;
    }

    public QpInitAttributes srq(final SharedReceiveQueue srq)
    {
        this.srq = srq;
        return this;
    }

    public QpInitAttributes signalAll(final boolean signalAll)
    {
        this.signalAll = signalAll;
        return this;
    }
}
