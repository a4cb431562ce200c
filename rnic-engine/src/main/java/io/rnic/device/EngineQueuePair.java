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
import io.rnic.verbs.WorkRequestRing;

/**
 * A queue pair of an engine in this process: the embedded endpoint's, and the driver's side of a client's QP. The
 * transport state behind it is the engine's ({@link QpContext}).
 */
public final class EngineQueuePair implements QueuePair
{
    private final RnicEngine engine;
    private final QpContext context;
    private final WorkRequestRing sendQueue;
    /** Null for a QP of an SRQ. */
    private final WorkRequestRing recvQueue;

    EngineQueuePair(
        final RnicEngine engine,
        final QpContext context,
        final WorkRequestRing sendQueue,
        final WorkRequestRing recvQueue)
    {
        this.engine = engine;
        this.context = context;
        this.sendQueue = sendQueue;
        this.recvQueue = recvQueue;
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
        final int result = QueuePair.postSend(context.state(), context.type(), wr, sendQueue);
        if (result == POST_OK)
        {
            context.ringDoorbell();
        }
        return result;
    }

    /**
     * Posts a receive work request (copied). Any thread; allocates nothing. A QP created with an SRQ has no receive
     * queue of its own: {@link #POST_INVALID} (ibverbs: EINVAL), post to the SRQ.
     */
    public int postRecv(final RecvWorkRequest wr)
    {
        final int result = QueuePair.postRecv(context.state(), wr, recvQueue);
        if (result == POST_OK && context.state() == QpState.ERR)
        {
            // to be flushed; in any other state the responder takes it when a SEND arrives, and nothing is due now
            context.ringDoorbell();
        }
        return result;
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
