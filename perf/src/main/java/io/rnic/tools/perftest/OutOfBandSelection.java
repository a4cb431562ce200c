package io.rnic.tools.perftest;

import io.rnic.datapath.endpoint.InterfaceAddresses;
import io.rnic.tools.GidSelection;
import io.rnic.tools.ToolDevice;
import io.rnic.tools.ToolKind;
import io.rnic.tools.UsageException;
import io.rnic.tools.exchange.OutOfBand;
import io.rnic.tools.exchange.PerftestOutOfBand;
import io.rnic.tools.exchange.PingpongOutOfBand;
import io.rnic.tools.exchange.RdmaCmOutOfBand;
import io.rnic.tools.exchange.TcpChannel;
import io.rnic.transport.LocalPort;

import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * Which out-of-band exchange a tool meets its peer over, as the original tool it stands in for: rdma-core's TCP
 * exchange for the pingpongs, perftest's for the perftest tools, or with {@code -R} perftest's exchange over a QP
 * that the RDMA CM connects.
 */
final class OutOfBandSelection
{
    private OutOfBandSelection()
    {
    }

    /** TCP (rdma-core's or perftest's exchange) or, with -R, perftest's exchange over a QP the RDMA CM connects. */
    static OutOfBand open(final ToolOptions options, final ToolDevice device, final int gidIndex,
        final int localMtu) throws IOException
    {
        final ToolKind kind = options.kind;
        if (kind.isPingpong())
        {
            return PingpongOutOfBand.openSlots(oobPeer(options), options.oobHost, options.oobTcpPort(),
                new TcpChannel.ServerWait(options.acceptTimeoutMs, device::failure), options.timeoutMs,
                kind == ToolKind.SRQ_PINGPONG ? PingpongOutOfBand.SRQ_PINGPONG_SLOTS : 1);
        }
        if (!options.rdmaCm)
        {
            return PerftestOutOfBand.open(kind, oobPeer(options), options.oobHost, options.oobTcpPort(),
                new TcpChannel.ServerWait(options.acceptTimeoutMs, device::failure), options.timeoutMs, localMtu);
        }
        long[] serverGid = null;
        if (!options.isServer())
        {
            final InetAddress address;
            try
            {
                address = InetAddress.getByName(options.server);
            }
            catch (final UnknownHostException ex)
            {
                throw new UsageException("server address " + options.server + ": " + ex.getMessage());
            }
            serverGid = InterfaceAddresses.gidOf(address);
            final LocalPort port = device.context().port();
            if (port.isIpv4Gid(gidIndex) != GidSelection.isIpv4(serverGid))
            {
                throw new UsageException("-R: the server address " + options.server + " and our GID " + gidIndex +
                    " (" + InterfaceAddresses.gidAddress(port.gidHigh(gidIndex), port.gidLow(gidIndex))
                    .getHostAddress() + ") are not of the same IP version: choose another with -x");
            }
        }
        return RdmaCmOutOfBand.open(kind, device, gidIndex, serverGid, options.oobTcpPort(), options.timeoutMs,
            localMtu, options.flags.typeOfService);
    }

    /** The client's TCP peer: --oob's host, else the server address; null on the server. */
    private static String oobPeer(final ToolOptions options)
    {
        return options.isServer() ? null : options.oobHost != null ? options.oobHost : options.server;
    }
}
