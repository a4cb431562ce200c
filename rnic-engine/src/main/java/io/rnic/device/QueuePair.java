package io.rnic.device;

import io.rnic.cc.DcqcnParameters;
import io.rnic.cc.QpCongestion;
import io.rnic.transport.QpContext;
import io.rnic.transport.RnicEngine;
import io.rnic.verbs.QpAttributes;
import io.rnic.verbs.QpState;
import io.rnic.verbs.QpType;
import io.rnic.verbs.RecvWorkRequest;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.WorkQueueRing;
import io.rnic.verbs.WrOpcode;

/**
 * A queue pair as the application sees it ({@code struct ibv_qp}): post send and receive work requests from any
 * thread without allocating, modify its state and attributes, read its state. The transport state behind it is the
 * engine's ({@link QpContext}).
 */
public final class QueuePair
{
    /** Returned by the post calls, as ibverbs returns errno values. */
    public static final int POST_OK = 0;
    /** The work queue is full (ibverbs: ENOMEM). */
    public static final int POST_QUEUE_FULL = 12;
    /** The QP's state does not allow posting, or the request is malformed (ibverbs: EINVAL). */
    public static final int POST_INVALID = 22;
    /** {@link #rateBitsPerSec()} of a QP without congestion control. */
    public static final long NOT_RATE_LIMITED = -1;

    private final RnicEngine engine;
    private final QpContext context;
    private final WorkQueueRing<SendWorkRequest> sendQueue;
    private final WorkQueueRing<RecvWorkRequest> recvQueue;
    private final int maxSendSge;
    private final int maxRecvSge;

    QueuePair(
        final RnicEngine engine,
        final QpContext context,
        final WorkQueueRing<SendWorkRequest> sendQueue,
        final WorkQueueRing<RecvWorkRequest> recvQueue,
        final int maxSendSge,
        final int maxRecvSge)
    {
        this.engine = engine;
        this.context = context;
        this.sendQueue = sendQueue;
        this.recvQueue = recvQueue;
        this.maxSendSge = maxSendSge;
        this.maxRecvSge = maxRecvSge;
    }

    public int qpn()
    {
        return context.qpn();
    }

    public QpType type()
    {
        return context.type();
    }

    public QpState state()
    {
        return context.state();
    }

    public QpContext context()
    {
        return context;
    }

    /**
     * Posts a send work request (copied: {@code wr} can be reused at once) and rings the engine's doorbell. Any
     * thread; lock-free, allocates nothing.
     *
     * @return {@link #POST_OK}, {@link #POST_QUEUE_FULL} or {@link #POST_INVALID} (a QP in RESET, INIT or RTR
     * cannot send; an opcode the transport does not have; more scatter/gather entries than the QP's
     * {@code maxSendSge}; on a UD QP, an address with destination MAC 0, i.e. not resolved, which only a link that
     * ignores the destination, such as a veth, would deliver).
     */
    public int postSend(final SendWorkRequest wr)
    {
        final QpState state = context.state();
        if (state == QpState.RESET || state == QpState.INIT || state == QpState.RTR ||
            !WrOpcode.isKnown(wr.opcode) || wr.sgl.count() > maxSendSge ||
            (context.type() == QpType.UD && wr.udAddress.destinationMac() == 0))
        {
            return POST_INVALID;
        }
        if (!sendQueue.offer(wr))
        {
            return POST_QUEUE_FULL;
        }
        context.ringDoorbell();
        return POST_OK;
    }

    /**
     * Posts a receive work request (copied). Any thread; allocates nothing. Allowed from INIT on, as in ibverbs; more
     * scatter/gather entries than the QP's {@code maxRecvSge} are {@link #POST_INVALID}.
     */
    public int postRecv(final RecvWorkRequest wr)
    {
        if (context.state() == QpState.RESET || wr.sgl.count() > maxRecvSge)
        {
            return POST_INVALID;
        }
        if (!recvQueue.offer(wr))
        {
            return POST_QUEUE_FULL;
        }
        if (context.state() == QpState.ERR)
        {
            // to be flushed; in any other state the responder takes it when a SEND arrives, and nothing is due now
            context.ringDoorbell();
        }
        return POST_OK;
    }

    /** ibverbs {@code modify_qp}; throws {@link io.rnic.verbs.VerbsException} naming what is wrong. */
    public void modify(final QpAttributes attributes, final int mask)
    {
        engine.modifyQp(context, attributes, mask);
    }

    /**
     * Turns DCQCN on for this QP with {@code parameters}, or off with null; the QP starts again at line rate.
     * Any thread; best before the QP is connected (the ECN bits of its packets change at once).
     */
    public void congestionControl(final DcqcnParameters parameters)
    {
        engine.congestionControl(context, parameters);
    }

    /** Whether DCQCN runs for this QP. */
    public boolean isCongestionControlled()
    {
        return context.congestion() != null;
    }

    /**
     * The rate DCQCN lets this QP's requester send at now (Rc, bits/s, frames as they leave the engine), or
     * {@link #NOT_RATE_LIMITED} when congestion control is off. Any thread, while the engine runs.
     */
    public long rateBitsPerSec()
    {
        final QpCongestion congestion = context.congestion();
        return congestion == null ? NOT_RATE_LIMITED : congestion.rateBitsPerSec();
    }

    public String toString()
    {
        return "QueuePair{qpn=" + qpn() + ", type=" + type() + ", state=" + state() + '}';
    }
}
