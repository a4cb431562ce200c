package io.rnic.datapath.afpacket;

import io.rnic.datapath.port.PortException;

/**
 * How an AF_PACKET port is set up.
 *
 * @param iface          the kernel interface (one end of a veth pair, a NIC without DPDK).
 * @param rxFrames       receive ring slots (TPACKET_V2: one frame each, handed over as soon as it is written —
 *                       no block retirement timeout on the latency path, unlike TPACKET_V3).
 * @param txFrames       transmit ring slots.
 * @param qdiscBypass    PACKET_QDISC_BYPASS: skip the interface's queueing discipline. Off by default: a
 *                       {@code tc netem} or rate limiter on the interface would not see our frames, nor would
 *                       {@code tcpdump}.
 * @param fanoutGroup    PACKET_FANOUT group id (1..65535) when several engine threads share the interface, each
 *                       with its own socket, flows spread by hash; 0 for none.
 * @param vlanId         the 802.1Q VLAN the engine tags its frames with itself on {@code iface} (and the only one
 *                       whose frames the port receives), or {@link #NO_VLAN}. A kernel VLAN device ({@code
 *                       veth0.10}) as {@code iface} needs none: the port finds its VLAN id and parent itself.
 */
public record AfPacketConfig(String iface, int rxFrames, int txFrames, boolean qdiscBypass, int fanoutGroup,
    int vlanId)
{
    public static final int NO_VLAN = -1;

    public AfPacketConfig
    {
        if (iface == null || iface.isEmpty() || iface.length() > 15)
        {
            throw new PortException("interface name '" + iface + "' must have 1..15 characters");
        }
        if (Integer.bitCount(rxFrames) != 1 || rxFrames < 16 || rxFrames > 65536)
        {
            throw new PortException("rxFrames " + rxFrames + " must be a power of two in 16..65536");
        }
        if (Integer.bitCount(txFrames) != 1 || txFrames < 16 || txFrames > 65536)
        {
            throw new PortException("txFrames " + txFrames + " must be a power of two in 16..65536");
        }
        if (fanoutGroup < 0 || fanoutGroup > 0xFFFF)
        {
            throw new PortException("fanout group " + fanoutGroup + " out of range 0..65535");
        }
        if (vlanId != NO_VLAN && (vlanId < 0 || vlanId > 4094))
        {
            throw new PortException("VLAN id " + vlanId + " out of range 0..4094");
        }
    }

    public static AfPacketConfig of(final String iface)
    {
        return new AfPacketConfig(iface, 1024, 512, false, 0, NO_VLAN);
    }

    public AfPacketConfig withFanoutGroup(final int group)
    {
        return new AfPacketConfig(iface, rxFrames, txFrames, qdiscBypass, group, vlanId);
    }

    public AfPacketConfig withQdiscBypass(final boolean bypass)
    {
        return new AfPacketConfig(iface, rxFrames, txFrames, bypass, fanoutGroup, vlanId);
    }

    /** Tags the engine's frames with VLAN {@code id} on the interface itself ({@link #NO_VLAN}: none). */
    public AfPacketConfig withVlanId(final int id)
    {
        return new AfPacketConfig(iface, rxFrames, txFrames, qdiscBypass, fanoutGroup, id);
    }
}
