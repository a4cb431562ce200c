package io.rnic.wire;

/**
 * ECMP entropy for RoCEv2 (annex A17.9.4): the UDP source port of a connected QP, derived exactly as Linux
 * ({@code rdma_calc_flow_label} / {@code rdma_flow_label_to_udp_sport}) and rdma-core do, so a flow hashes the
 * same way whichever end built it. Symmetric in the two QPNs and constant for the life of a connected QP.
 */
public final class UdpSourcePort
{
    public static final int FLOW_LABEL_MASK = 0xF_FFFF;
    /** Lowest port of the range RoCEv2 source ports are drawn from (0xC000). */
    public static final int PORT_MIN = 0xC000;

    private UdpSourcePort()
    {
    }

    /** The 20-bit flow label of a QP pair: {@code v = lqpn * rqpn; v ^= v >> 20; v ^= v >> 40}. */
    public static int flowLabel(final int localQpn, final int remoteQpn)
    {
        long v = (localQpn & 0xFF_FFFFL) * (remoteQpn & 0xFF_FFFFL);
        v ^= v >>> 20;
        v ^= v >>> 40;
        return (int)(v & FLOW_LABEL_MASK);
    }

    /** Folds a 20-bit flow label into 14 bits and sets the top two: {@code 0xC000 .. 0xFFFF}. */
    public static int fromFlowLabel(final int flowLabel)
    {
        int low = flowLabel & 0x3FFF;
        low ^= (flowLabel & 0xF_C000) >>> 14;
        return low | PORT_MIN;
    }

    /** From the QPNs when the application gives no flow label (0), from the application's flow label otherwise. */
    public static int of(final int localQpn, final int remoteQpn, final int applicationFlowLabel)
    {
        final int flowLabel = applicationFlowLabel & FLOW_LABEL_MASK;
        return fromFlowLabel(flowLabel != 0 ? flowLabel : flowLabel(localQpn, remoteQpn));
    }
}
