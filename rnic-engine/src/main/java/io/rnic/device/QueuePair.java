package io.rnic.device;

import io.rnic.cc.DcqcnParameters;
import io.rnic.verbs.MemoryWindow;
import io.rnic.verbs.QpAttributes;
import io.rnic.verbs.QpState;
import io.rnic.verbs.QpType;
import io.rnic.verbs.RecvWorkRequest;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.WorkRequestRing;
import io.rnic.verbs.WrOpcode;

/**
 * A queue pair as the application sees it ({@code struct ibv_qp}): post send and receive work requests from any
 * thread without allocating, modify its state and attributes, read its state. The same calls whether the engine runs
 * in this process ({@link EngineQueuePair}) or in a driver the application is a client of.
 */
public interface QueuePair
{
    /** Returned by the post calls, as ibverbs returns errno values. */
    int POST_OK = 0;
    /** The work queue is full (ibverbs: ENOMEM). */
    int POST_QUEUE_FULL = 12;
    /** The QP's state does not allow posting, or the request is malformed (ibverbs: EINVAL). */
    int POST_INVALID = 22;
    /** {@link #rateBitsPerSec()} of a QP without congestion control. */
    long NOT_RATE_LIMITED = -1;

    int qpn();

    QpType type();

    QpState state();

    /**
     * Posts a send work request (copied: {@code wr} can be reused at once). Any thread; lock-free, allocates nothing.
     *
     * @return {@link #POST_OK}, {@link #POST_QUEUE_FULL} or {@link #POST_INVALID} (a QP in RESET, INIT or RTR
     * cannot send; an opcode the transport does not have; more scatter/gather entries than the QP's
     * {@code maxSendSge}; on a UD QP, an address with destination MAC 0, i.e. not resolved, which only a link that
     * ignores the destination, such as a veth, would deliver).
     */
    int postSend(SendWorkRequest wr);

    /**
     * Posts a receive work request (copied). Any thread; allocates nothing. Allowed from INIT on, as in ibverbs; more
     * scatter/gather entries than the QP's {@code maxRecvSge} are {@link #POST_INVALID}.
     */
    int postRecv(RecvWorkRequest wr);

    /**
     * The bind verb, {@code ibv_bind_mw}: posts a bind of the type 1 {@code window} on the send queue, with the work
     * request id, send flags and the bind's region, range and rights from {@code wr} ({@code mwMrLKey},
     * {@code mwAddress}, {@code mwLength}, {@code mwAccess}); it sets {@code wr}'s opcode and keys. The window's
     * R_Key moves to the next key byte at once ({@link MemoryWindow#incRKey}); the bind completes with
     * {@link io.rnic.verbs.WcOpcode#BIND_MW}, or MW_BIND_ERR (the QP then in ERR). A type 2 window is
     * {@link #POST_INVALID} (EINVAL, as ibverbs'): it is bound by a {@link WrOpcode#BIND_MW} work request.
     */
    default int bindMw(final MemoryWindow window, final SendWorkRequest wr)
    {
        if (window.type() != MemoryWindow.TYPE_1)
        {
            return POST_INVALID;
        }
        final int newRKey = MemoryWindow.incRKey(window.rKey());
        wr.opcode = WrOpcode.BIND_MW;
        wr.mwRKey = window.rKey();
        wr.mwNewRKey = newRKey;
        final int result = postSend(wr);
        if (result == POST_OK)
        {
            window.bindPosted(newRKey);
        }
        return result;
    }

    /** ibverbs {@code modify_qp}; throws {@link io.rnic.verbs.VerbsException} naming what is wrong. */
    void modify(QpAttributes attributes, int mask);

    /**
     * Turns DCQCN on for this QP with {@code parameters}, or off with null; the QP starts again at line rate.
     * Any thread; best before the QP is connected (the ECN bits of its packets change at once).
     */
    void congestionControl(DcqcnParameters parameters);

    /** Whether DCQCN runs for this QP. */
    boolean isCongestionControlled();

    /**
     * The rate DCQCN lets this QP's requester send at now (Rc, bits/s, frames as they leave the engine), or
     * {@link #NOT_RATE_LIMITED} when congestion control is off. Any thread, while the engine runs.
     */
    long rateBitsPerSec();

    /** One line on the QP's transport state (PSNs, outstanding work), for diagnostics of a stuck or failed run. */
    default String describe()
    {
        return toString();
    }

    /**
     * The checks of {@link #postSend} before anything is queued, the same for every implementation: the state, and
     * the fields the engine checks again when it takes the request ({@link WorkRequestRing#isWellFormedSend}).
     */
    static boolean isPostableSend(final QpState state, final QpType type, final SendWorkRequest wr, final int maxSge)
    {
        return state != QpState.RESET && state != QpState.INIT && state != QpState.RTR &&
            WorkRequestRing.isWellFormedSend(wr, maxSge, type == QpType.UD);
    }

    /** The post of every QP's send queue: {@code wr} checked and copied into {@code sendQueue}. Any thread. */
    static int postSend(final QpState state, final QpType type, final SendWorkRequest wr, final WorkRequestRing sendQueue)
    {
        if (!isPostableSend(state, type, wr, sendQueue.maxSge()))
        {
            return POST_INVALID;
        }
        return sendQueue.offerSend(wr) ? POST_OK : POST_QUEUE_FULL;
    }

    /**
     * The post of every QP's receive queue: {@code wr} checked and copied into {@code recvQueue}, which is null for a
     * QP of an SRQ (EINVAL: post to the SRQ). Any thread.
     */
    static int postRecv(final QpState state, final RecvWorkRequest wr, final WorkRequestRing recvQueue)
    {
        if (recvQueue == null || !isPostableRecv(state, wr, recvQueue.maxSge()))
        {
            return POST_INVALID;
        }
        return recvQueue.offerRecv(wr) ? POST_OK : POST_QUEUE_FULL;
    }

    /** The checks of {@link #postRecv} before anything is queued. */
    static boolean isPostableRecv(final QpState state, final RecvWorkRequest wr, final int maxSge)
    {
        return state != QpState.RESET && wr.sgl.count() <= maxSge;
    }
}
