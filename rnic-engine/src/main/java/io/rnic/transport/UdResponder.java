package io.rnic.transport;

import io.rnic.verbs.RecvWorkRequest;
import io.rnic.verbs.WcOpcode;
import io.rnic.verbs.WcStatus;
import io.rnic.verbs.WorkCompletion;
import io.rnic.wire.DethFlyweight;
import io.rnic.wire.EthernetFlyweight;
import io.rnic.wire.ImmDtFlyweight;
import io.rnic.wire.Ipv4Flyweight;
import io.rnic.wire.Ipv6Flyweight;
import io.rnic.wire.Opcode;
import io.rnic.wire.RocePacket;
import org.agrona.DirectBuffer;

import java.nio.ByteOrder;

/**
 * Receives the datagrams of UD QPs: no sequence and no message spanning packets, so nothing of RC's or UC's state
 * applies; the Q_Key is checked, and the IP header fills the 40-byte GRH area ahead of the payload in the receive
 * WQE. A datagram that cannot be received is counted and dropped, or completed in error when a WQE was there to
 * take it. Engine thread only.
 */
final class UdResponder
{
    /** The GRH area at the head of a UD receive buffer (annex A17.4.5.2): the IP header is placed there. */
    static final int GRH_BYTES = 40;

    private final LocalMemory memory;
    private final Completions completions;
    private final TransportCounters counters;
    private final DethFlyweight deth = new DethFlyweight();
    private final ImmDtFlyweight immDt = new ImmDtFlyweight();
    private final EthernetFlyweight ethernet = new EthernetFlyweight();
    /** Told the source of QP1's datagrams; null when nobody learns from them. */
    GsiSourceListener sourceListener;

    UdResponder(final LocalMemory memory, final Completions completions, final TransportCounters counters)
    {
        this.memory = memory;
        this.completions = completions;
        this.counters = counters;
    }

    void onRequest(final QpContext qp, final RocePacket packet, final DirectBuffer buffer)
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
        final RecvWorkRequest wqe = qp.recvWqe();
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
        if (qp.qpn == QpTable.GSI_QPN && sourceListener != null)
        {
            tellSource(packet, buffer, ipv6);
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

    /** The datagram's IP source and Ethernet source MAC, as the kernel's completion carries them for its CM. */
    private void tellSource(final RocePacket packet, final DirectBuffer buffer, final boolean ipv6)
    {
        final int ip = packet.ipOffset();
        final long sourceMac = ethernet.wrapAt(buffer, packet.frameOffset()).sourceMac();
        if (ipv6)
        {
            sourceListener.onGsiDatagram(buffer.getLong(ip + Ipv6Flyweight.SOURCE_OFFSET, ByteOrder.BIG_ENDIAN),
                buffer.getLong(ip + Ipv6Flyweight.SOURCE_OFFSET + 8, ByteOrder.BIG_ENDIAN), sourceMac);
        }
        else
        {
            sourceListener.onGsiDatagram(0, 0x0000_FFFF_0000_0000L |
                (buffer.getInt(ip + Ipv4Flyweight.SOURCE_OFFSET, ByteOrder.BIG_ENDIAN) & 0xFFFF_FFFFL), sourceMac);
        }
    }
}
