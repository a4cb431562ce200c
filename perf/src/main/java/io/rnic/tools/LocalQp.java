package io.rnic.tools;

import io.rnic.device.QueuePair;
import io.rnic.verbs.AddressVector;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.QpType;
import io.rnic.verbs.RecvWorkRequest;
import io.rnic.verbs.SendFlags;
import io.rnic.verbs.SendWorkRequest;

import java.lang.foreign.MemorySegment;

/**
 * One of the tool's QPs with its CQs, its buffer region (send area, then receive area: {@link QpLayout}) and what
 * the peer told us about its own QP. Also the reusable work requests the state machines post (posting copies
 * them, so reuse allocates nothing).
 */
public final class LocalQp
{
    public static final int QKEY = 0x11111111;

    public final QueuePair qp;
    public final CompletionQueue sendCq;
    public final CompletionQueue recvCq;
    public final MemorySegment region;
    public final long regionAddress;
    final int lKey;
    public final int rKey;
    public final QpLayout layout;
    public final SendWorkRequest send = new SendWorkRequest();
    final RecvWorkRequest recv = new RecvWorkRequest();
    /** UD: where to send (the peer's GID and MAC). */
    public final AddressVector peerAddress = new AddressVector();
    public int psn;
    public RemoteQp remote;
    /** Scatter/gather entries a message is split over, contiguous in the region (perftest's --sge). */
    public int sges = 1;

    public LocalQp(
        final QueuePair qp, final CompletionQueue sendCq, final CompletionQueue recvCq, final MemorySegment region,
        final int lKey, final int rKey, final QpLayout layout)
    {
        this.qp = qp;
        this.sendCq = sendCq;
        this.recvCq = recvCq;
        this.region = region;
        this.regionAddress = region.address();
        this.lKey = lKey;
        this.rKey = rKey;
        this.layout = layout;
    }

    /**
     * This QP seen with another layout over the same region (perftest's -a: one size after another on the same
     * QPs, the region sized for the largest), with the same peer and PSN.
     */
    public LocalQp withLayout(final QpLayout other)
    {
        if (other.regionBytes > region.byteSize())
        {
            throw new IllegalArgumentException("a layout of " + other.regionBytes + " bytes in a region of " +
                region.byteSize());
        }
        final LocalQp view = new LocalQp(qp, sendCq, recvCq, region, lKey, rKey, other);
        view.psn = psn;
        view.remote = remote;
        view.sges = sges;
        return view;
    }

    public MemorySegment sendSlot(final long slot)
    {
        return region.asSlice(slot * layout.slotBytes, layout.slotBytes);
    }

    public MemorySegment receiveSlot(final long slot)
    {
        return region.asSlice(layout.areaBytes + slot * layout.slotBytes, layout.slotBytes);
    }

    /**
     * The address this side announces in the exchange: its receive area, as perftest announces its receive buffer
     * ({@code buf + num_qps * BUFF_SIZE}). The peer WRITEs, READs and runs atomics there.
     */
    public long announcedAddress()
    {
        return regionAddress + layout.areaBytes;
    }

    /**
     * A slot of the area the peer announced (verify mode spreads over slots; otherwise slot 0, as perftest): where
     * WRITEs land, READs read and atomics operate. A peer running the real tool announced one buffer at least as
     * large as a message (and its cycle buffer), so slot 0 is all we use against it.
     */
    public long remoteSlot(final long slot)
    {
        return remote.regionAddress() + slot * layout.slotBytes;
    }

    /** Posts a send-queue work request, its message over {@link #sges} entries; returns the ibverbs code (0 OK). */
    public int post(
        final int opcode, final long wrId, final long localAddress, final int length, final long remoteAddress,
        final boolean signaled)
    {
        final SendWorkRequest wr = send;
        wr.opcode = opcode;
        wr.wrId = wrId;
        wr.sendFlags = signaled ? SendFlags.SIGNALED : 0;
        wr.sgl.clear();
        final int pieces = Math.min(sges, Math.max(1, length));
        for (int i = 0, offset = 0; i < pieces && length > 0; i++)
        {
            final int piece = (length - offset) / (pieces - i);
            wr.sgl.add(localAddress + offset, piece, lKey);
            offset += piece;
        }
        wr.remoteAddress = remoteAddress;
        wr.rKey = remote.rKey();
        if (qp.type() == QpType.UD)
        {
            wr.udAddress.copyFrom(peerAddress);
            wr.udRemoteQpn = remote.qpn();
            wr.udRemoteQkey = QKEY;
        }
        return qp.postSend(wr);
    }

    public int postReceive(final long wrId, final long slot)
    {
        recv.wrId = wrId;
        recv.sgl.clear();
        recv.sgl.add(layout.receiveSlot(regionAddress, slot), layout.slotBytes, lKey);
        return qp.postRecv(recv);
    }
}
