package io.rnic.tools.perftest;

import io.rnic.datapath.dpdk.DpdkPort;
import io.rnic.datapath.endpoint.EndpointOptions;
import io.rnic.datapath.port.PortException;
import io.rnic.tools.GidSelection;
import io.rnic.tools.PortFactory;
import io.rnic.tools.Ports;
import io.rnic.tools.ToolKind;
import io.rnic.tools.UsageException;
import io.rnic.transport.LocalPort;

import java.io.IOException;

/**
 * The packet port a perftest tool runs on, ready for its endpoint: opened by kind and interface, its link up (a DPDK
 * memif is up only once both ends run), and the GID and path MTU of the run chosen and checked against it. What the
 * user has to fix is a {@link UsageException}, thrown after the port is closed again.
 */
final class PerftestPort
{
    final PortFactory.OpenedPort opened;
    final String iface;
    final int gidIndex;
    /** The IB path MTU this side offers; the exchange may lower it to the peer's. */
    final int mtu;

    private PerftestPort(final PortFactory.OpenedPort opened, final String iface, final int gidIndex, final int mtu)
    {
        this.opened = opened;
        this.iface = iface;
        this.gidIndex = gidIndex;
        this.mtu = mtu;
    }

    static PerftestPort open(final PortFactory factory, final ToolOptions options) throws IOException
    {
        final String iface = options.iface != null ? options.iface : Ports.defaultInterface();
        final PortFactory.OpenedPort opened;
        try
        {
            opened = factory.open(new PortFactory.Request(options.portKind, iface, options.engines,
                options.qdiscBypass, options.ealArgs, options.addresses, options.portMtu, options.vlanId,
                options.cnpDscp, options.cnpPriority));
        }
        catch (final IllegalArgumentException | PortException ex)
        {
            throw new UsageException(ex.getMessage());
        }
        final LocalPort localPort = opened.addressing();
        if (opened.ports()[0] instanceof DpdkPort dpdk && !awaitLink(dpdk, options.timeoutMs))
        {
            opened.close();
            throw new IOException("the link of " + dpdk.name() + " is still down after " + options.timeoutMs +
                " ms (a memif pair is up once both ends run)");
        }
        try
        {
            final int gidIndex = GidSelection.byIndex(localPort, options.gidIndex, iface);
            final int mtu = PathMtuSelection.choose(localPort, iface, gidIndex, options);
            if (options.kind == ToolKind.UD_PINGPONG && options.size > mtu)
            {
                throw new UsageException("a UD message is one packet: -s " + options.size + " is larger than the " +
                    "path MTU " + mtu + " of " + iface);
            }
            return new PerftestPort(opened, iface, gidIndex, mtu);
        }
        catch (final UsageException ex)
        {
            opened.close();
            throw ex;
        }
    }

    /** The endpoint's options: a kernel interface answers ARP/ND itself, DPDK and in-memory ports have none. */
    EndpointOptions endpointOptions(final ToolOptions options)
    {
        return EndpointOptions.defaults().withPrintEngineErrors(false).withCpu(options.cpu)
            .withIdleStrategy(options.idle != null ? options.idle : "spin").withCapture(options.pcap)
            .withHoldRocePort("afpacket".equals(options.portKind))
            // no kernel behind DPDK or in-memory ports; nor behind the VLAN an AF_PACKET port tags on its own
            .withAnswerNeighbours(!"afpacket".equals(options.portKind) || options.vlanId != LocalPort.NO_VLAN);
    }

    private static boolean awaitLink(final DpdkPort port, final long timeoutMs)
    {
        try
        {
            return port.awaitLinkUp(timeoutMs);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
