package io.rnic.transport;

import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.MemoryRegion;
import io.rnic.verbs.MemoryRegionTable;
import io.rnic.verbs.RecvWorkRequest;
import io.rnic.verbs.WcOpcode;
import io.rnic.verbs.WcStatus;
import io.rnic.verbs.WorkCompletion;
import io.rnic.wire.IethFlyweight;
import io.rnic.wire.ImmDtFlyweight;
import io.rnic.wire.Opcode;
import io.rnic.wire.RethFlyweight;
import io.rnic.wire.RocePacket;
import org.agrona.DirectBuffer;

/**
 * Places SEND and RDMA WRITE packets (rxe's {@code send_data_in} and {@code write_data_in}) for RC and UC alike:
 * the two differ only in what a failure costs (RC NAKs it, UC drops the rest of the message), so placement reports
 * an outcome ({@link #PLACED} or why not) and {@link RcResponder} or {@link UcResponder} answers it. Engine thread
 * only.
 */
final class MessagePlacement
{
    /** The packet's bytes are in memory (and the message completed if it was the last). */
    static final int PLACED = 0;
    /** A SEND, or a WRITE with immediate, found no receive WQE posted (RC: RNR NAK). */
    static final int NO_RECEIVE_WQE = 1;
    /** A SEND overflows its receive WQE: completed in error, the QP in ERR (RC: invalid request NAK). */
    static final int LOCAL_LENGTH_ERROR = 2;
    /** A SEND's receive WQE points outside its regions: completed in error, the QP in ERR (RC: NAK). */
    static final int LOCAL_PROTECTION_ERROR = 3;
    /** A WRITE its R_Key does not (or no longer) allow; the message's R_Key is forgotten (RC: remote access NAK). */
    static final int ACCESS_ERROR = 4;
    /** A WRITE packet carrying more than its RETH announced, or a last packet less (RC: invalid request NAK). */
    static final int INVALID_LENGTH = 5;
    /**
     * A SEND_WITH_INV whose R_Key names no type 2B window this QP may invalidate: the receive completes with
     * REM_INV_REQ_ERR, the QP in ERR (rxe's {@code RESPST_ERR_INVALIDATE_RKEY}, class J; RC: invalid request NAK).
     */
    static final int INVALIDATE_ERROR = 6;

    private final LocalMemory memory;
    private final MemoryRegionTable regions;
    private final Completions completions;
    private final TransportCounters counters;
    private final RethFlyweight reth = new RethFlyweight();
    private final ImmDtFlyweight immDt = new ImmDtFlyweight();
    private final IethFlyweight ieth = new IethFlyweight();

    MessagePlacement(final LocalMemory memory, final Completions completions, final TransportCounters counters)
    {
        this.memory = memory;
        this.regions = memory.regions();
        this.completions = completions;
        this.counters = counters;
    }

    /** Places a SEND packet into the receive WQE; on its last packet completes the receive. */
    int send(final QpContext qp, final RocePacket packet, final DirectBuffer buffer)
    {
        final int opcode = packet.opcode();
        if (!qp.recvInProgress)
        {
            if (qp.recvWqe() == null)
            {
                return NO_RECEIVE_WQE;
            }
            qp.recvInProgress = true;
            qp.recvOffset = 0;
        }
        final RecvWorkRequest wqe = qp.recvWqe();
        final int length = packet.payloadLength();
        if (qp.recvOffset + length > wqe.sgl.totalLength())
        {
            counters.increment(TransportCounter.LOCAL_LENGTH_ERROR);
            completions.failRecv(qp, WcStatus.LOC_LEN_ERR, WcOpcode.RECV);
            return LOCAL_LENGTH_ERROR;
        }
        if (!memory.scatter(wqe.sgl, qp.pd, qp.recvOffset, buffer, packet.payloadOffset(), length))
        {
            counters.increment(TransportCounter.LOCAL_PROTECTION_ERROR);
            completions.failRecv(qp, WcStatus.LOC_PROT_ERR, WcOpcode.RECV);
            return LOCAL_PROTECTION_ERROR;
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
                // the window is invalid before the receive completes: an application that sees the completion
                // knows the peer can no longer reach the memory
                if (!regions.windows().invalidate(immediate, qp.pd, qp.qpn, true))
                {
                    counters.increment(TransportCounter.INVALIDATE_ERROR);
                    completions.failRecv(qp, WcStatus.REM_INV_REQ_ERR, WcOpcode.RECV);
                    return INVALIDATE_ERROR;
                }
            }
            completions.completeRecv(qp, WcStatus.SUCCESS, WcOpcode.RECV, (int)qp.recvOffset, immediate, 0, flags, 0);
            qp.msn = Psn.next(qp.msn);
        }
        return PLACED;
    }

    /**
     * Places an RDMA WRITE packet. The RETH's R_Key is checked for the whole message on the first packet (an access
     * error before any byte is written), then again on every packet for exactly the bytes that packet writes: only
     * the R_Key is kept between packets, never the region, so a region deregistered in the middle of the message is
     * not written again.
     */
    int write(final QpContext qp, final RocePacket packet, final DirectBuffer buffer)
    {
        final int opcode = packet.opcode();
        if (Opcode.hasHeader(opcode, Opcode.RETH))
        {
            reth.wrapAt(buffer, packet.headerOffset(Opcode.RETH));
            final long address = reth.virtualAddress();
            final long length = reth.dmaLength();
            final int rKey = (int)reth.rKey();
            if ((qp.accessFlags & AccessFlags.REMOTE_WRITE) == 0 || length != 0 &&
                regions.checkRemote(rKey, qp.pd, qp.qpn, address, length, AccessFlags.REMOTE_WRITE) == null)
            {
                return accessError(qp);
            }
            qp.writeRKey = rKey;
            qp.writeAddress = address;
            qp.writeRemaining = length;
        }
        final int length = packet.payloadLength();
        final boolean last = Opcode.has(opcode, Opcode.FLAG_LAST | Opcode.FLAG_ONLY);
        if (length > qp.writeRemaining || last && length != qp.writeRemaining)
        {
            return INVALID_LENGTH;
        }
        final boolean immediate = Opcode.hasHeader(opcode, Opcode.IMMDT);
        if (immediate && qp.recvWqe() == null)
        {
            return NO_RECEIVE_WQE;
        }
        if (length > 0)
        {
            final MemoryRegion region =
                regions.checkRemote(qp.writeRKey, qp.pd, qp.qpn, qp.writeAddress, length, AccessFlags.REMOTE_WRITE);
            if (region == null)
            {
                return accessError(qp); // deregistered since the message's first packet
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
        return PLACED;
    }

    private static int accessError(final QpContext qp)
    {
        qp.writeRKey = 0;
        qp.writeRemaining = 0;
        return ACCESS_ERROR;
    }
}
