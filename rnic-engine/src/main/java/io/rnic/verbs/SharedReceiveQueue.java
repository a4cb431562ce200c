package io.rnic.verbs;

/**
 * A shared receive queue as the application sees it ({@code struct ibv_srq}): receive work requests posted once, taken
 * by whichever RC or UD QP created with it receives a message first. The same calls whether the engine runs in this
 * process ({@link EngineSharedReceiveQueue}) or in a driver the application is a client of.
 */
public interface SharedReceiveQueue
{
    /** The most receive work requests an SRQ can be created with ({@code max_srq_wr}). */
    int MAX_SRQ_WR = 1 << 16;

    int handle();

    ProtectionDomain pd();

    /** The most scatter/gather entries one of its receive work requests may have. */
    int maxSge();

    /**
     * {@code ibv_post_srq_recv}: copies {@code wr} into the queue; allocates nothing.
     *
     * @return 0, {@link Errno#ENOMEM} when the queue is full, {@link Errno#EINVAL} for more scatter/gather entries
     * than {@code max_sge} or an SRQ destroyed.
     */
    int postRecv(RecvWorkRequest wr);

    /**
     * {@code ibv_modify_srq}: {@link SrqAttrMask#LIMIT} arms (or with 0 disarms) the limit event;
     * {@link SrqAttrMask#MAX_WR} is refused, the SRQ cannot be resized.
     *
     * @throws VerbsException EINVAL for a limit above the SRQ's size, a resize or a destroyed SRQ; nothing changes.
     */
    void modify(SrqAttributes attributes, int mask);

    /** {@code ibv_query_srq}: the SRQ's size, scatter/gather entries and current limit (0 once it has fired). */
    SrqAttributes query(SrqAttributes into);

    /**
     * The post of every SRQ: {@code wr} checked and copied into {@code ring}, 0, {@link Errno#EINVAL} (more
     * scatter/gather entries than the ring takes, or {@code destroyed}) or {@link Errno#ENOMEM} (full).
     */
    static int post(final boolean destroyed, final RecvWorkRequest wr, final WorkRequestRing ring)
    {
        if (destroyed || wr.sgl.count() > ring.maxSge())
        {
            return Errno.EINVAL;
        }
        return ring.offerRecv(wr) ? 0 : Errno.ENOMEM;
    }
}
