package io.rnic.tools.perftest;

import io.rnic.datapath.endpoint.InterfaceAddresses;
import io.rnic.tools.LocalQp;
import io.rnic.tools.RemoteQp;
import io.rnic.tools.ToolKind;
import io.rnic.tools.exchange.OutOfBand;
import io.rnic.transport.LocalPort;
import org.HdrHistogram.Histogram;

import java.io.PrintStream;

/**
 * What one run says of itself in the original tool's words: each QP's addresses once connected, and the result in
 * the form {@link ToolReport} gives it (a latency client's percentiles, a bandwidth figure, or a pointer to the side
 * that measured), and the figures a bandwidth client hands a perftest server to print as its own.
 */
final class RunReport
{
    private final ToolOptions options;
    private final ToolKind kind;
    private final PrintStream out;

    RunReport(final ToolOptions options, final PrintStream out)
    {
        this.options = options;
        this.kind = options.kind;
        this.out = out;
    }

    /** perftest's banner while a server waits for its client. */
    void waiting()
    {
        if (options.isServer())
        {
            out.println();
            out.println("************************************");
            out.println("* Waiting for client to connect... *");
            out.println("************************************");
        }
    }

    /** Once connected: perftest's header (not rdma-core's pingpongs, which have none), then each QP's addresses. */
    void connected(final LocalPort port, final String iface, final int gidIndex, final int mtu, final LocalQp[] qps)
    {
        if (!kind.isPingpong())
        {
            final String portDescription = iface + " (" + (options.driver != null ? "" : options.portKind + ", ") +
                InterfaceAddresses.formatMac(port.mac()) + ")";
            ToolReport.header(out, options, portDescription, mtu, gidIndex);
        }
        for (final LocalQp q : qps)
        {
            addresses(q, port.gidHigh(gidIndex), port.gidLow(gidIndex));
        }
    }

    private boolean halved()
    {
        return kind.isLatency() && !kind.isPingpong() &&
            (kind.operation() == ToolKind.Operation.WRITE || kind.operation() == ToolKind.Operation.SEND);
    }

    /** What a bandwidth client tells a perftest server (which prints it as its own result). */
    OutOfBand.BandwidthReport bandwidthReport(final ToolApplication application)
    {
        if (!(application instanceof Bandwidth bandwidth) || bandwidth.elapsedNs() <= 0)
        {
            return null;
        }
        final double seconds = bandwidth.elapsedNs() / 1e9;
        final long operations = bandwidth.operations();
        final double mbps = (double)operations * options.size / seconds / (1 << 20);
        return new OutOfBand.BandwidthReport(options.size, operations, mbps, mbps, operations / seconds / 1e6);
    }

    /** The run's result: what this side measured, what the peer reported, or where to find it. */
    void result(final ToolApplication application, final Histogram histogram, final long elapsedNs,
        final OutOfBand.BandwidthReport peerReport)
    {
        if (kind.isPingpong())
        {
            ToolReport.pingpong(out, options, options.iterations + options.warmup, elapsedNs);
            if (!options.isServer())
            {
                ToolReport.latency(out, options, histogram, false);
            }
            return;
        }
        if (kind.isLatency())
        {
            if (histogram.getTotalCount() > 0)
            {
                ToolReport.latency(out, options, histogram, halved());
            }
            else
            {
                out.println(" (the client measures latency; see its output)");
            }
            return;
        }
        if (application instanceof Bandwidth bandwidth)
        {
            ToolReport.bandwidth(out, options, bandwidth.operations(), bandwidth.elapsedNs());
            final OutOfBand.BandwidthReport mine = bandwidthReport(application);
            if (options.flags.bidirectional && mine != null && peerReport != null && peerReport.iterations() > 0)
            {
                ToolReport.bidirectional(out, mine, peerReport);
            }
        }
        else if (application instanceof SendReceiver)
        {
            // the server cannot tell warm-up from measurement: its figure covers both
            ToolReport.bandwidth(out, options, (options.iterations + options.warmup) * options.qps, elapsedNs);
        }
        else if (peerReport != null && peerReport.iterations() > 0)
        {
            ToolReport.peerBandwidth(out, peerReport);
        }
        else
        {
            out.println(" (the client measures bandwidth; see its output)");
        }
    }

    /**
     * The average bandwidth this side reports in MB/sec (2^20 B/s), which perftest's {@code -w} compares with its
     * limit: the client's, the receiving server's, or what the client told a server that only serves; -1 for none.
     */
    double averageMbps(final ToolApplication application, final long elapsedNs,
        final OutOfBand.BandwidthReport peerReport)
    {
        if (application instanceof Bandwidth bandwidth)
        {
            if (bandwidth.elapsedNs() <= 0)
            {
                return -1;
            }
            final double mine =
                (double)bandwidth.operations() * options.size / (bandwidth.elapsedNs() / 1e9) / (1 << 20);
            // -b: perftest compares the sum of both directions
            return options.flags.bidirectional && peerReport != null ? mine + peerReport.averageMBps() : mine;
        }
        if (application instanceof SendReceiver)
        {
            return (double)(options.iterations + options.warmup) * options.qps * options.size / (elapsedNs / 1e9) /
                (1 << 20);
        }
        return peerReport != null && peerReport.iterations() > 0 ? peerReport.averageMBps() : -1;
    }

    private void addresses(final LocalQp q, final long gidHigh, final long gidLow)
    {
        final RemoteQp remote = q.remote;
        if (kind.isPingpong())
        {
            out.printf("  local address:  LID 0x0000, QPN 0x%06x, PSN 0x%06x, GID %s%n", q.qp.qpn(), q.psn,
                ToolReport.gidText(gidHigh, gidLow));
            out.printf("  remote address: LID 0x0000, QPN 0x%06x, PSN 0x%06x, GID %s%n", remote.qpn(), remote.psn(),
                ToolReport.gidText(remote.gidHigh(), remote.gidLow()));
            return;
        }
        ToolReport.address(out, "local", q.qp.qpn(), q.psn, q.rKey, q.announcedAddress(), gidHigh, gidLow);
        ToolReport.address(out, "remote", remote.qpn(), remote.psn(), remote.rKey(), remote.regionAddress(),
            remote.gidHigh(), remote.gidLow());
    }
}
