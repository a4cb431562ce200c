package io.rnic.transport;

import io.rnic.wire.Ecn;
import io.rnic.wire.FrameSpec;
import io.rnic.wire.Opcode;

/**
 * The notification point's transmit side: builds a Congestion Notification Packet (annex A17.9.3, figure 6) to the
 * peer of a connected QP. BTH: opcode 0x81, DestQP = the peer QP (the one to throttle), PSN 0, SE 0, M 0, BECN 1,
 * the P_Key of the marked packet; then 16 reserved zero bytes and the ICRC. Sent not ECN-capable, so that a
 * congested switch does not mark the notification itself. A spec of its own: the QP's spec is the requester's and
 * responder's, and a CNP must not leave BECN or the P_Key behind in it. Engine thread; no allocation.
 */
final class CnpSender
{
    private final TransmitPath tx;
    private final LocalPort port;
    private final TransportCounters counters;
    private final FrameSpec spec = new FrameSpec();

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
        spec.partitionKey(partitionKey)
            .bth(Opcode.CNP, qp.destQpn, 0)
            .solicitedEvent(false)
            .migrationRequest(false)
            .ackRequest(false)
            .fecnBecn(false, true);
        tx.send(spec, 0);
        counters.increment(TransportCounter.CNP_SENT);
    }
}
