package io.rnic.transport;

import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.MemoryRegion;
import io.rnic.verbs.MemoryRegionTable;
import io.rnic.wire.AethFlyweight;
import io.rnic.wire.AtomicEthFlyweight;
import io.rnic.wire.FethFlyweight;
import io.rnic.wire.Opcode;
import io.rnic.wire.RethFlyweight;
import io.rnic.wire.RocePacket;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Executes the requests of RC QPs, rxe's {@code rxe_resp.c} steps for RC: the PSN check (expected: execute;
 * duplicate: re-acknowledge, re-read, or answer an atomic from the replay cache; out of sequence: one NAK until the
 * expected PSN arrives), the FIRST/MIDDLE/LAST sequence and length, max_dest_rd_atomic, the R_Key, protection
 * domain, bounds and access check of READ and atomics before any byte is touched, SEND and WRITE through
 * {@link MessagePlacement}, the IBTA 1.5 ATOMIC WRITE and FLUSH as rxe's {@code atomic_write_reply} and
 * {@code process_flush}, and the NAK each failure is owed. Responses go out through the {@link ResponsePacer},
 * ACKs and NAKs through the {@link AcknowledgeCoalescer}. Engine thread only.
 */
final class RcResponder
{
    private final MemoryRegionTable regions;
    private final MessagePlacement placement;
    private final ResponsePacer pacer;
    private final AcknowledgeCoalescer acknowledges;
    private final TransportCounters counters;
    private final RethFlyweight reth = new RethFlyweight();
    private final AtomicEthFlyweight atomicEth = new AtomicEthFlyweight();
    private final FethFlyweight feth = new FethFlyweight();

    RcResponder(
        final MemoryRegionTable regions,
        final MessagePlacement placement,
        final ResponsePacer pacer,
        final AcknowledgeCoalescer acknowledges,
        final TransportCounters counters)
    {
        this.regions = regions;
        this.placement = placement;
        this.pacer = pacer;
        this.acknowledges = acknowledges;
        this.counters = counters;
    }

    void onRequest(final QpContext qp, final RocePacket packet, final DirectBuffer buffer, final long nowNs)
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
                    acknowledges.sequenceNak(qp);
                }
                else
                {
                    // a NAK now would overtake the READ responses still queued and make the requester resend
                    // those READs too: it follows them (ResponsePacer.send)
                    qp.sequenceNakOwed = true;
                }
            }
            return;
        }
        if (distance < 0)
        {
            counters.increment(TransportCounter.DUPLICATE_REQUEST);
            duplicate(qp, packet, psn, nowNs);
            return;
        }
        final int opcode = packet.opcode();
        if (!Responder.sequenceAllowed(qp.lastRequestOpcode, opcode))
        {
            acknowledges.remoteError(qp, psn, AethFlyweight.NAK_INVALID_REQUEST);
            return;
        }
        if (!Responder.fitsPathMtu(opcode, packet.payloadLength(), qp.mtuBytes))
        {
            counters.increment(TransportCounter.PACKET_LENGTH_ERROR);
            acknowledges.remoteError(qp, psn, AethFlyweight.NAK_INVALID_REQUEST);
            return;
        }
        qp.nakSent = false;
        final int outcome;
        if (Opcode.has(opcode, Opcode.FLAG_SEND))
        {
            outcome = placement.send(qp, packet, buffer);
        }
        else if (Opcode.has(opcode, Opcode.FLAG_WRITE))
        {
            outcome = placement.write(qp, packet, buffer);
        }
        else if (Opcode.has(opcode, Opcode.FLAG_READ))
        {
            read(qp, packet, buffer, psn, nowNs);
            return;
        }
        else if (Opcode.has(opcode, Opcode.FLAG_ATOMIC_WRITE))
        {
            atomicWrite(qp, packet, buffer, psn, nowNs);
            return;
        }
        else if (Opcode.has(opcode, Opcode.FLAG_FLUSH))
        {
            flush(qp, packet, buffer, psn, nowNs);
            return;
        }
        else
        {
            atomic(qp, packet, buffer, psn, nowNs);
            return;
        }
        if (outcome != MessagePlacement.PLACED)
        {
            nakPlacement(qp, psn, outcome);
            return;
        }
        qp.lastRequestOpcode = Opcode.has(opcode, Opcode.FLAG_FIRST | Opcode.FLAG_MIDDLE) ? opcode : -1;
        qp.ePsn = Psn.next(psn);
        if (packet.ackRequest())
        {
            acknowledges.defer(qp, psn);
        }
    }

    /** The NAK a SEND or WRITE that could not be placed is owed (the QP is left in ERR but for an RNR NAK). */
    private void nakPlacement(final QpContext qp, final int psn, final int outcome)
    {
        switch (outcome)
        {
            case MessagePlacement.NO_RECEIVE_WQE ->
            {
                counters.increment(TransportCounter.RNR_NAK_SENT);
                acknowledges.send(qp, psn, AethFlyweight.rnrNakSyndrome(qp.minRnrTimer));
            }
            case MessagePlacement.LOCAL_LENGTH_ERROR ->
            {
                counters.increment(TransportCounter.INVALID_REQUEST_NAK_SENT); // the receive already moved to ERR
                acknowledges.send(qp, psn, AethFlyweight.nakSyndrome(AethFlyweight.NAK_INVALID_REQUEST));
            }
            case MessagePlacement.LOCAL_PROTECTION_ERROR ->
            {
                counters.increment(TransportCounter.REMOTE_OPERATIONAL_NAK_SENT);
                acknowledges.send(qp, psn, AethFlyweight.nakSyndrome(AethFlyweight.NAK_REMOTE_OPERATIONAL_ERROR));
            }
            case MessagePlacement.ACCESS_ERROR ->
                acknowledges.remoteError(qp, psn, AethFlyweight.NAK_REMOTE_ACCESS_ERROR);
            case MessagePlacement.INVALIDATE_ERROR ->
            {
                counters.increment(TransportCounter.INVALID_REQUEST_NAK_SENT); // the receive already moved to ERR
                acknowledges.send(qp, psn, AethFlyweight.nakSyndrome(AethFlyweight.NAK_INVALID_REQUEST));
            }
            default -> acknowledges.remoteError(qp, psn, AethFlyweight.NAK_INVALID_REQUEST);
        }
    }

    private void duplicate(final QpContext qp, final RocePacket packet, final int psn, final long nowNs)
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
                pacer.queue(qp, entry, Psn.compare(psn, qp.replay.firstPsn(entry)), nowNs);
            }
            return;
        }
        if (Opcode.has(opcode, Opcode.FLAG_ATOMIC_WRITE | Opcode.FLAG_FLUSH))
        {
            // oA19-14/15 and rxe: answered again, never executed again (a second ATOMIC WRITE could undo a newer one)
            final int entry = qp.replay.find(psn);
            if (entry >= 0 && qp.replay.kind(entry) == ReplayCache.KIND_EMPTY_READ_RESPONSE &&
                qp.replay.firstPsn(entry) == psn && !qp.responses.isFull())
            {
                pacer.queue(qp, entry, 0, nowNs);
            }
            return;
        }
        if (Opcode.has(opcode, Opcode.FLAG_ATOMIC))
        {
            final int entry = qp.replay.find(psn);
            if (entry >= 0 && qp.replay.kind(entry) == ReplayCache.KIND_ATOMIC && qp.replay.firstPsn(entry) == psn &&
                !qp.responses.isFull())
            {
                pacer.queue(qp, entry, 0, nowNs);
            }
            return;
        }
        // A duplicate SEND or WRITE is acknowledged whether or not it asked (C9-105; rxe does the same): the
        // requester resends after losing our ACK or a packet past it, and a burst of resent MIDDLE packets carries
        // no AckReq. Left unanswered, it would resend the same burst on every timeout — and when its new packets
        // are the ones a full receive ring drops, until its retry count runs out. Coalesced: one ACK per burst.
        acknowledges.defer(qp, Psn.add(qp.ePsn, -1));
    }

    private void read(
        final QpContext qp, final RocePacket packet, final DirectBuffer buffer, final int psn, final long nowNs)
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
            length != 0 && (region = regions.checkRemote(rKey, qp.pd, qp.qpn, address, length, AccessFlags.REMOTE_READ)) == null)
        {
            acknowledges.remoteError(qp, psn, AethFlyweight.NAK_REMOTE_ACCESS_ERROR);
            return;
        }
        final int packets = (int)Math.max(1, (length + qp.mtuBytes - 1) / qp.mtuBytes);
        qp.msn = Psn.next(qp.msn);
        final int entry = qp.replay.recordRead(psn, packets, address, rKey, length, qp.msn);
        qp.lastRequestOpcode = -1;
        qp.ePsn = Psn.add(psn, packets);
        pacer.queue(qp, entry, 0, nowNs);
    }

    /**
     * max_dest_rd_atomic: a new READ or atomic beyond the number the QP accepts at once
     * ({@link ResponsePacer#outstandingReadAtomic}) is answered with an invalid request NAK, and the QP goes to ERR
     * (rxe's {@code RESPST_ERR_TOO_MANY_RDMA_ATM_REQ}); a requester keeping to its max_rd_atomic is never refused.
     * Returns true (and has answered) when the request is refused.
     */
    private boolean tooManyReadAtomic(final QpContext qp, final int psn)
    {
        if (pacer.outstandingReadAtomic(qp) < qp.maxDestReadAtomic)
        {
            return false;
        }
        counters.increment(TransportCounter.READ_ATOMIC_EXCEEDED);
        acknowledges.remoteError(qp, psn, AethFlyweight.NAK_INVALID_REQUEST);
        return true;
    }

    private void atomic(
        final QpContext qp, final RocePacket packet, final DirectBuffer buffer, final int psn, final long nowNs)
    {
        if (tooManyReadAtomic(qp, psn))
        {
            return;
        }
        atomicEth.wrapAt(buffer, packet.headerOffset(Opcode.ATOMIC_ETH));
        final long address = atomicEth.virtualAddress();
        if ((address & (Long.BYTES - 1)) != 0)
        {
            acknowledges.remoteError(qp, psn, AethFlyweight.NAK_INVALID_REQUEST);
            return;
        }
        final MemoryRegion region;
        if ((qp.accessFlags & AccessFlags.REMOTE_ATOMIC) == 0 || (region = regions.checkRemote(
            (int)atomicEth.rKey(), qp.pd, qp.qpn, address, Long.BYTES, AccessFlags.REMOTE_ATOMIC)) == null)
        {
            acknowledges.remoteError(qp, psn, AethFlyweight.NAK_REMOTE_ACCESS_ERROR);
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
        pacer.queue(qp, entry, 0, nowNs);
    }

    /**
     * IBTA 1.5 ATOMIC WRITE, as rxe's {@code atomic_write_reply}: 8 bytes written at once (one aligned 64-bit store,
     * so no reader sees half of it), after every earlier request (placement here is synchronous and in PSN order),
     * answered with an RDMA READ RESPONSE ONLY of zero length. The QP and the region must allow remote write, as rxe
     * checks (not remote atomic); the RETH must ask for exactly the 8 bytes the packet carries; the target must be
     * 8-byte aligned in memory (rxe's {@code RESPST_ERR_MISALIGNED_ATOMIC}: an invalid request NAK).
     */
    private void atomicWrite(
        final QpContext qp, final RocePacket packet, final DirectBuffer buffer, final int psn, final long nowNs)
    {
        if (qp.maxDestReadAtomic <= 0)
        {
            counters.increment(TransportCounter.READ_ATOMIC_EXCEEDED); // rxe's RESPST_ERR_TOO_MANY_RDMA_ATM_REQ
            acknowledges.remoteError(qp, psn, AethFlyweight.NAK_INVALID_REQUEST);
            return;
        }
        reth.wrapAt(buffer, packet.headerOffset(Opcode.RETH));
        if (packet.payloadLength() != Long.BYTES || reth.dmaLength() != Long.BYTES)
        {
            counters.increment(TransportCounter.PACKET_LENGTH_ERROR);
            acknowledges.remoteError(qp, psn, AethFlyweight.NAK_INVALID_REQUEST);
            return;
        }
        final long address = reth.virtualAddress();
        final MemoryRegion region;
        if ((qp.accessFlags & AccessFlags.REMOTE_WRITE) == 0 || (region = regions.checkRemote(
            (int)reth.rKey(), qp.pd, qp.qpn, address, Long.BYTES, AccessFlags.REMOTE_WRITE)) == null)
        {
            acknowledges.remoteError(qp, psn, AethFlyweight.NAK_REMOTE_ACCESS_ERROR);
            return;
        }
        final UnsafeBuffer memory = region.buffer();
        final int index = (int)region.offsetOf(address);
        if (((memory.addressOffset() + index) & (Long.BYTES - 1)) != 0)
        {
            acknowledges.remoteError(qp, psn, AethFlyweight.NAK_INVALID_REQUEST);
            return;
        }
        if (qp.responses.isFull())
        {
            counters.increment(TransportCounter.RESPONSE_QUEUE_FULL);
            return; // not executed, as if lost (the requester resends)
        }
        // The payload's bytes land as they are (rxe copies them to a u64 and stores it): read and stored in the same
        // byte order, in one release store.
        memory.putLongRelease(index, buffer.getLong(packet.payloadOffset(), ByteOrder.nativeOrder()));
        answerEmpty(qp, psn, nowNs);
    }

    /**
     * IBTA 1.5 FLUSH, as rxe's {@code process_flush}: the FETH's placement type must be one the QP allows
     * ({@code IBV_ACCESS_FLUSH_GLOBAL}, {@code IBV_ACCESS_FLUSH_PERSISTENT}) and the region too, over the RETH's range
     * or, at selectivity level MR, the whole region (whose range is then not checked). Every earlier write is already
     * in memory (placement is synchronous, in PSN order); a full fence makes it visible to every other thread before
     * the answer, an RDMA READ RESPONSE ONLY of zero length, queued behind the responses owed before it. No region
     * of ours allows persistence (see {@link AccessFlags#FLUSH_PERSISTENT}), so a FLUSH asking for it is refused
     * with a remote access error.
     */
    private void flush(
        final QpContext qp, final RocePacket packet, final DirectBuffer buffer, final int psn, final long nowNs)
    {
        feth.wrapAt(buffer, packet.headerOffset(Opcode.FETH));
        final int placementType = feth.placementType();
        final int selectivityLevel = feth.selectivityLevel();
        if (!FethFlyweight.isValidPlacementType(placementType) ||
            !FethFlyweight.isValidSelectivityLevel(selectivityLevel))
        {
            acknowledges.remoteError(qp, psn, AethFlyweight.NAK_INVALID_REQUEST);
            return;
        }
        final int access = ((placementType & FethFlyweight.PLACEMENT_GLOBAL) != 0 ? AccessFlags.FLUSH_GLOBAL : 0) |
            ((placementType & FethFlyweight.PLACEMENT_PERSISTENT) != 0 ? AccessFlags.FLUSH_PERSISTENT : 0);
        reth.wrapAt(buffer, packet.headerOffset(Opcode.RETH));
        final int rKey = (int)reth.rKey();
        final boolean allowed;
        if ((qp.accessFlags & access) != access)
        {
            allowed = false;
        }
        else if (selectivityLevel == FethFlyweight.SELECTIVITY_MR)
        {
            final MemoryRegion region = regions.byKey(rKey);
            allowed = region != null && region.pd() == qp.pd && region.allows(access);
        }
        else
        {
            allowed = regions.checkRemote(rKey, qp.pd, qp.qpn, reth.virtualAddress(), reth.dmaLength(), access) != null;
        }
        if (!allowed)
        {
            acknowledges.remoteError(qp, psn, AethFlyweight.NAK_REMOTE_ACCESS_ERROR);
            return;
        }
        if (qp.responses.isFull())
        {
            counters.increment(TransportCounter.RESPONSE_QUEUE_FULL);
            return; // not executed, as if lost (the requester resends)
        }
        VarHandle.fullFence();
        answerEmpty(qp, psn, nowNs);
    }

    /** An ATOMIC WRITE or FLUSH done: remembered for its duplicates, answered with an empty READ RESPONSE ONLY. */
    private void answerEmpty(final QpContext qp, final int psn, final long nowNs)
    {
        qp.msn = Psn.next(qp.msn);
        final int entry = qp.replay.recordEmptyReadResponse(psn, qp.msn);
        qp.lastRequestOpcode = -1;
        qp.ePsn = Psn.next(psn);
        pacer.queue(qp, entry, 0, nowNs);
    }
}
