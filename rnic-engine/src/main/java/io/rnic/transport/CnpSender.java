package io.rnic.transport;

import io.rnic.wire.DethFlyweight;
import io.rnic.wire.Ecn;
import io.rnic.wire.EthernetFlyweight;
import io.rnic.wire.FrameSpec;
import io.rnic.wire.Ipv4Flyweight;
import io.rnic.wire.Ipv6Flyweight;
import io.rnic.wire.Opcode;
import io.rnic.wire.RocePacket;
import org.agrona.DirectBuffer;

/**
 * The notification point's transmit side: builds a Congestion Notification Packet (annex A17.9.3, figure 6) to the
 * peer of a connected QP. BTH: opcode 0x81, DestQP = the peer QP (the one to throttle), PSN 0, SE 0, M 0, BECN 1,
 * the P_Key of the marked packet; then 16 reserved zero bytes and the ICRC. Sent not ECN-capable, so that a
 * congested switch does not mark the notification itself. A spec of its own: the QP's spec is the requester's and
 * responder's, and a CNP must not leave BECN or the P_Key behind in it. Its DSCP and, on a port that tags its
 * frames, its 802.1Q priority are the port's ({@link LocalPort#cnpDscp()}, ConnectX's 48 and 6 by default), not the
 * QP's: switches give notifications a class of their own, ahead of the congested data. Engine thread; no allocation.
 */
final class CnpSender
{
    private final TransmitPath tx;
    private final LocalPort port;
    private final TransportCounters counters;
    /** What a UD CNP carries as hop limit / TTL: the packet's own path gives no better value. */
    private static final int UD_CNP_HOP_LIMIT = 64;

    private final FrameSpec spec = new FrameSpec();
    private final DethFlyweight deth = new DethFlyweight();
    private final EthernetFlyweight ethernet = new EthernetFlyweight();
    private final Ipv4Flyweight ipv4 = new Ipv4Flyweight();
    private final Ipv6Flyweight ipv6 = new Ipv6Flyweight();

    CnpSender(final TransmitPath tx, final LocalPort port, final TransportCounters counters)
    {
        this.tx = tx;
        this.port = port;
        this.counters = counters;
    }

    /** A CNP from {@code qp} to its peer QP, for a marked packet that carried {@code partitionKey}. */
    void send(final QpContext qp, final int partitionKey)
    {
        Addressing.apply(spec, qp.addressVector, port, qp.qpn, qp.destQpn, Ecn.NOT_ECT);
        spec.trafficClass(port.cnpDscp(), Ecn.NOT_ECT);
        Addressing.tag(spec, port, port.cnpPriority());
        send(partitionKey, qp.destQpn);
    }

    /**
     * A CNP from the UD QP {@code qp} back to whoever sent the marked datagram: a UD QP has no peer of its own, so
     * the addresses are the packet's, swapped (its source MAC and IP, our address it was sent to), and DestQP is the
     * DETH's source QP.
     */
    void sendToSource(final QpContext qp, final RocePacket packet, final DirectBuffer buffer)
    {
        final int sourceQp = deth.wrapAt(buffer, packet.headerOffset(Opcode.DETH)).sourceQp();
        spec.ethernet(ethernet.wrapAt(buffer, packet.frameOffset()).sourceMac(), port.mac());
        if (packet.isIpv6())
        {
            ipv6.wrapAt(buffer, packet.ipOffset());
            spec.ipv6(ipv6.destinationHigh(), ipv6.destinationLow(), ipv6.sourceHigh(), ipv6.sourceLow());
        }
        else
        {
            ipv4.wrapAt(buffer, packet.ipOffset());
            spec.ipv4(ipv4.destination(), ipv4.source());
        }
        spec.trafficClass(port.cnpDscp(), Ecn.NOT_ECT)
            .hopLimit(UD_CNP_HOP_LIMIT)
            .ecmpFlow(qp.qpn, sourceQp, 0);
        Addressing.tag(spec, port, port.cnpPriority());
        send(packet.partitionKey(), sourceQp);
    }

    /** The CNP itself, once the addresses are in the spec: BTH fields of figure 6, no payload. */
    private void send(final int partitionKey, final int destinationQp)
    {
        spec.partitionKey(partitionKey)
            .bth(Opcode.CNP, destinationQp, 0)
            .solicitedEvent(false)
            .migrationRequest(false)
            .ackRequest(false)
            .fecnBecn(false, true);
        tx.send(spec, 0);
        counters.increment(TransportCounter.CNP_SENT);
    }
}
