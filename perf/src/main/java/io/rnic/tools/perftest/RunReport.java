package io.rnic.tools.perftest;

import io.rnic.datapath.endpoint.InterfaceAddresses;
import io.rnic.tools.LocalQp;
import io.rnic.tools.RemoteQp;
import io.rnic.tools.ToolKind;
import io.rnic.tools.exchange.OutOfBand;
import io.rnic.transport.LocalPort;
import org.HdrHistogram.Histogram;

import java.io.IOException;
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
    private final JsonReport json;
    /** -D's or --run_infinitely's phases, or null. */
    private final DurationPhases duration;

    RunReport(final ToolOptions options, final PrintStream out, final DurationPhases duration)
    {
        this.options = options;
        this.duration = duration;
        this.json = new JsonReport(options);
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
        json.connected(iface, mtu, gidIndex);
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

    /**
     * What this side measured of a bandwidth test, in perftest's units (MB/sec, or Gb/sec with --report_gbits: a
     * perftest server prints the client's figures under its own header, so both sides give the same flag), or null
     * where this side measured none (the server of a WRITE, READ or atomic test).
     */
    OutOfBand.BandwidthReport bandwidthReport(final ToolApplication application)
    {
        final long operations;
        final long elapsedNs;
        double peakNsPerOperation = 0;
        if (application instanceof Bandwidth bandwidth)
        {
            operations = bandwidth.operations();
            elapsedNs = bandwidth.elapsedNs();
            peakNsPerOperation = bandwidth.peakNsPerOperation();
        }
        else if (application instanceof SendReceiver receiver)
        {
            // as perftest's server, which keeps no time per message: no peak
            operations = receiver.operations();
            elapsedNs = receiver.elapsedNs();
        }
        else
        {
            return null;
        }
        if (elapsedNs <= 0)
        {
            return null;
        }
        final double unitBytes = options.reportGbits ? ToolReport.BYTES_PER_GBIT : ToolReport.BYTES_PER_MB;
        final double seconds = elapsedNs / 1e9;
        final double average = (double)operations * options.size / seconds / unitBytes;
        final double peak = peakNsPerOperation > 0 ? options.size * 1e9 / peakNsPerOperation / unitBytes : 0;
        return new OutOfBand.BandwidthReport(options.size, operations, peak, average, operations / seconds / 1e6);
    }

    /** -a: perftest's header before the lines of the sizes. */
    void allSizesStart()
    {
        out.println(ToolReport.RULE);
        out.println(kind.isLatency() ? ToolReport.LATENCY_HEADER :
            options.reportGbits ? ToolReport.BANDWIDTH_HEADER_GBITS : ToolReport.BANDWIDTH_HEADER);
    }

    /** -a: the line of one size (options.size), also written as JSON (perftest leaves the last); its bandwidth. */
    OutOfBand.BandwidthReport allSizesLine(final ToolApplication application, final LatencyLog latency)
        throws IOException
    {
        if (kind.isLatency())
        {
            final PerftestLatency p = PerftestLatency.of(latency.samples(), halved() ? 2 : 1);
            out.println(ToolReport.latencyLine(options.size, options.iterations, p));
            json.latency(p);
            return null;
        }
        final OutOfBand.BandwidthReport line = bandwidthReport(application);
        out.println(ToolReport.bandwidthLine(options.reportGbits, line));
        json.bandwidth(line);
        return line;
    }

    /** --run_infinitely: perftest's header before the periodic lines. */
    void periodicStart()
    {
        out.println(ToolReport.RULE);
        out.println(options.reportGbits ? ToolReport.BANDWIDTH_HEADER_GBITS : ToolReport.BANDWIDTH_HEADER);
    }

    /** --run_infinitely: one period's line, as perftest prints it every -D seconds (no peak). */
    void periodic(final long iterations, final long elapsedNs)
    {
        final double unitBytes = options.reportGbits ? ToolReport.BYTES_PER_GBIT : ToolReport.BYTES_PER_MB;
        final double seconds = elapsedNs / 1e9;
        out.println(ToolReport.bandwidthLine(options.reportGbits, new OutOfBand.BandwidthReport(options.size,
            iterations, 0, iterations * (double)options.size / seconds / unitBytes, iterations / seconds / 1e6)));
        out.flush();
    }

    /** The run's result: what this side measured, what the peer reported, or where to find it. */
    void result(final ToolApplication application, final LatencyLog latency, final long elapsedNs,
        final OutOfBand.BandwidthReport peerReport) throws IOException
    {
        final Histogram histogram = latency.total();
        if (kind.isPingpong())
        {
            ToolReport.pingpong(out, options, options.iterations + options.warmup, elapsedNs);
            if (!options.isServer())
            {
                ToolReport.percentiles(out, options, histogram, false);
            }
            return;
        }
        if (kind.isLatency() && duration != null && application != null)
        {
            // perftest's -D report for latency: the average and the transactions per second of the measurement
            final double seconds = duration.measuredNs() / 1e9;
            final long iterations = duration.measured();
            final double averageUs = iterations > 0 ? seconds * 1e6 / iterations / (halved() ? 2 : 1) : 0;
            final double tps = seconds > 0 ? iterations / seconds : 0;
            ToolReport.latencyDuration(out, options, iterations, averageUs, tps);
            json.latencyDuration(iterations, averageUs, tps);
            if (histogram.getTotalCount() > 0)
            {
                ToolReport.percentiles(out, options, histogram, halved());
            }
            return;
        }
        if (kind.isLatency())
        {
            final long[] samples = latency.samples();
            if (samples.length > 0)
            {
                ToolReport.latency(out, options, samples, histogram, halved());
                json.latency(PerftestLatency.of(samples, halved() ? 2 : 1));
            }
            else
            {
                out.println(" (the client measures latency; see its output)");
            }
            return;
        }
        final OutOfBand.BandwidthReport mine = bandwidthReport(application);
        // a perftest server prints what its client measured; the server of a SEND test measures for itself
        final OutOfBand.BandwidthReport shown = mine != null ? mine :
            peerReport != null && peerReport.iterations() > 0 ? peerReport : null;
        if (shown == null)
        {
            out.println(" (the client measures bandwidth; see its output)");
            return;
        }
        if (options.runInfinitely && mine != null)
        {
            // after the periodic lines under the header printed at the start: the whole run's line
            out.println(ToolReport.bandwidthLine(options.reportGbits, shown));
            out.println(ToolReport.RULE);
            out.println(" (the whole run, " + shown.iterations() + " iterations; stopped by a signal)");
        }
        else
        {
            ToolReport.bandwidth(out, options, shown);
        }
        if (options.flags.bidirectional && mine != null && peerReport != null && peerReport.iterations() > 0)
        {
            ToolReport.bidirectional(out, mine, peerReport);
        }
        json.bandwidth(shown);
        if (mine == null)
        {
            out.println(" (the client's measurement, which a perftest server prints as its own)");
        }
    }

    /**
     * The average bandwidth this side reports in MB/sec (2^20 B/s), which perftest's {@code -w} compares with its
     * limit: the client's, the receiving server's, or what the client told a server that only serves; -1 for none.
     */
    double averageMbps(final ToolApplication application, final long elapsedNs,
        final OutOfBand.BandwidthReport peerReport)
    {
        final OutOfBand.BandwidthReport mine = bandwidthReport(application);
        final OutOfBand.BandwidthReport shown = mine != null ? mine :
            peerReport != null && peerReport.iterations() > 0 ? peerReport : null;
        if (shown == null)
        {
            return -1;
        }
        // -b: perftest compares the sum of both directions
        return options.flags.bidirectional && mine != null && peerReport != null && peerReport.iterations() > 0 ?
            mine.averageMBps() + peerReport.averageMBps() : shown.averageMBps();
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
