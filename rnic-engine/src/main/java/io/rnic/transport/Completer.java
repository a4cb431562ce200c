package io.rnic.transport;

import io.rnic.verbs.QpState;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.WcStatus;
import io.rnic.verbs.WrOpcode;
import io.rnic.wire.AethFlyweight;
import io.rnic.wire.AtomicAckEthFlyweight;
import io.rnic.wire.Opcode;
import io.rnic.wire.RocePacket;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.NanoClock;

/**
 * The completer (rxe's {@code rxe_comp.c}): matches ACKs, NAKs, READ responses and atomic ACKs to send WQEs and
 * completes them in order. An ACK acknowledges every packet up to its PSN; a READ response or atomic ACK also
 * acknowledges everything before it (implied ACK); an ACK that passes an unanswered READ or atomic means its
 * responses were lost (implied NAK). PSN sequence NAKs and the local ACK timeout (4.096 us x 2^timeout) restart
 * the requester from the first unacknowledged PSN (go-back-N) within retry_cnt, and so does a READ response burst
 * that shows the answer to a re-request lost its first packet; RNR NAKs wait the RNR timer within
 * rnr_retry (7 = forever); other NAKs complete the WQE with the matching error and move the QP to ERR.
 */
final class Completer
{
    /**
     * How far past the first missing PSN a READ response may be and still be read as the start of a newer burst
     * (its first one or two packets lost): further in, it is more likely a straggler of an older burst.
     */
    static final int BURST_START_PACKETS = 2;

    private final Requester requester;
    private final LocalMemory memory;
    private final Completions completions;
    private final TransportCounters counters;
    /**
     * Read when the local ACK timer restarts. Frames are handled before the next duty cycle reads the engine's
     * clock, so the time handed in with a response may be as old as the thread's last descheduling: a timer
     * restarted from it would expire early and resend what the next frame in the ring acknowledges.
     */
    private final NanoClock clock;
    private final AethFlyweight aeth = new AethFlyweight();
    private final AtomicAckEthFlyweight atomicAck = new AtomicAckEthFlyweight();

    Completer(
        final Requester requester,
        final LocalMemory memory,
        final Completions completions,
        final TransportCounters counters,
        final NanoClock clock)
    {
        this.requester = requester;
        this.memory = memory;
        this.completions = completions;
        this.counters = counters;
        this.clock = clock;
    }

    void onResponse(final QpContext qp, final RocePacket packet, final DirectBuffer buffer, final long nowNs)
    {
        final QpState state = qp.state;
        if (state != QpState.RTS && state != QpState.SQD)
        {
            counters.increment(TransportCounter.DROPPED_QP_STATE);
            return;
        }
        qp.lastNowNs = nowNs;
        final int psn = packet.psn();
        final int lastSent = Psn.add(qp.reqPsn, -1);
        if (!Psn.isBefore(psn, qp.highestSentPsnPlusOne))
        {
            counters.increment(TransportCounter.DROPPED_GHOST_RESPONSE);
            return;
        }
        final int opcode = packet.opcode();
        if (opcode == Opcode.RC_ACKNOWLEDGE)
        {
            aeth.wrapAt(buffer, packet.headerOffset(Opcode.AETH));
            onAcknowledge(qp, psn, aeth.syndrome(), nowNs);
        }
        else if (opcode == Opcode.RC_ATOMIC_ACKNOWLEDGE)
        {
            aeth.wrapAt(buffer, packet.headerOffset(Opcode.AETH));
            atomicAck.wrapAt(buffer, packet.headerOffset(Opcode.ATOMIC_ACK_ETH));
            onAtomicAcknowledge(qp, psn, aeth.syndrome(), atomicAck.originalRemoteData(), nowNs);
        }
        else
        {
            onReadResponse(qp, packet, buffer, psn, nowNs);
        }
        if (lastSent == psn || qp.sqOldest == qp.sqSentEnd && !qp.reqWqeStarted)
        {
            disarmIfIdle(qp);
        }
    }

    private void onAcknowledge(final QpContext qp, final int psn, final int syndrome, final long nowNs)
    {
        if (AethFlyweight.type(syndrome) != AethFlyweight.TYPE_ACK && Psn.isBefore(psn, qp.compPsn))
        {
            // A NAK for a PSN already acknowledged: a late or duplicated frame. Acting on it would resend old PSNs.
            counters.increment(TransportCounter.DUPLICATE_RESPONSE);
            return;
        }
        switch (AethFlyweight.type(syndrome))
        {
            case AethFlyweight.TYPE_ACK ->
            {
                counters.increment(TransportCounter.ACKS_RECEIVED);
                acknowledgeUpTo(qp, psn, nowNs);
            }
            case AethFlyweight.TYPE_RNR_NAK ->
            {
                counters.increment(TransportCounter.RNR_NAK_RECEIVED);
                acknowledgeUpTo(qp, Psn.add(psn, -1), nowNs);
                if (qp.state != QpState.RTS && qp.state != QpState.SQD)
                {
                    return;
                }
                if (qp.rnrRetry != 7)
                {
                    if (qp.rnrRetryLeft == 0)
                    {
                        counters.increment(TransportCounter.RNR_RETRY_EXCEEDED);
                        completions.failOldestSend(qp, WcStatus.RNR_RETRY_EXC_ERR);
                        return;
                    }
                    qp.rnrRetryLeft--;
                }
                qp.rnrResumeNs = nowNs + Timeouts.rnrTimerNs(AethFlyweight.value(syndrome));
                qp.retransmitDeadlineNs = 0;
                requester.rewind(qp, psn);
            }
            case AethFlyweight.TYPE_NAK ->
            {
                final int code = AethFlyweight.value(syndrome);
                if (code == AethFlyweight.NAK_PSN_SEQUENCE_ERROR)
                {
                    counters.increment(TransportCounter.SEQ_NAK_RECEIVED);
                    acknowledgeUpTo(qp, Psn.add(psn, -1), nowNs);
                    if (qp.state == QpState.RTS || qp.state == QpState.SQD)
                    {
                        retry(qp, psn, false);
                    }
                    return;
                }
                acknowledgeUpTo(qp, Psn.add(psn, -1), nowNs);
                final WcStatus status;
                switch (code)
                {
                    case AethFlyweight.NAK_INVALID_REQUEST ->
                    {
                        counters.increment(TransportCounter.INVALID_REQUEST_NAK_RECEIVED);
                        status = WcStatus.REM_INV_REQ_ERR;
                    }
                    case AethFlyweight.NAK_REMOTE_ACCESS_ERROR ->
                    {
                        counters.increment(TransportCounter.REMOTE_ACCESS_NAK_RECEIVED);
                        status = WcStatus.REM_ACCESS_ERR;
                    }
                    default ->
                    {
                        counters.increment(TransportCounter.REMOTE_OPERATIONAL_NAK_RECEIVED);
                        status = WcStatus.REM_OP_ERR;
                    }
                }
                if (qp.state == QpState.RTS || qp.state == QpState.SQD)
                {
                    completions.failOldestSend(qp, status);
                }
            }
            default -> counters.increment(TransportCounter.DROPPED_GHOST_RESPONSE); // reserved AETH type
        }
    }

    /**
     * Completes, in order, every WQE whose last PSN is at or before {@code psn}. A READ or atomic in the way means
     * its responses were lost although later requests got through: go back to it.
     */
    private void acknowledgeUpTo(final QpContext qp, final int psn, final long nowNs)
    {
        if (Psn.isBefore(psn, Psn.add(qp.compPsn, -1)))
        {
            counters.increment(TransportCounter.DUPLICATE_RESPONSE);
            return;
        }
        while (qp.sqOldest < qp.sqSentEnd)
        {
            final int slot = qp.slot(qp.sqOldest);
            if (Psn.isAfter(qp.wqeLastPsn[slot], psn))
            {
                break;
            }
            final SendWorkRequest wqe = qp.sq.postedSend(qp.sqOldest);
            if (Requester.isReadOrAtomic(wqe.opcode))
            {
                counters.increment(TransportCounter.IMPLIED_NAK);
                progress(qp, qp.wqeFirstPsn[slot]);
                retry(qp, qp.compPsn, false);
                return;
            }
            completions.completeOldestSend(qp, WcStatus.SUCCESS, (int)wqe.sgl.totalLength());
        }
        progress(qp, Psn.next(psn));
    }

    private void onReadResponse(
        final QpContext qp, final RocePacket packet, final DirectBuffer buffer, final int psn, final long nowNs)
    {
        if (!Responder.fitsPathMtu(packet.opcode(), packet.payloadLength(), qp.mtuBytes))
        {
            // not what a responder on this path sends: dropped before it acknowledges anything (we ask again)
            counters.increment(TransportCounter.PACKET_LENGTH_ERROR);
            return;
        }
        if (Psn.isBefore(psn, qp.compPsn))
        {
            counters.increment(TransportCounter.DUPLICATE_RESPONSE); // a late copy of something already taken
            return;
        }
        // Everything before the READ this response answers is acknowledged by it.
        completeBefore(qp, psn);
        final SendWorkRequest wqe = qp.sq.postedSend(qp.sqOldest);
        if (wqe == null || qp.sqOldest >= qp.sqSentEnd)
        {
            counters.increment(TransportCounter.DROPPED_GHOST_RESPONSE);
            return;
        }
        if (Requester.isAtomicWriteOrFlush(wqe.opcode))
        {
            onEmptyReadResponse(qp, packet, buffer, wqe, psn);
            return;
        }
        if (wqe.opcode != WrOpcode.RDMA_READ)
        {
            impliedNak(qp, nowNs); // an earlier atomic's ACK was lost
            return;
        }
        final int slot = qp.slot(qp.sqOldest);
        final int first = qp.wqeFirstPsn[slot];
        final int distance = Psn.compare(psn, qp.compPsn);
        if (distance < 0)
        {
            counters.increment(TransportCounter.DUPLICATE_RESPONSE);
            return;
        }
        final int opcode = packet.opcode();
        if (distance > 0)
        {
            // An earlier response was lost (or is late): ask again from the first missing one.
            onReadResponseAhead(qp, psn, opcode, qp.wqeLastPsn[slot], nowNs);
            return;
        }
        final long total = wqe.sgl.totalLength();
        final long offset = (long)Psn.distance(first, psn) * qp.mtuBytes;
        final boolean last = opcode == Opcode.RC_RDMA_READ_RESPONSE_LAST || opcode == Opcode.RC_RDMA_READ_RESPONSE_ONLY;
        final int length = packet.payloadLength();
        // A READ re-requested from the middle is answered FIRST/ONLY from there: the PSN alone gives the offset.
        if (offset + length > total || (!last && length != qp.mtuBytes) || (last && offset + length != total))
        {
            completions.failOldestSend(qp, WcStatus.BAD_RESP_ERR);
            return;
        }
        if (!memory.scatter(wqe.sgl, qp.pd, offset, buffer, packet.payloadOffset(), length))
        {
            counters.increment(TransportCounter.LOCAL_PROTECTION_ERROR);
            completions.failOldestSend(qp, WcStatus.LOC_PROT_ERR);
            return;
        }
        progress(qp, Psn.next(psn));
        if (last)
        {
            completions.completeOldestSend(qp, WcStatus.SUCCESS, (int)total);
        }
    }

    /**
     * The answer to an ATOMIC WRITE or FLUSH at the head of the send queue (rxe's {@code check_ack}: an RDMA READ
     * RESPONSE ONLY with an ACK syndrome completes it): of zero length, anything else is a bad response. One of a
     * later PSN never comes here: it completed this WQE before (an implied ACK, as for a WRITE).
     */
    private void onEmptyReadResponse(
        final QpContext qp,
        final RocePacket packet,
        final DirectBuffer buffer,
        final SendWorkRequest wqe,
        final int psn)
    {
        if (psn != qp.wqeFirstPsn[qp.slot(qp.sqOldest)])
        {
            counters.increment(TransportCounter.DUPLICATE_RESPONSE);
            return;
        }
        aeth.wrapAt(buffer, packet.headerOffset(Opcode.AETH));
        if (packet.opcode() != Opcode.RC_RDMA_READ_RESPONSE_ONLY || packet.payloadLength() != 0 ||
            AethFlyweight.type(aeth.syndrome()) != AethFlyweight.TYPE_ACK)
        {
            completions.failOldestSend(qp, WcStatus.BAD_RESP_ERR);
            return;
        }
        progress(qp, Psn.next(psn));
        completions.completeOldestSend(qp, WcStatus.SUCCESS, (int)wqe.sgl.totalLength());
    }

    private void onAtomicAcknowledge(
        final QpContext qp, final int psn, final int syndrome, final long original, final long nowNs)
    {
        if (Psn.isBefore(psn, qp.compPsn))
        {
            counters.increment(TransportCounter.DUPLICATE_RESPONSE);
            return;
        }
        completeBefore(qp, psn);
        final SendWorkRequest wqe = qp.sq.postedSend(qp.sqOldest);
        if (wqe == null || qp.sqOldest >= qp.sqSentEnd)
        {
            counters.increment(TransportCounter.DROPPED_GHOST_RESPONSE);
            return;
        }
        if (!Requester.isAtomic(wqe.opcode))
        {
            impliedNak(qp, nowNs); // an earlier READ's responses were lost
            return;
        }
        final int first = qp.wqeFirstPsn[qp.slot(qp.sqOldest)];
        if (Psn.isBefore(psn, first))
        {
            counters.increment(TransportCounter.DUPLICATE_RESPONSE);
            return;
        }
        if (Psn.isAfter(psn, first))
        {
            // The ACK of a later atomic: ours was lost. Its original value must come from a replay, never from this.
            impliedNak(qp, nowNs);
            return;
        }
        if (AethFlyweight.type(syndrome) != AethFlyweight.TYPE_ACK)
        {
            completions.failOldestSend(qp, WcStatus.BAD_RESP_ERR);
            return;
        }
        if (!memory.scatterLong(wqe.sgl, qp.pd, original))
        {
            counters.increment(TransportCounter.LOCAL_PROTECTION_ERROR);
            completions.failOldestSend(qp, WcStatus.LOC_PROT_ERR);
            return;
        }
        progress(qp, Psn.next(psn));
        completions.completeOldestSend(qp, WcStatus.SUCCESS, Long.BYTES);
    }

    /**
     * A response of the oldest READ from past its first missing packet, {@code compPsn}. The first one is an implied
     * NAK: ask again from {@code compPsn}. The rest of that burst follows it and must not ask again (rxe's
     * {@code started_retry}): the re-request is on its way. When the answer to the re-request loses its own first
     * packet, rxe waits for the local ACK timeout although the loss shows at once; on a lossy link that wait is most
     * of a large READ's recovery time. So one more case restarts the retry sequence here: once a burst of this READ
     * has ended during the sequence (its LAST arrived), a MIDDLE packet within {@link #BURST_START_PACKETS} of
     * {@code compPsn} belongs to a newer burst, the answer to a re-request, whose first packets were lost. Armed by a
     * LAST and disarmed by the restart, it asks at most once per burst received; each restart counts against
     * retry_cnt like any retry. A packet of an ended burst reordered past its LAST can fire it too: the same bound
     * holds, and it costs one re-request that the next burst may have needed anyway.
     */
    private void onReadResponseAhead(
        final QpContext qp, final int psn, final int opcode, final int lastPsn, final long nowNs)
    {
        if (qp.rewoundAtPsn != qp.compPsn)
        {
            counters.increment(TransportCounter.IMPLIED_NAK);
            retry(qp, qp.compPsn, false);
        }
        else if (qp.retryBurstEnded && opcode == Opcode.RC_RDMA_READ_RESPONSE_MIDDLE &&
            Psn.distance(qp.compPsn, psn) <= BURST_START_PACKETS)
        {
            counters.increment(TransportCounter.IMPLIED_NAK);
            qp.retryBurstEnded = false;
            retry(qp, qp.compPsn, true);
        }
        if (psn == lastPsn && qp.rewoundAtPsn == qp.compPsn)
        {
            qp.retryBurstEnded = true; // after the restart: the burst this packet ends is over either way
        }
    }

    /** A response that could only come after one we have not seen: resend from the first unacknowledged PSN. */
    private void impliedNak(final QpContext qp, final long nowNs)
    {
        if (qp.rewoundAtPsn != qp.compPsn)
        {
            counters.increment(TransportCounter.IMPLIED_NAK);
            retry(qp, qp.compPsn, false);
        }
    }

    /** Completes the SEND/WRITE WQEs entirely before {@code psn} (implied ACK of a READ response / atomic ACK). */
    private void completeBefore(final QpContext qp, final int psn)
    {
        while (qp.sqOldest < qp.sqSentEnd)
        {
            final int slot = qp.slot(qp.sqOldest);
            final SendWorkRequest wqe = qp.sq.postedSend(qp.sqOldest);
            if (Requester.isReadOrAtomic(wqe.opcode) ||
                !Psn.isBefore(qp.wqeLastPsn[slot], psn))
            {
                break;
            }
            completions.completeOldestSend(qp, WcStatus.SUCCESS, (int)wqe.sgl.totalLength());
            progress(qp, Psn.next(qp.wqeLastPsn[slot]));
        }
    }

    /** Forward progress: the PSNs before {@code nextUnacked} are done, so retry budgets are whole again. */
    private void progress(final QpContext qp, final int nextUnacked)
    {
        if (Psn.isAfter(nextUnacked, qp.compPsn))
        {
            qp.compPsn = nextUnacked;
            qp.retryLeft = qp.retryCount;
            qp.rnrRetryLeft = qp.rnrRetry;
            qp.rewoundAtPsn = -1;
            qp.retryBurstEnded = false;
            qp.retransmitDeadlineNs = qp.retransmitDeadlineNs == 0 ? 0 : clock.nanoTime() + timeoutNs(qp);
            if (Psn.isBefore(qp.reqPsn, nextUnacked))
            {
                // A late (or coalesced) ACK covers PSNs go-back-N was about to resend: resume after them, or the
                // requester would sit behind the acknowledged point with nothing outstanding and no timer.
                requester.rewind(qp, nextUnacked);
            }
        }
    }

    /**
     * Starts a retransmission from {@code psn}. One retry sequence at a time, as rxe's {@code started_retry}: while
     * the requester is already resending from the current first unacknowledged PSN, the ACKs and NAKs still in
     * flight from before that point start no further retry (and use up no retry budget); only a {@code restart}
     * does: the timer, or a newer READ response burst that lost its first packets ({@link #onReadResponseAhead}).
     */
    private void retry(final QpContext qp, final int psn, final boolean restart)
    {
        if (!restart && qp.rewoundAtPsn == qp.compPsn)
        {
            return;
        }
        if (qp.retryLeft == 0)
        {
            counters.increment(TransportCounter.RETRY_EXCEEDED);
            completions.failOldestSend(qp, WcStatus.RETRY_EXC_ERR);
            return;
        }
        qp.retryLeft--;
        counters.increment(TransportCounter.COMPLETER_RETRY);
        qp.rewoundAtPsn = qp.compPsn;
        requester.rewind(qp, psn);
        final long timeoutNs = timeoutNs(qp);
        qp.retransmitDeadlineNs = timeoutNs == 0 ? 0 : clock.nanoTime() + timeoutNs;
    }

    /** Timers of one QP: the end of an RNR wait and the local ACK timeout. */
    int onTimers(final QpContext qp, final long nowNs)
    {
        qp.lastNowNs = nowNs;
        if (qp.rnrResumeNs != 0 && nowNs - qp.rnrResumeNs >= 0)
        {
            qp.rnrResumeNs = 0;
            final long timeoutNs = timeoutNs(qp);
            qp.retransmitDeadlineNs = timeoutNs == 0 ? 0 : nowNs + timeoutNs;
            return 1;
        }
        if (qp.retransmitDeadlineNs != 0 && nowNs - qp.retransmitDeadlineNs >= 0)
        {
            if (!hasOutstanding(qp))
            {
                qp.retransmitDeadlineNs = 0;
                return 0;
            }
            counters.increment(TransportCounter.LOCAL_ACK_TIMEOUT);
            retry(qp, qp.compPsn, true);
            return 1;
        }
        return 0;
    }

    private void disarmIfIdle(final QpContext qp)
    {
        if (!hasOutstanding(qp))
        {
            qp.retransmitDeadlineNs = 0;
        }
    }

    private static boolean hasOutstanding(final QpContext qp)
    {
        return Psn.isBefore(qp.compPsn, qp.highestSentPsnPlusOne);
    }

    private static long timeoutNs(final QpContext qp)
    {
        return Timeouts.localAckTimeoutNs(qp.timeoutCode);
    }
}
