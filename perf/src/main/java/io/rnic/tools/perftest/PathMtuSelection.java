package io.rnic.tools.perftest;

import io.rnic.tools.ToolKind;
import io.rnic.tools.UsageException;
import io.rnic.transport.LocalPort;
import io.rnic.verbs.PathMtu;

/**
 * The IB path MTU a perftest tool connects with: {@code -m}, checked against the interface, or the largest one a
 * packet with the biggest headers fits in the interface's MTU (as rxe's active_mtu), except where the original tool
 * assumes a fixed default its peer does not exchange.
 */
final class PathMtuSelection
{
    private PathMtuSelection()
    {
    }

    /** The IB MTU: -m, or the largest one a packet with the biggest headers fits in the interface's MTU. */
    static int choose(final LocalPort port, final String iface, final int gidIndex, final ToolOptions options)
    {
        final int ipHeader = port.isIpv4Gid(gidIndex) ? 20 : 40;
        final int room = port.ethernetMtu() - ipHeader - 8 - 12 - 28 - 4;
        // never above what modify_qp accepts on this port (it reckons with IPv6's header): IPv4 leaves 20 bytes more
        final int accepted = PathMtu.forEthernetMtu(port.ethernetMtu()).bytes();
        int largest = 0;
        for (int mtu = 256; mtu <= 4096; mtu <<= 1)
        {
            if (mtu <= room && mtu <= accepted)
            {
                largest = mtu;
            }
        }
        if (largest == 0)
        {
            throw new UsageException(iface + " has MTU " + port.ethernetMtu() + ": too small for RoCEv2 (IB MTU 256 " +
                "needs an Ethernet MTU of at least " + (256 + ipHeader + 52) + ")");
        }
        if (options.mtu == 0)
        {
            // ibv_rc_pingpong and ibv_uc_pingpong connect with -m (default 1024) and do not exchange it: a peer
            // running them rejects larger packets, so ours default to it too (UD messages follow the port's MTU)
            final boolean connectedPingpong = options.kind == ToolKind.RC_PINGPONG ||
                options.kind == ToolKind.UC_PINGPONG || options.kind == ToolKind.SRQ_PINGPONG;
            return connectedPingpong ? Math.min(1024, largest) : largest;
        }
        if (options.mtu > largest)
        {
            throw new UsageException("-m " + options.mtu + " does not fit " + iface + "'s MTU " + port.ethernetMtu() +
                " (largest IB MTU: " + largest + ")");
        }
        return options.mtu;
    }
}
