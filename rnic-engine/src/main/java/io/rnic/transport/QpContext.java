package io.rnic.transport;

import io.rnic.cc.QpCongestion;
import io.rnic.verbs.AddressVector;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.EngineSharedReceiveQueue;
import io.rnic.verbs.PathMtu;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.QpState;
import io.rnic.verbs.QpType;
import io.rnic.verbs.RecvWorkRequest;
import io.rnic.verbs.WorkRequestRing;
import io.rnic.wire.Ecn;
import io.rnic.wire.FrameSpec;
import io.rnic.wire.Opcode;

/**
 * Everything the engine knows about one queue pair: its configuration (applied by control commands on the engine
 * thread), the requester's, completer's and responder's state (rxe's {@code qp->req}, {@code qp->comp},
 * {@code qp->resp}), and the rings through which application threads post work. Owned by the engine thread; only
 * {@link #state()} and the rings are touched from other threads.
 */
public final class QpContext
{
    /** Outstanding RC packets without an acknowledgement before the requester waits (rxe: 128). */
    public static final int DEFAULT_WINDOW_PACKETS = 256;
    /** The requester asks for an ACK at least this often on a long message (rxe: RXE_MAX_PKT_PER_ACK 64). */
    static final int PACKETS_PER_ACK_REQUEST = 64;
    static final int REPLAY_ENTRIES = 32;

    final int qpn;
    final QpType type;
    final ProtectionDomain pd;
    final CompletionQueue sendCq;
    final CompletionQueue recvCq;
    /** The send queue the application posts into and the engine takes from in place. */
    final WorkRequestRing sq;
    /** The QP's own receive queue, or null when it has none (it takes its receives from {@link #srq}). */
    final WorkRequestRing rq;
    /** The shared receive queue the QP takes its receives from, or null. */
    final EngineSharedReceiveQueue srq;
    /** The receive WQE taken from {@link #srq} for the message arriving, while {@link #srqWqeHeld}. */
    final RecvWorkRequest srqWqe;
    boolean srqWqeHeld;
    /** IBV_EVENT_QP_LAST_WQE_REACHED was raised since the QP last went to ERR. */
    boolean lastWqeReachedRaised;
    final boolean signalAll;

    volatile QpState state = QpState.RESET;

    // ---- scheduling: the doorbell (any thread) and the engine's list of QPs with work (engine thread)
    /** The engine's doorbell, set when the engine adopts the QP. */
    Doorbell doorbell;
    /** 1 while the QP is in the doorbell's stack (see {@link Doorbell}). */
    volatile int doorbellRung;
    /** The QP below this one in the doorbell's stack. */
    QpContext doorbellNext;
    /** In the engine's list of QPs its duty cycle visits. Engine thread. */
    boolean active;
    /** Destroyed: the engine forgets it rather than visit it. Engine thread. */
    boolean removed;

    // ---- configuration (modifyQp)
    PathMtu pathMtu = PathMtu.MTU_1024;
    int mtuBytes = 1024;
    int destQpn;
    int qkey;
    int accessFlags;
    int timeoutCode;
    int retryCount;
    int rnrRetry;
    int minRnrTimer;
    int maxReadAtomic = 1;
    int maxDestReadAtomic = 1;
    final AddressVector addressVector = new AddressVector();
    /** Addressing of every packet of a connected QP, filled when the QP reaches RTR. */
    final FrameSpec frame = new FrameSpec();
    int windowPackets = DEFAULT_WINDOW_PACKETS;
    /** DCQCN of this QP, or null: congestion control off (no ECT marking, no pacing, no CNPs). */
    volatile QpCongestion congestion;

    // ---- requester (rxe_req.c)
    /** Position in the send ring of the WQE being transmitted. */
    long retransmittedPackets;
    long sqNext;
    /**
     * One past the last WQE whose every packet has been sent at least once: their last PSNs are known, even when
     * go-back-N has moved {@link #sqNext} back to resend them.
     */
    long sqSentEnd;
    /** Bytes of that WQE already put in packets. */
    long reqOffset;
    /** PSN of the next packet to send. */
    int reqPsn;
    boolean reqWqeStarted;
    int packetsSinceAckRequest;
    int outstandingReadAtomic;
    /** One past the highest PSN ever sent: packets below it that go out again are retransmissions. */
    int highestSentPsnPlusOne;
    /** The send WQE that caused a local error and the status it completes with when the QP is flushed. */
    long errorPosition = -1;
    io.rnic.verbs.WcStatus errorStatus;
    final int[] wqeFirstPsn;
    final int[] wqeLastPsn;
    /** Whether {@link #wqeLastPsn} is known for the WQE in a slot (it was sent completely at least once). */
    final boolean[] wqeFullySent;

    // ---- completer (rxe_comp.c)
    /** Position in the send ring of the oldest WQE not yet completed. */
    long sqOldest;
    /** Oldest PSN not yet acknowledged. */
    int compPsn;
    int retryLeft;
    int rnrRetryLeft;
    /** When the local ACK timeout fires (0: disarmed). */
    long retransmitDeadlineNs;
    /** When an RNR wait ends (0: not waiting). */
    long rnrResumeNs;
    /** The PSN the requester was last sent back to, so that a burst of later responses asks only once. */
    int rewoundAtPsn = -1;
    /**
     * During a retry sequence for a READ, a response burst of it has ended (its LAST arrived) since the sequence
     * (re)started: the next packets just after {@link #compPsn} come from a newer burst (see {@code Completer}).
     */
    boolean retryBurstEnded;
    /** The engine time of the last response or timer handled, for diagnostics ({@link #describe}). */
    long lastNowNs;
    /** The QP's entry in the engine's {@link QpTimerWheel}: when it fires, and its neighbours in the spoke. */
    long timerDeadlineNs;
    boolean inTimerWheel;
    QpContext timerNext;
    QpContext timerPrev;

    // ---- responder (rxe_resp.c)
    int ePsn;
    int msn;
    /** Opcode of the last request accepted, to check FIRST/MIDDLE/LAST sequencing; -1 at a message boundary. */
    int lastRequestOpcode = -1;
    boolean nakSent;
    /** A sequence NAK waits behind queued READ responses (it would overtake them). */
    boolean sequenceNakOwed;
    /** A positive ACK waits for the end of the receive burst (coalescing); the PSN it acknowledges. */
    boolean ackPending;
    int ackPendingPsn;
    long rqNext;
    long recvOffset;
    boolean recvInProgress;
    /**
     * The R_Key of the RDMA WRITE in progress (0: none), looked up again for every packet: a region deregistered
     * in the middle of a message is never written through a reference kept from its first packet.
     */
    int writeRKey;
    long writeAddress;
    long writeRemaining;
    boolean ucDroppingMessage;
    final ReplayCache replay = new ReplayCache(REPLAY_ENTRIES);
    /** READ responses and atomic acknowledgements owed, in PSN order (the responder sends them as room allows). */
    final ResponseQueue responses = new ResponseQueue(REPLAY_ENTRIES);
    /**
     * READs/atomics whose response finished leaving in the responder's wire epoch {@link #answeredEpoch}: until the
     * epoch moves on they are in the port's transmit queue, and the requester cannot have seen them
     * (max_dest_rd_atomic).
     */
    int answeredInEpoch;
    long answeredEpoch = -1;

    public QpContext(
        final int qpn,
        final QpType type,
        final ProtectionDomain pd,
        final CompletionQueue sendCq,
        final CompletionQueue recvCq,
        final WorkRequestRing sq,
        final WorkRequestRing rq,
        final boolean signalAll)
    {
        this(qpn, type, pd, sendCq, recvCq, sq, rq, null, signalAll);
    }

    /** A QP that takes its receives from {@code srq} when it is not null ({@code rq} is then null). */
    public QpContext(
        final int qpn,
        final QpType type,
        final ProtectionDomain pd,
        final CompletionQueue sendCq,
        final CompletionQueue recvCq,
        final WorkRequestRing sq,
        final WorkRequestRing rq,
        final EngineSharedReceiveQueue srq,
        final boolean signalAll)
    {
        this.srq = srq;
        this.srqWqe = srq == null ? null : new RecvWorkRequest(srq.maxSge());
        this.qpn = qpn;
        this.type = type;
        this.pd = pd;
        this.sendCq = sendCq;
        this.recvCq = recvCq;
        this.sq = sq;
        this.rq = rq;
        this.signalAll = signalAll;
        wqeFirstPsn = new int[sq.capacity()];
        wqeLastPsn = new int[sq.capacity()];
        wqeFullySent = new boolean[sq.capacity()];
    }

    public int qpn()
    {
        return qpn;
    }

    public QpType type()
    {
        return type;
    }

    public ProtectionDomain pd()
    {
        return pd;
    }

    /** The shared receive queue the QP takes its receives from, or null. */
    public EngineSharedReceiveQueue srq()
    {
        return srq;
    }

    /**
     * The receive WQE the message arriving lands in, or null when none is posted: the QP's own at {@link #rqNext},
     * or one taken from its SRQ and held (taking it may raise the SRQ's limit event) until {@link #releaseRecvWqe}.
     * Asking again before that returns the same WQE. Engine thread; allocates nothing.
     */
    RecvWorkRequest recvWqe()
    {
        if (srq != null)
        {
            if (!srqWqeHeld)
            {
                if (!srq.take(srqWqe))
                {
                    return null;
                }
                srqWqeHeld = true;
            }
            return srqWqe;
        }
        return rq == null ? null : rq.postedRecv(rqNext);
    }

    /** Whether a receive WQE is held or posted for the QP, without taking one from an SRQ. Engine thread. */
    boolean hasRecvWqe()
    {
        return srq != null ? srqWqeHeld : rq != null && rq.postedRecv(rqNext) != null;
    }

    /** The receive WQE of {@link #recvWqe} is completed: its slot is free, or the SRQ's copy no longer held. */
    void releaseRecvWqe()
    {
        if (srq != null)
        {
            srqWqeHeld = false;
        }
        else
        {
            rq.release(rqNext);
            rqNext++;
        }
    }

    /** The current state; readable from any thread. */
    public QpState state()
    {
        return state;
    }

    public int destQpn()
    {
        return destQpn;
    }

    public PathMtu pathMtu()
    {
        return pathMtu;
    }

    /**
     * Tells the engine that this QP has work (a send WR posted, a receive WR posted in ERR to flush), so that its
     * next duty cycle visits the QP. Any thread, after the post; lock-free, allocates nothing.
     */
    public void ringDoorbell()
    {
        final Doorbell engineDoorbell = doorbell;
        if (engineDoorbell != null)
        {
            engineDoorbell.ring(this);
        }
    }

    /**
     * Packets this QP's requester sent again (the engine's {@code retransmitted_pkts}, per QP). Written by the engine
     * thread only; another thread reads a recent value (a driver's per-QP counters).
     */
    public long retransmittedPackets()
    {
        return retransmittedPackets;
    }

    /** Next PSN the requester will send (engine thread's view). */
    public int sendPsn()
    {
        return reqPsn;
    }

    /** Next PSN the responder expects (engine thread's view). */
    public int expectedPsn()
    {
        return ePsn;
    }

    /** The QP's DCQCN state, or null when congestion control is off. Engine thread, except its rate. */
    public QpCongestion congestion()
    {
        return congestion;
    }

    /** The ECN bits of the QP's packets: ECT(0) with congestion control on, not ECN-capable otherwise. */
    int ecn()
    {
        return congestion != null ? Ecn.ECT_0 : Ecn.NOT_ECT;
    }

    /**
     * The transport bits of the QP's BTH opcodes ({@link Opcode#TRANSPORT_RC} …): what the requester sends, and what
     * the engine accepts for it (a frame of another transport is dropped).
     */
    int transport()
    {
        return switch (type)
        {
            case RC -> Opcode.TRANSPORT_RC;
            case UC -> Opcode.TRANSPORT_UC;
            case UD -> Opcode.TRANSPORT_UD;
        };
    }

    /** The transport state in one line, for diagnostics. Control path (allocates). */
    public String describe()
    {
        return "QP " + qpn + " " + type + " " + state + ": sq oldest=" + sqOldest + " next=" + sqNext + " sentEnd=" +
            sqSentEnd + " producer=" + sq.producerPosition() + " started=" + reqWqeStarted + " offset=" + reqOffset +
            String.format(" reqPsn=%06x compPsn=%06x highest=%06x rewoundAt=%06x", reqPsn, compPsn,
            highestSentPsnPlusOne, rewoundAtPsn & 0xFF_FFFF) +
            " rdAtomic=" + outstandingReadAtomic + " retryLeft=" + retryLeft + " ackTimer=" + retransmitDeadlineNs +
            " rnrResume=" + rnrResumeNs + String.format(" ePsn=%06x", ePsn) + " rqNext=" + rqNext +
            " recvInProgress=" + recvInProgress + (srq != null ? " srq=" + srq.handle() + " srqWqeHeld=" +
            srqWqeHeld : "") + " lastReq=" + lastRequestOpcode + " nakSent=" + nakSent +
            " timerWheel=" + (inTimerWheel ? "@" + timerDeadlineNs : "none") + " lastNow=" + lastNowNs;
    }

    int slot(final long position)
    {
        return (int)position & (wqeFirstPsn.length - 1);
    }

    /**
     * Resets all transport state, as a transition to RESET does. Engine thread. Both queues are emptied (ibverbs): the
     * work requests still posted give their slots back, else the rings would refuse new ones once the positions
     * skipped here come round again.
     */
    void resetTransport()
    {
        sqNext = sq.releaseFrom(sqOldest);
        sqOldest = sqNext;
        sqSentEnd = sqNext;
        reqOffset = 0;
        reqWqeStarted = false;
        packetsSinceAckRequest = 0;
        outstandingReadAtomic = 0;
        retransmitDeadlineNs = 0;
        rnrResumeNs = 0;
        errorPosition = -1;
        errorStatus = null;
        rewoundAtPsn = -1;
        retryBurstEnded = false;
        lastRequestOpcode = -1;
        nakSent = false;
        sequenceNakOwed = false;
        rqNext = rq == null ? 0 : rq.releaseFrom(rqNext);
        srqWqeHeld = false; // the WQE taken from the SRQ is lost with the QP's state, as in rxe
        lastWqeReachedRaised = false;
        recvOffset = 0;
        recvInProgress = false;
        writeRKey = 0;
        writeRemaining = 0;
        ucDroppingMessage = false;
        msn = 0;
        replay.clear();
        responses.clear();
        answeredInEpoch = 0;
        answeredEpoch = -1;
    }
}
