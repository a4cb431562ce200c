package io.rnic.tools;

import io.rnic.datapath.port.PacketPort;
import io.rnic.transport.LocalPort;

/** How a tool gets its packet port and the port's addressing (MAC, GID table), by port kind and interface name. */
@FunctionalInterface
public interface PortFactory
{
    /** The open port queues (one per engine thread) and their addressing. */
    record OpenedPort(PacketPort[] ports, LocalPort addressing)
    {
        public void close()
        {
            for (final PacketPort port : ports)
            {
                port.close();
            }
        }
    }

    /**
     * What to open.
     *
     * @param kind        {@code afpacket}, {@code dpdk} or {@code memory}.
     * @param iface       the interface (AF_PACKET), device (DPDK) or registered name (memory).
     * @param engines     how many queues (engine threads) to open on the interface.
     * @param qdiscBypass AF_PACKET: skip the interface's queueing discipline.
     * @param ealArgs     DPDK: EAL's arguments (null: the defaults).
     * @param addresses   DPDK: the port's IPv4 and IPv6 addresses (it has no kernel interface).
     * @param portMtu     DPDK: the device's Ethernet MTU, 0 for the default (see {@code DpdkConfig.mtu}); AF_PACKET
     *                    takes the interface's.
     * @param vlanId      the 802.1Q VLAN the engine tags its frames with ({@code --vlan}; PCP = each QP's SL), or
     *                    {@link LocalPort#NO_VLAN}: none, unless the AF_PACKET interface is a kernel VLAN device.
     * @param cnpDscp     the DSCP of the CNPs the port sends ({@code --cnp-dscp}).
     * @param cnpPriority their 802.1Q priority on a tagged port ({@code --cnp-prio}).
     */
    record Request(String kind, String iface, int engines, boolean qdiscBypass, java.util.List<String> ealArgs,
        java.util.List<String> addresses, int portMtu, int vlanId, int cnpDscp, int cnpPriority)
    {
        /** The device's default MTU, untagged, CNPs at ConnectX's DSCP and priority. */
        public Request(final String kind, final String iface, final int engines, final boolean qdiscBypass,
            final java.util.List<String> ealArgs, final java.util.List<String> addresses)
        {
            this(kind, iface, engines, qdiscBypass, ealArgs, addresses, 0, LocalPort.NO_VLAN,
                LocalPort.CNP_DSCP_DEFAULT, LocalPort.CNP_PRIORITY_DEFAULT);
        }
    }

    /** @throws IllegalArgumentException naming the problem: an unknown kind, a missing interface or device, … */
    OpenedPort open(Request request);
}
