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

/**
 * A queue pair of an engine in this process: the embedded endpoint's, and the driver's side of a client's QP. The
 * transport state behind it is the engine's ({@link QpContext}).
 */
public final class EngineQueuePair implements QueuePair
{
    private final RnicEngine engine;
    private final QpContext context;
    private final WorkQueueRing<SendWorkRequest> sendQueue;
    private final WorkQueueRing<RecvWorkRequest> recvQueue;
    private final int maxSendSge;
    private final int maxRecvSge;

    EngineQueuePair(
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

    /** The engine that owns this QP (its shard). */
    public RnicEngine engine()
    {
        return engine;
    }

    public QpContext context()
    {
        return context;
    }

    /** Posts a send work request (copied) and rings the engine's doorbell. Any thread; lock-free, allocates nothing. */
    public int postSend(final SendWorkRequest wr)
    {
        if (!QueuePair.isPostableSend(context.state(), context.type(), wr, maxSendSge))
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
     * Posts a receive work request (copied). Any thread; allocates nothing. A QP created with an SRQ has no receive
     * queue of its own: {@link #POST_INVALID} (ibverbs: EINVAL), post to the SRQ.
     */
    public int postRecv(final RecvWorkRequest wr)
    {
        if (recvQueue == null || !QueuePair.isPostableRecv(context.state(), wr, maxRecvSge))
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

    public void modify(final QpAttributes attributes, final int mask)
    {
        engine.modifyQp(context, attributes, mask);
    }

    public void congestionControl(final DcqcnParameters parameters)
    {
        engine.congestionControl(context, parameters);
    }

    public boolean isCongestionControlled()
    {
        return context.congestion() != null;
    }

    public long rateBitsPerSec()
    {
        final QpCongestion congestion = context.congestion();
        return congestion == null ? NOT_RATE_LIMITED : congestion.rateBitsPerSec();
    }

    public String describe()
    {
        return context.describe();
    }

    public String toString()
    {
        return "QueuePair{qpn=" + qpn() + ", type=" + type() + ", state=" + state() + '}';
    }
}
