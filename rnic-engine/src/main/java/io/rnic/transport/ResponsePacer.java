package io.rnic.transport;

import io.rnic.cc.QpCongestion;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.MemoryRegion;
import io.rnic.verbs.MemoryRegionTable;
import io.rnic.verbs.QpState;
import io.rnic.wire.AethFlyweight;
import io.rnic.wire.FrameSpec;
import io.rnic.wire.Opcode;

/**
 * Sends the READ responses and atomic acknowledgements a QP owes (rxe's {@code read_reply} and the atomic reply),
 * across duty cycles as the port has room and the QP's DCQCN shaper allows: a READ answered in one go could fill
 * the port's queue and leave the requests of every other QP waiting. It also keeps the count of responses the
 * requester cannot have seen yet, the responder's side of max_dest_rd_atomic ({@link #outstandingReadAtomic}).
 * Engine thread only.
 */
final class ResponsePacer
{
    private final TransmitPath tx;
    private final MemoryRegionTable regions;
    private final AcknowledgeCoalescer acknowledges;
    private final TransportCounters counters;
    /** Duty cycles ended so far (see {@link #wireEpoch}). */
    private long dutyCycle;

    ResponsePacer(
        final TransmitPath tx,
        final MemoryRegionTable regions,
        final AcknowledgeCoalescer acknowledges,
        final TransportCounters counters)
    {
        this.tx = tx;
        this.regions = regions;
        this.acknowledges = acknowledges;
        this.counters = counters;
    }

    /**
     * The engine's duty cycle is over: what it transmitted goes to the wire before the next receive burst, so from
     * now on the requester may have seen it. Called once per cycle, after the responses of the cycle were sent.
     */
    void endDutyCycle()
    {
        dutyCycle++;
    }

    /**
     * Moves on whenever what was transmitted before may have reached the wire: at the end of each duty cycle, and
     * each time the port pushes frames out within one (a full queue, a port that sends at once). A response sent in
     * the same epoch as a request arrives cannot have been seen by the requester that sent it.
     */
    private long wireEpoch()
    {
        return dutyCycle + tx.pushes();
    }

    /**
     * The READs and atomics the QP counts against max_dest_rd_atomic: those whose first response has not completely
     * left the engine, and those whose response did but has not been pushed to the wire since (same
     * {@link #wireEpoch}): the requester cannot have seen them. A requester keeping to its max_rd_atomic never has
     * more outstanding than that (it sends a new one only after the whole response to an earlier one arrived).
     */
    int outstandingReadAtomic(final QpContext qp)
    {
        final int answeredNotOnWire = qp.answeredEpoch == wireEpoch() ? qp.answeredInEpoch : 0;
        return qp.replay.awaitingAnswerCount() + answeredNotOnWire;
    }

    /**
     * The first complete response to replay entry {@code entry} was just transmitted, its last frame handed over in
     * wire epoch {@code epoch} ({@link #outstandingReadAtomic}).
     */
    private static void answered(final QpContext qp, final int entry, final long epoch)
    {
        if (qp.replay.answered(entry))
        {
            if (qp.answeredEpoch != epoch)
            {
                qp.answeredEpoch = epoch;
                qp.answeredInEpoch = 0;
            }
            qp.answeredInEpoch++;
        }
    }

    /**
     * Queues the response to replay cache entry {@code entry} (a READ from its packet {@code startPacket}, or an
     * atomic) behind any still owed, and sends what the port and the shaper allow now.
     */
    void queue(final QpContext qp, final int entry, final int startPacket, final long nowNs)
    {
        final int firstPsn = qp.replay.firstPsn(entry);
        acknowledges.beforeResponse(qp, Psn.add(firstPsn, startPacket));
        qp.responses.add(entry, firstPsn, startPacket);
        send(qp, nowNs, RnicEngine.SEND_BUDGET_PER_QP);
    }

    /**
     * Sends up to {@code budget} packets of the responses the QP owes, while the port has room and the QP's shaper
     * allows (DCQCN paces a QP's READ responses like its requests); then the ACK that waited behind them, and a
     * sequence NAK held back so as not to overtake them. Called when a response is queued and by the engine's duty
     * cycle. Returns the packets sent.
     */
    int send(final QpContext qp, final long nowNs, final int budget)
    {
        final ResponseQueue queue = qp.responses;
        int sent = 0;
        while (sent < budget && !queue.isEmpty())
        {
            final QpState state = qp.state;
            if (state != QpState.RTR && state != QpState.RTS && state != QpState.SQD && state != QpState.SQE)
            {
                queue.clear(); // an errored QP answers nothing more
                return sent;
            }
            final QpCongestion congestion = qp.congestion;
            if (congestion != null && !congestion.mayTransmit(nowNs))
            {
                break;
            }
            if (!tx.hasRoom())
            {
                counters.increment(TransportCounter.TX_QUEUE_FULL);
                break;
            }
            final ReplayCache replay = qp.replay;
            final int entry = queue.headEntry();
            if (replay.kind(entry) == 0 || replay.firstPsn(entry) != queue.headFirstPsn())
            {
                // the record was reused meanwhile (a peer far past the READs/atomics we announced): abandoned
                counters.increment(TransportCounter.RESPONSE_ABANDONED);
                queue.removeHead();
                continue;
            }
            if (replay.kind(entry) == ReplayCache.KIND_ATOMIC)
            {
                final long epoch = wireEpoch(); // before the send: a port that pushes at once moves it past
                sendAtomicAcknowledge(qp, replay.firstPsn(entry), replay.atomicOriginal(entry), replay.msn(entry));
                answered(qp, entry, epoch);
                queue.removeHead();
            }
            else if (!sendReadResponse(qp, queue, replay, entry))
            {
                continue; // its region is gone: NAKed, the QP is in error and the queue is cleared next
            }
            if (congestion != null)
            {
                congestion.onTransmitted(tx.lastFrameBytes(), nowNs);
            }
            sent++;
        }
        if (queue.isEmpty())
        {
            acknowledges.flush(qp);
            if (qp.sequenceNakOwed)
            {
                qp.sequenceNakOwed = false;
                if (qp.nakSent) // still out of sequence: the expected PSN has not arrived since
                {
                    acknowledges.sequenceNak(qp);
                }
            }
        }
        return sent;
    }

    /**
     * The next packet of the READ at the head of the queue, its R_Key checked again for exactly these bytes; false
     * if the region was deregistered since the READ ran (or the replay asks for it again): a remote access NAK, as
     * for a READ that finds no region, and the QP to ERR. Dropping it instead would leave the requester asking
     * again until its retries ran out, and then report a retry error rather than the access error.
     */
    private boolean sendReadResponse(
        final QpContext qp, final ResponseQueue queue, final ReplayCache replay, final int entry)
    {
        final int mtu = qp.mtuBytes;
        final int packets = replay.packetCount(entry);
        final int i = queue.headPacket();
        final long offset = (long)i * mtu;
        final int payload = (int)Math.min(mtu, replay.length(entry) - offset);
        final long address = replay.address(entry) + offset;
        MemoryRegion region = null;
        if (payload > 0 && (region = regions.checkRemote(replay.rKey(entry), qp.pd, qp.qpn, address, payload,
            AccessFlags.REMOTE_READ)) == null)
        {
            replay.answered(entry); // given up: it no longer counts against max_dest_rd_atomic
            queue.removeHead();
            acknowledges.remoteError(qp, Psn.add(replay.firstPsn(entry), i), AethFlyweight.NAK_REMOTE_ACCESS_ERROR);
            return false;
        }
        final FrameSpec spec = qp.frame.destinationQp(qp.destQpn).ackRequest(false).solicitedEvent(false);
        final int operation = packets == 1 ? Opcode.RC_RDMA_READ_RESPONSE_ONLY : i == 0 ?
            Opcode.RC_RDMA_READ_RESPONSE_FIRST : i == packets - 1 ? Opcode.RC_RDMA_READ_RESPONSE_LAST :
            Opcode.RC_RDMA_READ_RESPONSE_MIDDLE;
        spec.opcode(operation).psn(Psn.add(replay.firstPsn(entry), i))
            .aeth(AethFlyweight.ackSyndrome(AethFlyweight.CREDITS_INVALID), replay.msn(entry));
        final long epoch = wireEpoch(); // before the send: a port that pushes at once moves it past
        if (payload > 0)
        {
            tx.sendFromRegion(spec, region, (int)region.offsetOf(address), payload);
        }
        else
        {
            tx.send(spec, 0);
        }
        if (i == packets - 1)
        {
            answered(qp, entry, epoch);
        }
        queue.headPacketSent(packets);
        return true;
    }

    private void sendAtomicAcknowledge(final QpContext qp, final int psn, final long original, final int msn)
    {
        final FrameSpec spec = qp.frame.destinationQp(qp.destQpn).ackRequest(false).solicitedEvent(false);
        spec.opcode(Opcode.RC_ATOMIC_ACKNOWLEDGE).psn(psn)
            .aeth(AethFlyweight.ackSyndrome(AethFlyweight.CREDITS_INVALID), msn)
            .atomicAckEth(original);
        tx.send(spec, 0);
    }
}
