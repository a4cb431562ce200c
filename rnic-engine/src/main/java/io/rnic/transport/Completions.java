package io.rnic.transport;

import io.rnic.verbs.AsyncEvent;
import io.rnic.verbs.QpState;
import io.rnic.verbs.RecvWorkRequest;
import io.rnic.verbs.SendFlags;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.WcOpcode;
import io.rnic.verbs.WcStatus;
import io.rnic.verbs.WrOpcode;

/**
 * Turning work requests into work completions, and the QP error path: an error completion for the WQE at fault,
 * the QP to ERR, and every other outstanding WQE flushed with {@link WcStatus#WR_FLUSH_ERR}, as ibverbs users
 * expect from a hardware RNIC.
 */
final class Completions
{
    private final TransportCounters counters;

    Completions(final TransportCounters counters)
    {
        this.counters = counters;
    }

    /** Completes the oldest send WQE (successfully, or with an error status) and releases its slot. */
    void completeOldestSend(final QpContext qp, final WcStatus status, final int byteLength)
    {
        final long position = qp.sqOldest;
        final SendWorkRequest wqe = qp.sq.postedSend(position);
        final boolean signaled = qp.signalAll || (wqe.sendFlags & SendFlags.SIGNALED) != 0;
        if (status == WcStatus.SUCCESS && isSend(wqe.opcode))
        {
            counters.increment(TransportCounter.RDMA_SENDS);
        }
        // the slot first: an application that sees the completion may post again at once, into room it must find
        // (the engine's decoded copy of the request stays intact until this thread decodes that slot again)
        qp.sq.release(position);
        if (signaled || status != WcStatus.SUCCESS)
        {
            offer(qp.sendCq, qp, wqe.wrId, status, WrOpcode.completionOpcode(wqe.opcode), byteLength, 0, 0, 0, 0);
        }
        final boolean requesterPassedIt = position < qp.sqNext || position == qp.sqNext && qp.reqWqeStarted;
        if (requesterPassedIt && Requester.isReadOrAtomic(wqe.opcode) && qp.outstandingReadAtomic > 0)
        {
            qp.outstandingReadAtomic--;
        }
        if (position >= qp.sqNext)
        {
            // A late ACK completed the WQE that go-back-N was about to resend: the requester skips past it.
            final int slot = qp.slot(position);
            qp.sqNext = position + 1;
            qp.reqWqeStarted = false;
            qp.reqOffset = 0;
            if (qp.wqeFullySent[slot] && Psn.isBefore(qp.reqPsn, Psn.next(qp.wqeLastPsn[slot])))
            {
                qp.reqPsn = Psn.next(qp.wqeLastPsn[slot]);
            }
        }
        qp.sqOldest = position + 1;
        if (qp.sqSentEnd < qp.sqOldest)
        {
            qp.sqSentEnd = qp.sqOldest;
        }
    }

    void completeRecv(
        final QpContext qp,
        final WcStatus status,
        final int opcode,
        final int byteLength,
        final int immediate,
        final int sourceQp,
        final int flags,
        final int networkHeaderType)
    {
        final RecvWorkRequest wqe = qp.recvWqe();
        if (status == WcStatus.SUCCESS)
        {
            counters.increment(TransportCounter.RDMA_RECVS);
        }
        qp.releaseRecvWqe(); // before the completion, as a send's slot
        offer(qp.recvCq, qp, wqe.wrId, status, opcode, byteLength, immediate, sourceQp, flags, networkHeaderType);
        qp.recvOffset = 0;
        qp.recvInProgress = false;
    }

    private static boolean isSend(final int opcode)
    {
        return opcode == WrOpcode.SEND || opcode == WrOpcode.SEND_WITH_IMM || opcode == WrOpcode.SEND_WITH_INV;
    }

    private void offer(
        final io.rnic.verbs.CompletionQueue cq,
        final QpContext qp,
        final long wrId,
        final WcStatus status,
        final int opcode,
        final int byteLength,
        final int immediate,
        final int sourceQp,
        final int flags,
        final int networkHeaderType)
    {
        if (!cq.offer(wrId, status, opcode, byteLength, immediate, qp.qpn, sourceQp, flags, networkHeaderType))
        {
            // A CQ overrun is fatal for the QPs it serves (IBV_EVENT_CQ_ERR): nothing more is delivered.
            counters.increment(TransportCounter.COMPLETION_QUEUE_OVERRUN);
            qp.state = QpState.ERR;
        }
    }

    /** Completes the oldest send WQE with {@code status}, moves the QP to ERR and flushes everything else. */
    void failOldestSend(final QpContext qp, final WcStatus status)
    {
        if (qp.sq.postedSend(qp.sqOldest) != null)
        {
            completeOldestSend(qp, status, 0);
        }
        moveToError(qp);
    }

    /** Completes the receive WQE in progress with {@code status}, moves the QP to ERR and flushes. */
    void failRecv(final QpContext qp, final WcStatus status, final int opcode)
    {
        if (qp.hasRecvWqe())
        {
            completeRecv(qp, status, opcode, 0, 0, 0, 0, 0);
        }
        moveToError(qp);
    }

    void moveToError(final QpContext qp)
    {
        qp.state = QpState.ERR;
        qp.retransmitDeadlineNs = 0;
        qp.rnrResumeNs = 0;
        flush(qp);
    }

    /** Flushes every posted WQE of a QP in ERR. Called each duty cycle, since posting in ERR is allowed. */
    int flush(final QpContext qp)
    {
        int flushed = 0;
        // at most a lap of each ring per call: a client that keeps posting into its QP in ERR cannot hold the engine
        for (int i = qp.sq.capacity(); i > 0 && qp.sq.postedSend(qp.sqOldest) != null; i--)
        {
            final boolean atFault = qp.sqOldest == qp.errorPosition;
            completeOldestSend(qp, atFault ? qp.errorStatus : WcStatus.WR_FLUSH_ERR, 0);
            flushed += atFault ? 0 : 1;
        }
        qp.errorPosition = -1;
        qp.sqNext = qp.sqOldest;
        qp.sqSentEnd = qp.sqOldest;
        qp.reqWqeStarted = false;
        qp.reqOffset = 0;
        qp.outstandingReadAtomic = 0;
        for (int i = qp.rq == null ? 1 : qp.rq.capacity(); i > 0 && qp.hasRecvWqe(); i--)
        {
            // the QP's own receive queue, or the one WQE it took from its SRQ (the others stay the SRQ's)
            completeRecv(qp, WcStatus.WR_FLUSH_ERR, WcOpcode.RECV, 0, 0, 0, 0, 0);
            flushed++;
        }
        if (qp.srq != null && !qp.lastWqeReachedRaised && qp.state == QpState.ERR)
        {
            // a QP of an SRQ in the error state tells the application, once, that it has completed the last WQE it
            // took (the IBTA's Last WQE Reached event, rxe's flush_recv_queue): from then on it may destroy the QP
            qp.lastWqeReachedRaised = true;
            qp.srq.events().offerAsyncEvent(AsyncEvent.QP_LAST_WQE_REACHED, qp.qpn, 0);
        }
        if (flushed > 0)
        {
            counters.add(TransportCounter.FLUSHED_WORK_REQUESTS, flushed);
        }
        return flushed;
    }
}
