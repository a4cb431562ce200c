package io.rnic.transport;

import io.rnic.cc.QpCongestion;
import io.rnic.verbs.MemoryWindowTable;
import io.rnic.verbs.QpState;
import io.rnic.verbs.QpType;
import io.rnic.verbs.SendFlags;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.WcStatus;
import io.rnic.verbs.WrOpcode;
import io.rnic.wire.FethFlyweight;
import io.rnic.wire.FrameSpec;
import io.rnic.wire.Opcode;
import org.agrona.concurrent.NanoClock;

/**
 * The requester (rxe's {@code rxe_req.c}): turns send work requests into packets. Segments SEND and RDMA WRITE by
 * path MTU with FIRST/MIDDLE/LAST/ONLY opcodes, assigns PSNs (an RDMA READ request takes one PSN per response
 * packet), asks for an ACK on the last packet and every {@value QpContext#PACKETS_PER_ACK_REQUEST} packets, keeps
 * the number of unacknowledged packets within the window and READ/atomic requests within max_rd_atomic, and
 * restarts from any PSN when the completer asks for a retransmission (go-back-N). The IBTA 1.5 ATOMIC WRITE and
 * FLUSH go out as one packet each, with the headers rxe's {@code rxe_req.c} gives them.
 */
final class Requester
{
    private final TransmitPath tx;
    private final LocalMemory memory;
    private final Completions completions;
    private final TransportCounters counters;
    private final LocalPort port;
    private final NanoClock clock;
    private final FrameSpec udSpec = new FrameSpec();

    /**
     * @param clock read when a packet has been handed to the port and the local ACK timer starts (see
     *              {@link #advance}).
     */
    Requester(
        final TransmitPath tx,
        final LocalMemory memory,
        final Completions completions,
        final TransportCounters counters,
        final LocalPort port,
        final NanoClock clock)
    {
        this.tx = tx;
        this.memory = memory;
        this.completions = completions;
        this.counters = counters;
        this.port = port;
        this.clock = clock;
    }

    /** Sends up to {@code budget} packets of the QP's posted work; returns how many it sent. */
    int process(final QpContext qp, final long nowNs, final int budget)
    {
        int sent = 0;
        while (sent < budget)
        {
            final QpState state = qp.state;
            if ((state != QpState.RTS && !(state == QpState.SQD && qp.reqWqeStarted)) || qp.rnrResumeNs != 0)
            {
                break;
            }
            final SendWorkRequest wqe = qp.sq.postedSend(qp.sqNext);
            if (wqe == null)
            {
                break;
            }
            if (!qp.reqWqeStarted && !start(qp, wqe))
            {
                break;
            }
            if (qp.type == QpType.RC && Psn.distance(qp.compPsn, qp.reqPsn) >= qp.windowPackets)
            {
                break;
            }
            final QpCongestion congestion = qp.congestion;
            if (congestion != null && !congestion.mayTransmit(nowNs))
            {
                break; // paced by DCQCN: this QP waits for its shaper, the others go on
            }
            if (!tx.hasRoom())
            {
                counters.increment(TransportCounter.TX_QUEUE_FULL);
                break; // the port's transmit queue is full: wait for it rather than lose the packet
            }
            if (!sendPacket(qp, wqe))
            {
                break;
            }
            if (congestion != null)
            {
                congestion.onTransmitted(tx.lastFrameBytes(), nowNs);
            }
            sent++;
        }
        return sent;
    }

    /**
     * A bind or a local invalidation (rxe's {@code rxe_do_local_ops}): run on the window once every earlier work
     * request has completed (what they send or read through the window goes first), then completed at once, without
     * a packet. A refused bind completes with MW_BIND_ERR, a refused LOCAL_INV with LOC_QP_OP_ERR, and the QP goes to
     * ERR, as rxe's do.
     */
    private void localOperation(final QpContext qp, final SendWorkRequest wqe)
    {
        if (!WrOpcode.isSupportedBy(qp.type, wqe.opcode))
        {
            fail(qp, WcStatus.LOC_QP_OP_ERR);
            return;
        }
        if (qp.sqOldest != qp.sqNext)
        {
            return; // earlier work requests are not complete yet
        }
        final MemoryWindowTable windows = memory.regions().windows();
        if (wqe.opcode == WrOpcode.BIND_MW)
        {
            if (!windows.bind(qp.pd, qp.qpn, wqe))
            {
                counters.increment(TransportCounter.LOCAL_PROTECTION_ERROR);
                fail(qp, WcStatus.MW_BIND_ERR);
                return;
            }
        }
        else if (!windows.invalidate(wqe.immediateOrInvalidateRKey, qp.pd, qp.qpn, false))
        {
            counters.increment(TransportCounter.LOCAL_PROTECTION_ERROR);
            fail(qp, WcStatus.LOC_QP_OP_ERR);
            return;
        }
        qp.wqeFullySent[qp.slot(qp.sqNext)] = false; // no PSN of its own: completing it leaves the PSNs alone
        completions.completeOldestSend(qp, WcStatus.SUCCESS, 0);
    }

    /** Checks a WQE before its first packet; false when it must wait or has failed (QP then in ERR). */
    private boolean start(final QpContext qp, final SendWorkRequest wqe)
    {
        final int opcode = wqe.opcode;
        if (WrOpcode.isLocalOperation(opcode))
        {
            localOperation(qp, wqe);
            return false; // done without a packet, or waiting, or failed: the next visit goes on
        }
        if (!WrOpcode.isSupportedBy(qp.type, opcode))
        {
            fail(qp, WcStatus.LOC_QP_OP_ERR);
            return false;
        }
        final boolean readOrAtomic = isReadOrAtomic(opcode);
        if (readOrAtomic && qp.outstandingReadAtomic >= Math.max(1, qp.maxReadAtomic))
        {
            return false; // wait for a READ/atomic to complete
        }
        if ((wqe.sendFlags & SendFlags.FENCE) != 0 && qp.outstandingReadAtomic > 0)
        {
            return false;
        }
        if (opcode == WrOpcode.FLUSH && (!FethFlyweight.isValidPlacementType(wqe.flushPlacementType) ||
            !FethFlyweight.isValidSelectivityLevel(wqe.flushSelectivityLevel)))
        {
            fail(qp, WcStatus.LOC_QP_OP_ERR);
            return false;
        }
        final long total = wqe.sgl.totalLength();
        final boolean atomic = opcode == WrOpcode.ATOMIC_CMP_AND_SWP || opcode == WrOpcode.ATOMIC_FETCH_AND_ADD ||
            opcode == WrOpcode.ATOMIC_WRITE;
        if ((atomic && total != Long.BYTES) || (qp.type == QpType.UD && total > qp.mtuBytes) || total > Integer.MAX_VALUE)
        {
            counters.increment(TransportCounter.LOCAL_LENGTH_ERROR);
            fail(qp, WcStatus.LOC_LEN_ERR);
            return false;
        }
        if (!memory.check(wqe.sgl, qp.pd, readOrAtomic))
        {
            counters.increment(TransportCounter.LOCAL_PROTECTION_ERROR);
            fail(qp, WcStatus.LOC_PROT_ERR);
            return false;
        }
        final int slot = qp.slot(qp.sqNext);
        qp.wqeFirstPsn[slot] = qp.reqPsn;
        if (qp.sqNext >= qp.sqSentEnd)
        {
            qp.wqeFullySent[slot] = false;
        }
        qp.reqOffset = 0;
        qp.reqWqeStarted = true;
        if (readOrAtomic)
        {
            qp.outstandingReadAtomic++;
        }
        return true;
    }

    private boolean sendPacket(final QpContext qp, final SendWorkRequest wqe)
    {
        final FrameSpec spec = specFor(qp, wqe);
        final int opcode = wqe.opcode;
        final long total = wqe.sgl.totalLength();
        final boolean retransmit = Psn.isBefore(qp.reqPsn, qp.highestSentPsnPlusOne);
        spec.psn(qp.reqPsn).solicitedEvent(false).ackRequest(false);

        final int transport = qp.transport();
        if (opcode == WrOpcode.RDMA_READ)
        {
            final long remaining = total - qp.reqOffset;
            final int packets = (int)Math.max(1, (remaining + qp.mtuBytes - 1) / qp.mtuBytes);
            spec.opcode(Opcode.RC_RDMA_READ_REQUEST).ackRequest(true)
                .reth(wqe.remoteAddress + qp.reqOffset, wqe.rKey & 0xFFFF_FFFFL, remaining);
            tx.send(spec, 0);
            advance(qp, packets, retransmit);
            qp.reqOffset = total;
            finish(qp, total);
            return true;
        }
        if (opcode == WrOpcode.ATOMIC_CMP_AND_SWP || opcode == WrOpcode.ATOMIC_FETCH_AND_ADD)
        {
            final boolean swap = opcode == WrOpcode.ATOMIC_CMP_AND_SWP;
            spec.opcode(swap ? Opcode.RC_COMPARE_SWAP : Opcode.RC_FETCH_ADD).ackRequest(true)
                .atomicEth(wqe.remoteAddress, wqe.rKey & 0xFFFF_FFFFL, swap ? wqe.swap : wqe.compareAdd,
                    swap ? wqe.compareAdd : 0);
            tx.send(spec, 0);
            advance(qp, 1, retransmit);
            qp.reqOffset = total;
            finish(qp, total);
            return true;
        }
        if (opcode == WrOpcode.ATOMIC_WRITE)
        {
            // rxe's IB_OPCODE_RC_ATOMIC_WRITE: a RETH for exactly 8 bytes, the 8 bytes gathered as the payload
            spec.opcode(Opcode.RC_ATOMIC_WRITE).ackRequest(true)
                .reth(wqe.remoteAddress, wqe.rKey & 0xFFFF_FFFFL, Long.BYTES);
            if (!memory.gather(wqe.sgl, qp.pd, 0, tx.buffer(), tx.payloadOffset(spec), Long.BYTES))
            {
                counters.increment(TransportCounter.LOCAL_PROTECTION_ERROR);
                fail(qp, WcStatus.LOC_PROT_ERR);
                return false;
            }
            tx.send(spec, Long.BYTES);
            advance(qp, 1, retransmit);
            qp.reqOffset = total;
            finish(qp, total);
            return true;
        }
        if (opcode == WrOpcode.FLUSH)
        {
            // rxe's IB_OPCODE_RC_FLUSH: FETH then RETH (the range; its length is the flush length), no payload
            spec.opcode(Opcode.RC_FLUSH).ackRequest(true)
                .feth(wqe.flushPlacementType, wqe.flushSelectivityLevel)
                .reth(wqe.remoteAddress, wqe.rKey & 0xFFFF_FFFFL, wqe.flushLength & 0xFFFF_FFFFL);
            tx.send(spec, 0);
            advance(qp, 1, retransmit);
            qp.reqOffset = total;
            finish(qp, total);
            return true;
        }

        final long remaining = total - qp.reqOffset;
        final boolean first = qp.reqOffset == 0;
        final boolean last = remaining <= qp.mtuBytes;
        final int payload = (int)Math.min(remaining, qp.mtuBytes);
        final boolean write = opcode == WrOpcode.RDMA_WRITE || opcode == WrOpcode.RDMA_WRITE_WITH_IMM;
        final boolean immediate = opcode == WrOpcode.RDMA_WRITE_WITH_IMM || opcode == WrOpcode.SEND_WITH_IMM;
        final int operation;
        if (write)
        {
            operation = first ? (last ? (immediate ? Opcode.RDMA_WRITE_ONLY_WITH_IMMEDIATE : Opcode.RDMA_WRITE_ONLY) :
                Opcode.RDMA_WRITE_FIRST) : (last ? (immediate ? Opcode.RDMA_WRITE_LAST_WITH_IMMEDIATE :
                Opcode.RDMA_WRITE_LAST) : Opcode.RDMA_WRITE_MIDDLE);
            if (first)
            {
                spec.reth(wqe.remoteAddress, wqe.rKey & 0xFFFF_FFFFL, total);
            }
        }
        else if (opcode == WrOpcode.SEND_WITH_INV)
        {
            operation = first ? (last ? Opcode.SEND_ONLY_WITH_INVALIDATE : Opcode.SEND_FIRST) :
                (last ? Opcode.SEND_LAST_WITH_INVALIDATE : Opcode.SEND_MIDDLE);
            spec.ieth(wqe.immediateOrInvalidateRKey & 0xFFFF_FFFFL);
        }
        else
        {
            operation = first ? (last ? (immediate ? Opcode.SEND_ONLY_WITH_IMMEDIATE : Opcode.SEND_ONLY) :
                Opcode.SEND_FIRST) : (last ? (immediate ? Opcode.SEND_LAST_WITH_IMMEDIATE : Opcode.SEND_LAST) :
                Opcode.SEND_MIDDLE);
        }
        if (immediate)
        {
            spec.immediate(wqe.immediateOrInvalidateRKey);
        }
        spec.opcode(transport | operation);
        if (last && !write || last && immediate)
        {
            spec.solicitedEvent((wqe.sendFlags & SendFlags.SOLICITED) != 0);
        }
        if (qp.type == QpType.RC && (last || ++qp.packetsSinceAckRequest >= QpContext.PACKETS_PER_ACK_REQUEST))
        {
            spec.ackRequest(true);
            qp.packetsSinceAckRequest = 0;
        }

        if (!tx.sendFrom(spec, memory, wqe.sgl, qp.pd, qp.reqOffset, payload))
        {
            counters.increment(TransportCounter.LOCAL_PROTECTION_ERROR);
            fail(qp, WcStatus.LOC_PROT_ERR);
            return false;
        }
        advance(qp, 1, retransmit);
        qp.reqOffset += payload;
        if (last)
        {
            finish(qp, total);
        }
        return true;
    }

    /**
     * Moves past the packet just handed to the port and, when none was outstanding, starts the local ACK timer. The
     * timer counts from now, after the packet left, as rxe's {@code retrans_timer} starts after the transmit: not
     * from the duty cycle's clock reading, which may be long before. A JVM builds its first packets in code it has
     * not run yet (the Vector API's ICRC set-up took 44 to 600 ms, measured on a veth), and a thread may be preempted
     * between the reading and the send; counted from the reading, the timer then expires before the peer could
     * answer and a clean link shows a retransmission.
     */
    private void advance(final QpContext qp, final int psns, final boolean retransmit)
    {
        if (retransmit)
        {
            counters.increment(TransportCounter.RETRANSMITTED_PACKETS);
            qp.retransmittedPackets++;
        }
        qp.reqPsn = Psn.add(qp.reqPsn, psns);
        if (Psn.isAfter(qp.reqPsn, qp.highestSentPsnPlusOne))
        {
            qp.highestSentPsnPlusOne = qp.reqPsn;
        }
        if (qp.type == QpType.RC && qp.retransmitDeadlineNs == 0)
        {
            final long timeoutNs = Timeouts.localAckTimeoutNs(qp.timeoutCode);
            if (timeoutNs > 0)
            {
                qp.retransmitDeadlineNs = clock.nanoTime() + timeoutNs;
            }
        }
    }

    private void finish(final QpContext qp, final long total)
    {
        final int slot = qp.slot(qp.sqNext);
        qp.wqeLastPsn[slot] = Psn.add(qp.reqPsn, -1);
        qp.wqeFullySent[slot] = true;
        qp.reqWqeStarted = false;
        qp.reqOffset = 0;
        qp.sqNext++;
        if (qp.sqNext > qp.sqSentEnd)
        {
            qp.sqSentEnd = qp.sqNext;
        }
        if (qp.type != QpType.RC)
        {
            // UC and UD are complete once on the wire: no acknowledgement will come.
            completions.completeOldestSend(qp, WcStatus.SUCCESS, (int)total);
        }
    }

    private FrameSpec specFor(final QpContext qp, final SendWorkRequest wqe)
    {
        if (qp.type != QpType.UD)
        {
            return qp.frame.destinationQp(qp.destQpn);
        }
        Addressing.apply(udSpec, wqe.udAddress, port, qp.qpn, wqe.udRemoteQpn, qp.ecn());
        final long qkey = wqe.udRemoteQkey < 0 ? qp.qkey : wqe.udRemoteQkey; // controlled Q_Key: use the QP's
        return udSpec.deth(qkey & 0xFFFF_FFFFL, qp.qpn).destinationQp(wqe.udRemoteQpn);
    }

    /**
     * Go-back-N: the next packet sent is the one with {@code psn}, in whichever WQE holds it, from the right byte
     * offset (a READ is re-requested for its remaining part, as rxe does).
     */
    void rewind(final QpContext qp, final int requestedPsn)
    {
        // Never before the first unacknowledged PSN: what is acknowledged is done.
        final int psn = Psn.isBefore(requestedPsn, qp.compPsn) ? qp.compPsn : requestedPsn;
        long position = qp.sqOldest;
        int outstandingReadAtomic = 0;
        while (position < qp.sqSentEnd)
        {
            final int slot = qp.slot(position);
            if (!Psn.isAfter(psn, qp.wqeLastPsn[slot]))
            {
                break;
            }
            if (isReadOrAtomic(qp.sq.postedSend(position).opcode))
            {
                outstandingReadAtomic++;
            }
            position++;
        }
        final SendWorkRequest wqe = qp.sq.postedSend(position);
        if (wqe == null)
        {
            return; // nothing sent from there on: nothing to resend
        }
        final int slot = qp.slot(position);
        // The WQE the requester is about to start again (go-back-N resent everything before it) while PSNs of it,
        // sent before the rewind, are now acknowledged: it starts at the requester's PSN (its recorded first PSN is
        // the same, or stale from an earlier lap of the ring) and resumes at the acknowledged point. Left where it
        // was, the requester would sit behind the acknowledged PSN, the window check would read that as a full
        // window, and with nothing outstanding no timer would ever move it (seen under load on a veth).
        final boolean resumeUnstarted = position == qp.sqNext && !qp.reqWqeStarted && Psn.isAfter(psn, qp.reqPsn);
        if (resumeUnstarted)
        {
            qp.wqeFirstPsn[slot] = qp.reqPsn;
        }
        final int first = qp.wqeFirstPsn[slot];
        final long offset = isSinglePacket(wqe.opcode) ? 0 : (long)Psn.distance(first, psn) * qp.mtuBytes;
        if (position < qp.sqSentEnd || position == qp.sqNext && (qp.reqWqeStarted || resumeUnstarted))
        {
            qp.sqNext = position;
            qp.reqWqeStarted = true;
            qp.reqOffset = Math.min(offset, wqe.sgl.totalLength());
            qp.reqPsn = isSinglePacket(wqe.opcode) ? first : psn;
            qp.outstandingReadAtomic = outstandingReadAtomic + (isReadOrAtomic(wqe.opcode) ? 1 : 0);
            qp.packetsSinceAckRequest = 0;
        }
    }

    private void fail(final QpContext qp, final WcStatus status)
    {
        qp.errorPosition = qp.sqNext;
        qp.errorStatus = status;
        completions.moveToError(qp);
    }

    static boolean isReadOrAtomic(final int opcode)
    {
        return opcode == WrOpcode.RDMA_READ || isAtomic(opcode);
    }

    static boolean isAtomic(final int opcode)
    {
        return opcode == WrOpcode.ATOMIC_CMP_AND_SWP || opcode == WrOpcode.ATOMIC_FETCH_AND_ADD;
    }

    /**
     * IBTA 1.5 ATOMIC WRITE and FLUSH: one packet each, answered by an RDMA READ RESPONSE ONLY of zero length. Like
     * rxe's requester (its {@code WR_ATOMIC_OR_READ_MASK} leaves them out), they take no max_rd_atomic credit, and
     * like a WRITE they are also completed by an ACK of a later PSN (the responder executes in order).
     */
    static boolean isAtomicWriteOrFlush(final int opcode)
    {
        return opcode == WrOpcode.ATOMIC_WRITE || opcode == WrOpcode.FLUSH;
    }

    private static boolean isSinglePacket(final int opcode)
    {
        return isAtomic(opcode) || isAtomicWriteOrFlush(opcode);
    }
}
