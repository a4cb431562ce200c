package io.rnic.transport;

import io.rnic.cc.QpCongestion;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.MemoryRegion;
import io.rnic.verbs.MemoryRegionTable;
import io.rnic.verbs.QpState;
import io.rnic.verbs.QpType;
import io.rnic.verbs.RecvWorkRequest;
import io.rnic.verbs.WcOpcode;
import io.rnic.verbs.WcStatus;
import io.rnic.verbs.WorkCompletion;
import io.rnic.wire.AethFlyweight;
import io.rnic.wire.AtomicEthFlyweight;
import io.rnic.wire.DethFlyweight;
import io.rnic.wire.FrameSpec;
import io.rnic.wire.IethFlyweight;
import io.rnic.wire.ImmDtFlyweight;
import io.rnic.wire.Ipv4Flyweight;
import io.rnic.wire.Ipv6Flyweight;
import io.rnic.wire.Opcode;
import io.rnic.wire.RethFlyweight;
import io.rnic.wire.RocePacket;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.Arrays;

/**
 * The responder (rxe's {@code rxe_resp.c}): executes incoming requests. For RC: the PSN check (expected: execute;
 * duplicate: re-acknowledge, re-read, or answer an atomic from the replay cache; out of sequence: one NAK until the
 * expected PSN arrives), the FIRST/MIDDLE/LAST sequence, a receive WQE for SEND (RNR NAK when there is none), the
 * R_Key, protection domain, bounds and access check of RDMA WRITE, READ and atomics before any byte is touched
 * (remote access error NAK otherwise), and the ACK when the requester asks for one. UC does the same without
 * acknowledgements and drops the rest of a message after a gap; UD checks the Q_Key and fills the 40-byte GRH area.
 */
final class Responder
{
    private final TransmitPath tx;
    private final LocalMemory memory;
    private final MemoryRegionTable regions;
    private final Completions completions;
    private final TransportCounters counters;
    private final RethFlyweight reth = new RethFlyweight();
    private final AtomicEthFlyweight atomicEth = new AtomicEthFlyweight();
    private final ImmDtFlyweight immDt = new ImmDtFlyweight();
    private final IethFlyweight ieth = new IethFlyweight();
    private final DethFlyweight deth = new DethFlyweight();
    private QpContext[] pendingAcks = new QpContext[16];
    /** The engine's clock as of the request being handled: what the QP's shaper is asked with. */
    private long nowNs;
    /** Duty cycles ended so far (see {@link #wireEpoch}). */
    private long dutyCycle;
    private int pendingAckCount;

    Responder(
        final TransmitPath tx, final LocalMemory memory, final Completions completions, final TransportCounters counters)
    {
        this.tx = tx;
        this.memory = memory;
        this.regions = memory.regions();
        this.completions = completions;
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

    void onRequest(final QpContext qp, final RocePacket packet, final DirectBuffer buffer, final long nowNs)
    {
        this.nowNs = nowNs;
        final QpState state = qp.state;
        if (state == QpState.RESET || state == QpState.INIT || state == QpState.ERR)
        {
            counters.increment(TransportCounter.DROPPED_QP_STATE);
            return;
        }
        switch (qp.type)
        {
            case RC -> reliable(qp, packet, buffer);
            case UC -> unreliable(qp, packet, buffer);
            case UD -> datagram(qp, packet, buffer);
        }
    }

    // ------------------------------------------------------------------------------------------------ RC

    private void reliable(final QpContext qp, final RocePacket packet, final DirectBuffer buffer)
    {
        final int psn = packet.psn();
        final int distance = Psn.compare(psn, qp.ePsn);
        if (distance > 0)
        {
            counters.increment(TransportCounter.OUT_OF_SEQUENCE);
            if (!qp.nakSent)
            {
                qp.nakSent = true;
                if (qp.responses.isEmpty())
                {
                    sendSequenceNak(qp);
                }
                else
                {
                    // a NAK now would overtake the READ responses still queued and make the requester resend
                    // those READs too: it follows them (sendResponses)
                    qp.sequenceNakOwed = true;
                }
            }
            return;
        }
        if (distance < 0)
        {
            counters.increment(TransportCounter.DUPLICATE_REQUEST);
            duplicate(qp, packet, psn);
            return;
        }
        final int opcode = packet.opcode();
        if (!sequenceAllowed(qp.lastRequestOpcode, opcode))
        {
            remoteError(qp, psn, AethFlyweight.NAK_INVALID_REQUEST);
            return;
        }
        if (!fitsPathMtu(opcode, packet.payloadLength(), qp.mtuBytes))
        {
            counters.increment(TransportCounter.PACKET_LENGTH_ERROR);
            remoteError(qp, psn, AethFlyweight.NAK_INVALID_REQUEST);
            return;
        }
        qp.nakSent = false;
        final boolean done;
        if (Opcode.has(opcode, Opcode.FLAG_SEND))
        {
            done = send(qp, packet, buffer, psn, true);
        }
        else if (Opcode.has(opcode, Opcode.FLAG_WRITE))
        {
            done = write(qp, packet, buffer, psn, true);
        }
        else if (Opcode.has(opcode, Opcode.FLAG_READ))
        {
            read(qp, packet, buffer, psn);
            return;
        }
        else
        {
            atomic(qp, packet, buffer, psn);
            return;
        }
        if (done)
        {
            qp.lastRequestOpcode = Opcode.has(opcode, Opcode.FLAG_FIRST | Opcode.FLAG_MIDDLE) ? opcode : -1;
            qp.ePsn = Psn.next(psn);
            if (packet.ackRequest())
            {
                deferAcknowledge(qp, psn);
            }
        }
    }

    /**
     * rxe's {@code check_length}: no packet carries more than the path MTU, a message is cut in full MTU-sized
     * packets (FIRST and MIDDLE exactly the MTU) and its LAST carries the rest, at least one byte; an ONLY packet may
     * be empty. A requester that does otherwise is broken or hostile: its data must not reach memory.
     */
    static boolean fitsPathMtu(final int opcode, final int payloadBytes, final int mtuBytes)
    {
        if (payloadBytes > mtuBytes)
        {
            return false;
        }
        if (Opcode.has(opcode, Opcode.FLAG_FIRST | Opcode.FLAG_MIDDLE))
        {
            return payloadBytes == mtuBytes;
        }
        return payloadBytes > 0 || !Opcode.has(opcode, Opcode.FLAG_LAST);
    }

    /** FIRST/MIDDLE of a message must be followed by MIDDLE/LAST of the same kind; anything else starts one. */
    private static boolean sequenceAllowed(final int lastOpcode, final int opcode)
    {
        if (lastOpcode >= 0)
        {
            final int kind = Opcode.FLAG_SEND | Opcode.FLAG_WRITE;
            return Opcode.has(opcode, Opcode.FLAG_MIDDLE | Opcode.FLAG_LAST) &&
                (Opcode.mask(opcode) & kind) == (Opcode.mask(lastOpcode) & kind);
        }
        return Opcode.has(opcode, Opcode.FLAG_FIRST | Opcode.FLAG_ONLY);
    }

    private void duplicate(final QpContext qp, final RocePacket packet, final int psn)
    {
        final int opcode = packet.opcode();
        if (opcode == Opcode.RC_RDMA_READ_REQUEST)
        {
            final int entry = qp.replay.find(psn);
            if (entry < 0 || qp.replay.kind(entry) != ReplayCache.KIND_READ)
            {
                return; // not a READ we executed, or too old to remember
            }
            if (!qp.responses.isFull())
            {
                // answered from what the READ was when it ran, from the packet asked for: a requester resends a
                // READ from the first response it lacks (the rest of the range; the region is checked per packet)
                queueResponse(qp, entry, Psn.compare(psn, qp.replay.firstPsn(entry)));
            }
            return;
        }
        if (Opcode.has(opcode, Opcode.FLAG_ATOMIC))
        {
            final int entry = qp.replay.find(psn);
            if (entry >= 0 && qp.replay.kind(entry) == ReplayCache.KIND_ATOMIC && qp.replay.firstPsn(entry) == psn &&
                !qp.responses.isFull())
            {
                queueResponse(qp, entry, 0);
            }
            return;
        }
        // A duplicate SEND or WRITE is acknowledged whether or not it asked (C9-105; rxe does the same): the
        // requester resends after losing our ACK or a packet past it, and a burst of resent MIDDLE packets carries
        // no AckReq. Left unanswered, it would resend the same burst on every timeout — and when its new packets
        // are the ones a full receive ring drops, until its retry count runs out. Coalesced: one ACK per burst.
        deferAcknowledge(qp, Psn.add(qp.ePsn, -1));
    }

    private void read(final QpContext qp, final RocePacket packet, final DirectBuffer buffer, final int psn)
    {
        if (tooManyReadAtomic(qp, psn))
        {
            return;
        }
        if (qp.responses.isFull())
        {
            // more READs/atomics outstanding than we announced: not executed, as if lost (the requester resends)
            counters.increment(TransportCounter.RESPONSE_QUEUE_FULL);
            return;
        }
        reth.wrapAt(buffer, packet.headerOffset(Opcode.RETH));
        final long address = reth.virtualAddress();
        final int rKey = (int)reth.rKey();
        final long length = reth.dmaLength();
        MemoryRegion region = null;
        if ((qp.accessFlags & AccessFlags.REMOTE_READ) == 0 || length > Integer.MAX_VALUE ||
            length != 0 && (region = regions.checkRemote(rKey, qp.pd, address, length, AccessFlags.REMOTE_READ)) == null)
        {
            remoteError(qp, psn, AethFlyweight.NAK_REMOTE_ACCESS_ERROR);
            return;
        }
        final int packets = (int)Math.max(1, (length + qp.mtuBytes - 1) / qp.mtuBytes);
        qp.msn = Psn.next(qp.msn);
        final int entry = qp.replay.recordRead(psn, packets, address, rKey, length, qp.msn);
        qp.lastRequestOpcode = -1;
        qp.ePsn = Psn.add(psn, packets);
        queueResponse(qp, entry, 0);
    }

    /**
     * max_dest_rd_atomic: a new READ or atomic beyond the number the QP accepts at once is answered with an invalid
     * request NAK, and the QP goes to ERR (rxe's {@code RESPST_ERR_TOO_MANY_RDMA_ATM_REQ}). Outstanding are the
     * requests whose first response has not completely left the engine, and those whose response did but has not
     * been pushed to the wire since (same {@link #wireEpoch}): the requester cannot have seen them. A requester keeping
     * to its max_rd_atomic never has more outstanding than that (it sends a new one only after the whole response to
     * an earlier one arrived), so it is never refused. Returns true (and has answered) when the request is refused.
     */
    private boolean tooManyReadAtomic(final QpContext qp, final int psn)
    {
        final int answeredNotOnWire = qp.answeredEpoch == wireEpoch() ? qp.answeredInEpoch : 0;
        if (qp.replay.awaitingAnswerCount() + answeredNotOnWire < qp.maxDestReadAtomic)
        {
            return false;
        }
        counters.increment(TransportCounter.READ_ATOMIC_EXCEEDED);
        remoteError(qp, psn, AethFlyweight.NAK_INVALID_REQUEST);
        return true;
    }

    /**
     * The first complete response to replay entry {@code entry} was just transmitted, its last frame handed over in
     * wire epoch {@code epoch} ({@link #tooManyReadAtomic}).
     */
    private void answered(final QpContext qp, final int entry, final long epoch)
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
    private void queueResponse(final QpContext qp, final int entry, final int startPacket)
    {
        final int firstPsn = qp.replay.firstPsn(entry);
        beforeQueueing(qp, Psn.add(firstPsn, startPacket));
        qp.responses.add(entry, firstPsn, startPacket);
        sendResponses(qp, nowNs, RnicEngine.SEND_BUDGET_PER_QP);
    }

    /**
     * Responses go in PSN order: with nothing queued, a deferred ACK for earlier requests goes first; behind queued
     * responses, one for earlier PSNs is implied by the response being queued (its AETH acknowledges them).
     */
    private void beforeQueueing(final QpContext qp, final int firstPsn)
    {
        if (qp.responses.isEmpty())
        {
            flushAcknowledge(qp);
        }
        else if (qp.ackPending && Psn.isBefore(qp.ackPendingPsn, firstPsn))
        {
            qp.ackPending = false;
        }
    }

    /**
     * Sends up to {@code budget} packets of the responses the QP owes, while the port has room and the QP's shaper
     * allows (DCQCN paces a QP's READ responses like its requests); then the ACK that waited behind them. Called
     * when a response is queued and by the engine's duty cycle. Returns the packets sent.
     */
    int sendResponses(final QpContext qp, final long nowNs, final int budget)
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
            flushAcknowledge(qp);
            if (qp.sequenceNakOwed)
            {
                qp.sequenceNakOwed = false;
                if (qp.nakSent) // still out of sequence: the expected PSN has not arrived since
                {
                    sendSequenceNak(qp);
                }
            }
        }
        return sent;
    }

    private void sendSequenceNak(final QpContext qp)
    {
        counters.increment(TransportCounter.SEQ_NAK_SENT);
        sendAcknowledge(qp, qp.ePsn, AethFlyweight.nakSyndrome(AethFlyweight.NAK_PSN_SEQUENCE_ERROR));
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
        if (payload > 0 && (region = regions.checkRemote(replay.rKey(entry), qp.pd, address, payload,
            AccessFlags.REMOTE_READ)) == null)
        {
            replay.answered(entry); // given up: it no longer counts against max_dest_rd_atomic
            queue.removeHead();
            remoteError(qp, Psn.add(replay.firstPsn(entry), i), AethFlyweight.NAK_REMOTE_ACCESS_ERROR);
            return false;
        }
        final FrameSpec spec = qp.frame.destinationQp(qp.destQpn).ackRequest(false).solicitedEvent(false);
        final UnsafeBuffer out = tx.buffer();
        final int operation = packets == 1 ? Opcode.RC_RDMA_READ_RESPONSE_ONLY : i == 0 ?
            Opcode.RC_RDMA_READ_RESPONSE_FIRST : i == packets - 1 ? Opcode.RC_RDMA_READ_RESPONSE_LAST :
            Opcode.RC_RDMA_READ_RESPONSE_MIDDLE;
        spec.opcode(operation).psn(Psn.add(replay.firstPsn(entry), i))
            .aeth(AethFlyweight.ackSyndrome(AethFlyweight.CREDITS_INVALID), replay.msn(entry));
        if (payload > 0)
        {
            out.putBytes(tx.payloadOffset(spec), region.buffer(), (int)region.offsetOf(address), payload);
        }
        final long epoch = wireEpoch(); // before the send: a port that pushes at once moves it past
        tx.send(spec, payload);
        if (i == packets - 1)
        {
            answered(qp, entry, epoch);
        }
        queue.headPacketSent(packets);
        return true;
    }

    private void atomic(final QpContext qp, final RocePacket packet, final DirectBuffer buffer, final int psn)
    {
        if (tooManyReadAtomic(qp, psn))
        {
            return;
        }
        atomicEth.wrapAt(buffer, packet.headerOffset(Opcode.ATOMIC_ETH));
        final long address = atomicEth.virtualAddress();
        if ((address & (Long.BYTES - 1)) != 0)
        {
            remoteError(qp, psn, AethFlyweight.NAK_INVALID_REQUEST);
            return;
        }
        final MemoryRegion region;
        if ((qp.accessFlags & AccessFlags.REMOTE_ATOMIC) == 0 || (region = regions.checkRemote(
            (int)atomicEth.rKey(), qp.pd, address, Long.BYTES, AccessFlags.REMOTE_ATOMIC)) == null)
        {
            remoteError(qp, psn, AethFlyweight.NAK_REMOTE_ACCESS_ERROR);
            return;
        }
        final UnsafeBuffer memory = region.buffer();
        final int index = (int)region.offsetOf(address);
        final long original;
        if (qp.responses.isFull())
        {
            counters.increment(TransportCounter.RESPONSE_QUEUE_FULL);
            return; // not executed, as if lost (the requester resends)
        }
        if (packet.opcode() == Opcode.RC_COMPARE_SWAP)
        {
            final long compare = atomicEth.compare();
            final long swap = atomicEth.swapOrAdd();
            long current;
            do
            {
                current = memory.getLongVolatile(index);
            }
            while (current == compare && !memory.compareAndSetLong(index, current, swap));
            original = current;
        }
        else
        {
            original = memory.getAndAddLong(index, atomicEth.swapOrAdd());
        }
        qp.msn = Psn.next(qp.msn);
        final int entry = qp.replay.recordAtomic(psn, original, qp.msn);
        qp.lastRequestOpcode = -1;
        qp.ePsn = Psn.next(psn);
        queueResponse(qp, entry, 0);
    }

    // ------------------------------------------------------------------------------------------------ SEND / WRITE

    /**
     * Places a SEND packet into the receive WQE. Returns false when the packet was not consumed (RNR, or an error
     * that was already answered and, for RC, moved the QP to ERR).
     */
    private boolean send(
        final QpContext qp, final RocePacket packet, final DirectBuffer buffer, final int psn, final boolean reliable)
    {
        final int opcode = packet.opcode();
        if (!qp.recvInProgress)
        {
            if (qp.rq.posted(qp.rqNext) == null)
            {
                if (reliable)
                {
                    counters.increment(TransportCounter.RNR_NAK_SENT);
                    sendAcknowledge(qp, psn, AethFlyweight.rnrNakSyndrome(qp.minRnrTimer));
                }
                else
                {
                    dropUcMessage(qp, opcode);
                }
                return false;
            }
            qp.recvInProgress = true;
            qp.recvOffset = 0;
        }
        final RecvWorkRequest wqe = qp.rq.posted(qp.rqNext);
        final int length = packet.payloadLength();
        if (qp.recvOffset + length > wqe.sgl.totalLength())
        {
            counters.increment(TransportCounter.LOCAL_LENGTH_ERROR);
            completions.failRecv(qp, WcStatus.LOC_LEN_ERR, WcOpcode.RECV);
            if (reliable)
            {
                counters.increment(TransportCounter.INVALID_REQUEST_NAK_SENT);
                sendAcknowledge(qp, psn, AethFlyweight.nakSyndrome(AethFlyweight.NAK_INVALID_REQUEST));
            }
            return false;
        }
        if (!memory.scatter(wqe.sgl, qp.pd, qp.recvOffset, buffer, packet.payloadOffset(), length))
        {
            counters.increment(TransportCounter.LOCAL_PROTECTION_ERROR);
            completions.failRecv(qp, WcStatus.LOC_PROT_ERR, WcOpcode.RECV);
            if (reliable)
            {
                counters.increment(TransportCounter.REMOTE_OPERATIONAL_NAK_SENT);
                sendAcknowledge(qp, psn, AethFlyweight.nakSyndrome(AethFlyweight.NAK_REMOTE_OPERATIONAL_ERROR));
            }
            return false;
        }
        qp.recvOffset += length;
        if (Opcode.has(opcode, Opcode.FLAG_LAST | Opcode.FLAG_ONLY))
        {
            int flags = 0;
            int immediate = 0;
            if (Opcode.hasHeader(opcode, Opcode.IMMDT))
            {
                immediate = immDt.wrapAt(buffer, packet.headerOffset(Opcode.IMMDT)).immediate();
                flags |= WorkCompletion.WITH_IMM;
            }
            else if (Opcode.hasHeader(opcode, Opcode.IETH))
            {
                immediate = (int)ieth.wrapAt(buffer, packet.headerOffset(Opcode.IETH)).rKey();
                flags |= WorkCompletion.WITH_INV;
            }
            completions.completeRecv(qp, WcStatus.SUCCESS, WcOpcode.RECV, (int)qp.recvOffset, immediate, 0, flags, 0);
            qp.msn = Psn.next(qp.msn);
        }
        return true;
    }

    /**
     * Places an RDMA WRITE packet. The RETH's R_Key is checked for the whole message on the first packet (a remote
     * access error before any byte is written), then again on every packet for exactly the bytes that packet
     * writes: only the R_Key is kept between packets, never the region, so a region deregistered in the middle of
     * the message is not written again (RC: remote access NAK, the QP to ERR, as rxe; UC: the message is dropped).
     */
    private boolean write(
        final QpContext qp, final RocePacket packet, final DirectBuffer buffer, final int psn, final boolean reliable)
    {
        final int opcode = packet.opcode();
        if (Opcode.hasHeader(opcode, Opcode.RETH))
        {
            reth.wrapAt(buffer, packet.headerOffset(Opcode.RETH));
            final long address = reth.virtualAddress();
            final long length = reth.dmaLength();
            final int rKey = (int)reth.rKey();
            if ((qp.accessFlags & AccessFlags.REMOTE_WRITE) == 0 || length != 0 &&
                regions.checkRemote(rKey, qp.pd, address, length, AccessFlags.REMOTE_WRITE) == null)
            {
                writeAccessError(qp, psn, opcode, reliable);
                return false;
            }
            qp.writeRKey = rKey;
            qp.writeAddress = address;
            qp.writeRemaining = length;
        }
        final int length = packet.payloadLength();
        final boolean last = Opcode.has(opcode, Opcode.FLAG_LAST | Opcode.FLAG_ONLY);
        if (length > qp.writeRemaining || last && length != qp.writeRemaining)
        {
            if (reliable)
            {
                remoteError(qp, psn, AethFlyweight.NAK_INVALID_REQUEST);
            }
            else
            {
                dropUcMessage(qp, opcode);
            }
            return false;
        }
        final boolean immediate = Opcode.hasHeader(opcode, Opcode.IMMDT);
        if (immediate && qp.rq.posted(qp.rqNext) == null)
        {
            if (reliable)
            {
                counters.increment(TransportCounter.RNR_NAK_SENT);
                sendAcknowledge(qp, psn, AethFlyweight.rnrNakSyndrome(qp.minRnrTimer));
            }
            else
            {
                dropUcMessage(qp, opcode);
            }
            return false;
        }
        if (length > 0)
        {
            final MemoryRegion region =
                regions.checkRemote(qp.writeRKey, qp.pd, qp.writeAddress, length, AccessFlags.REMOTE_WRITE);
            if (region == null)
            {
                writeAccessError(qp, psn, opcode, reliable); // deregistered since the message's first packet
                return false;
            }
            region.buffer().putBytes((int)region.offsetOf(qp.writeAddress), buffer, packet.payloadOffset(), length);
            qp.writeAddress += length;
            qp.writeRemaining -= length;
        }
        if (last)
        {
            if (immediate)
            {
                final int value = immDt.wrapAt(buffer, packet.headerOffset(Opcode.IMMDT)).immediate();
                completions.completeRecv(qp, WcStatus.SUCCESS, WcOpcode.RECV_RDMA_WITH_IMM, 0, value, 0,
                    WorkCompletion.WITH_IMM, 0);
            }
            qp.writeRKey = 0;
            qp.msn = Psn.next(qp.msn);
        }
        return true;
    }

    /** An RDMA WRITE its R_Key does not (or no longer) allow: RC NAKs it and errors the QP, UC drops the message. */
    private void writeAccessError(final QpContext qp, final int psn, final int opcode, final boolean reliable)
    {
        qp.writeRKey = 0;
        qp.writeRemaining = 0;
        if (reliable)
        {
            remoteError(qp, psn, AethFlyweight.NAK_REMOTE_ACCESS_ERROR);
        }
        else
        {
            dropUcMessage(qp, opcode);
        }
    }

    /** NAK with a class of error that ends the connection: the requester completes with it, we move to ERR. */
    private void remoteError(final QpContext qp, final int psn, final int nakCode)
    {
        switch (nakCode)
        {
            case AethFlyweight.NAK_REMOTE_ACCESS_ERROR -> counters.increment(TransportCounter.REMOTE_ACCESS_NAK_SENT);
            case AethFlyweight.NAK_INVALID_REQUEST -> counters.increment(TransportCounter.INVALID_REQUEST_NAK_SENT);
            default -> counters.increment(TransportCounter.REMOTE_OPERATIONAL_NAK_SENT);
        }
        sendAcknowledge(qp, psn, AethFlyweight.nakSyndrome(nakCode));
        completions.moveToError(qp);
    }

    /**
     * ACK coalescing: a positive ACK is sent once per QP per receive burst, for the last packet that asked for one
     * (an ACK acknowledges every PSN up to its own). Anything else the responder sends on the QP first flushes it,
     * so the requester sees responses in PSN order.
     */
    private void deferAcknowledge(final QpContext qp, final int psn)
    {
        if (!qp.ackPending)
        {
            if (pendingAckCount == pendingAcks.length)
            {
                pendingAcks = Arrays.copyOf(pendingAcks, pendingAckCount * 2); // grows with QPs, not packets
            }
            pendingAcks[pendingAckCount++] = qp;
            qp.ackPending = true;
        }
        qp.ackPendingPsn = psn;
    }

    /** Sends the ACKs deferred during the last receive burst; returns how many. */
    int flushAcknowledges()
    {
        final int count = pendingAckCount;
        for (int i = 0; i < count; i++)
        {
            final QpContext qp = pendingAcks[i];
            pendingAcks[i] = null;
            flushAcknowledge(qp);
        }
        pendingAckCount = 0;
        return count;
    }

    private void flushAcknowledge(final QpContext qp)
    {
        if (qp.ackPending && qp.responses.isEmpty()) // behind queued responses it waits for them (sendResponses)
        {
            qp.ackPending = false;
            final QpState state = qp.state;
            if (state == QpState.RTR || state == QpState.RTS || state == QpState.SQD || state == QpState.SQE)
            {
                counters.increment(TransportCounter.ACKS_SENT);
                sendFrameAcknowledge(qp, qp.ackPendingPsn, AethFlyweight.ackSyndrome(AethFlyweight.CREDITS_INVALID));
            }
        }
    }

    private void sendAcknowledge(final QpContext qp, final int psn, final int syndrome)
    {
        flushAcknowledge(qp);
        sendFrameAcknowledge(qp, psn, syndrome);
    }

    private void sendFrameAcknowledge(final QpContext qp, final int psn, final int syndrome)
    {
        final FrameSpec spec = qp.frame.destinationQp(qp.destQpn).ackRequest(false).solicitedEvent(false);
        spec.opcode(Opcode.RC_ACKNOWLEDGE).psn(psn).aeth(syndrome, qp.msn);
        tx.send(spec, 0);
    }

    private void sendAtomicAcknowledge(final QpContext qp, final int psn, final long original, final int msn)
    {
        final FrameSpec spec = qp.frame.destinationQp(qp.destQpn).ackRequest(false).solicitedEvent(false);
        spec.opcode(Opcode.RC_ATOMIC_ACKNOWLEDGE).psn(psn)
            .aeth(AethFlyweight.ackSyndrome(AethFlyweight.CREDITS_INVALID), msn)
            .atomicAckEth(original);
        tx.send(spec, 0);
    }

    // ------------------------------------------------------------------------------------------------ UC

    private void unreliable(final QpContext qp, final RocePacket packet, final DirectBuffer buffer)
    {
        final int psn = packet.psn();
        final int opcode = packet.opcode();
        final boolean starts = Opcode.has(opcode, Opcode.FLAG_FIRST | Opcode.FLAG_ONLY);
        if (psn != qp.ePsn)
        {
            counters.increment(TransportCounter.OUT_OF_SEQUENCE);
            abandonMessage(qp);
            if (!starts)
            {
                // A gap inside a message: the rest of it is dropped (IBTA 9.7.5.1.4 / C9-149).
                qp.ucDroppingMessage = true;
                counters.increment(TransportCounter.DROPPED_UC_MESSAGE);
                qp.ePsn = Psn.next(psn);
                return;
            }
        }
        qp.ePsn = Psn.next(psn);
        if (qp.ucDroppingMessage)
        {
            if (!starts)
            {
                return;
            }
            qp.ucDroppingMessage = false;
        }
        if (!sequenceAllowed(qp.lastRequestOpcode, opcode))
        {
            abandonMessage(qp);
            dropUcMessage(qp, opcode);
            return;
        }
        if (!fitsPathMtu(opcode, packet.payloadLength(), qp.mtuBytes))
        {
            counters.increment(TransportCounter.PACKET_LENGTH_ERROR);
            abandonMessage(qp);
            dropUcMessage(qp, opcode);
            return;
        }
        final boolean done = Opcode.has(opcode, Opcode.FLAG_SEND) ?
            send(qp, packet, buffer, psn, false) : write(qp, packet, buffer, psn, false);
        qp.lastRequestOpcode = done && Opcode.has(opcode, Opcode.FLAG_FIRST | Opcode.FLAG_MIDDLE) ? opcode : -1;
    }

    private void abandonMessage(final QpContext qp)
    {
        // A partly received SEND leaves its receive WQE for the next message, as ibverbs UC semantics say.
        qp.recvInProgress = false;
        qp.recvOffset = 0;
        qp.writeRKey = 0;
        qp.writeRemaining = 0;
        qp.lastRequestOpcode = -1;
    }

    private void dropUcMessage(final QpContext qp, final int opcode)
    {
        counters.increment(TransportCounter.DROPPED_UC_MESSAGE);
        qp.ucDroppingMessage = !Opcode.has(opcode, Opcode.FLAG_LAST | Opcode.FLAG_ONLY);
        qp.lastRequestOpcode = -1;
        qp.recvInProgress = false;
        qp.recvOffset = 0;
    }

    // ------------------------------------------------------------------------------------------------ UD

    private void datagram(final QpContext qp, final RocePacket packet, final DirectBuffer buffer)
    {
        deth.wrapAt(buffer, packet.headerOffset(Opcode.DETH));
        if (deth.qKey() != (qp.qkey & 0xFFFF_FFFFL))
        {
            counters.increment(TransportCounter.DROPPED_QKEY);
            return;
        }
        final int length = packet.payloadLength();
        if (length > qp.mtuBytes)
        {
            counters.increment(TransportCounter.PACKET_LENGTH_ERROR); // more than our requester would send either
            return;
        }
        final RecvWorkRequest wqe = qp.rq == null ? null : qp.rq.posted(qp.rqNext);
        if (wqe == null)
        {
            counters.increment(TransportCounter.DROPPED_NO_RECEIVE_WQE_UD);
            return;
        }
        final boolean ipv6 = packet.isIpv6();
        int flags = WorkCompletion.GRH;
        if (GRH_BYTES + length > wqe.sgl.totalLength())
        {
            counters.increment(TransportCounter.LOCAL_LENGTH_ERROR);
            completions.completeRecv(qp, WcStatus.LOC_LEN_ERR, WcOpcode.RECV, 0, 0, deth.sourceQp(), 0, 0);
            return;
        }
        // Annex A17.4.5.2: the IP header goes in the 40-byte GRH area; an IPv4 header in its second half.
        final boolean placed = ipv6 ?
            memory.scatter(wqe.sgl, qp.pd, 0, buffer, packet.ipOffset(), Ipv6Flyweight.LENGTH) :
            memory.scatter(wqe.sgl, qp.pd, GRH_BYTES - Ipv4Flyweight.LENGTH, buffer, packet.ipOffset(),
                Ipv4Flyweight.LENGTH);
        if (!placed || !memory.scatter(wqe.sgl, qp.pd, GRH_BYTES, buffer, packet.payloadOffset(), length))
        {
            counters.increment(TransportCounter.LOCAL_PROTECTION_ERROR);
            completions.completeRecv(qp, WcStatus.LOC_PROT_ERR, WcOpcode.RECV, 0, 0, deth.sourceQp(), 0, 0);
            return;
        }
        int immediate = 0;
        if (Opcode.hasHeader(packet.opcode(), Opcode.IMMDT))
        {
            immediate = immDt.wrapAt(buffer, packet.headerOffset(Opcode.IMMDT)).immediate();
            flags |= WorkCompletion.WITH_IMM;
        }
        completions.completeRecv(qp, WcStatus.SUCCESS, WcOpcode.RECV, GRH_BYTES + length, immediate,
            deth.sourceQp(), flags, ipv6 ? WorkCompletion.NETWORK_HDR_IPV6 : WorkCompletion.NETWORK_HDR_IPV4);
    }

    static final int GRH_BYTES = 40;
}
