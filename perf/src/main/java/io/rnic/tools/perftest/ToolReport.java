package io.rnic.tools.perftest;

import io.rnic.tools.LocalQp;
import io.rnic.tools.ToolKind;
import io.rnic.tools.exchange.OutOfBand;
import io.rnic.transport.RnicEngine;
import io.rnic.transport.TransportCounter;
import org.HdrHistogram.Histogram;

import java.io.PrintStream;
import java.math.BigDecimal;
import java.math.MathContext;
import java.util.Arrays;

/** Prints results the way perftest and rdma-core's pingpongs print them, with the percentiles rnic adds. */
public final class ToolReport
{
    static final String RULE =
        "---------------------------------------------------------------------------------------";

    private ToolReport()
    {
    }

    static void header(final PrintStream out, final ToolOptions options, final String portDescription,
        final int mtu, final int gidIndex)
    {
        final ToolKind kind = options.kind;
        out.println(RULE);
        out.printf("                    %s %s%s Test%n", kind.operation().title(),
            options.flags.bidirectional ? "Bidirectional " : "", kind.isLatency() ? "Latency" : "BW");
        out.printf(" Number of qps   : %-10d Transport type : RoCEv2 (rnic)%n", options.qps);
        out.printf(" Connection type : %-10s Port           : %s%n", options.flags.qpType(kind), portDescription);
        out.printf(" Mtu             : %d[B]%s GID index      : %d%n", mtu, " ".repeat(Math.max(1, 7 -
            String.valueOf(mtu).length())), gidIndex);
        if (!kind.isLatency())
        {
            out.printf(" TX depth        : %d%n", options.txDepth);
        }
        out.printf(" Verify          : %s%n", options.verify ? "ON (every byte)" : "OFF");
        out.printf(" rdma_cm QPs     : %-10s Data ex. method : %s%n", options.rdmaCm ? "ON" : "OFF",
            options.rdmaCm ? "rdma_cm" : "Ethernet");
        out.println(RULE);
    }

    /**
     * A GID as rdma-core's pingpongs print it, with glibc's {@code inet_ntop(AF_INET6)}: lower-case hex groups
     * without leading zeros, the longest run of two or more zero groups (the first of equal runs) as {@code ::}, and
     * an IPv4-mapped or -compatible address with its IPv4 part dotted ({@code ::ffff:10.91.0.1}, {@code fd91::1}).
     */
    public static String gidText(final long gidHigh, final long gidLow)
    {
        final int[] groups = new int[8];
        for (int i = 0; i < 8; i++)
        {
            groups[i] = (int)((i < 4 ? gidHigh : gidLow) >>> (48 - 16 * (i % 4))) & 0xFFFF;
        }
        int bestStart = -1;
        int bestLength = 0;
        for (int i = 0; i < 8; )
        {
            int end = i;
            while (end < 8 && groups[end] == 0)
            {
                end++;
            }
            if (end - i > bestLength)
            {
                bestStart = i;
                bestLength = end - i;
            }
            i = end == i ? i + 1 : end;
        }
        if (bestLength < 2)
        {
            bestStart = -1;
        }
        final boolean embeddedIpv4 = bestStart == 0 && (bestLength == 6 || bestLength == 5 && groups[5] == 0xFFFF);
        final StringBuilder text = new StringBuilder(45);
        for (int i = 0; i < 8; i++)
        {
            if (i == bestStart)
            {
                text.append(':');
                i += bestLength - 1;
                if (i == 7)
                {
                    text.append(':');
                }
                continue;
            }
            if (i > 0)
            {
                text.append(':');
            }
            if (i == 6 && embeddedIpv4)
            {
                text.append(groups[6] >>> 8).append('.').append(groups[6] & 0xFF).append('.')
                    .append(groups[7] >>> 8).append('.').append(groups[7] & 0xFF);
                break;
            }
            text.append(Integer.toHexString(groups[i]));
        }
        return text.toString();
    }

    static void address(final PrintStream out, final String which, final int qpn, final int psn, final int rKey,
        final long address, final long gidHigh, final long gidLow)
    {
        out.printf(" %s address: LID 0000 QPN 0x%04x PSN 0x%06x RKey 0x%06x VAddr 0x%014x%n", which, qpn, psn, rKey,
            address);
        final StringBuilder gid = new StringBuilder(" GID: ");
        for (int i = 0; i < 16; i++)
        {
            final long word = i < 8 ? gidHigh : gidLow;
            final int b = (int)(word >>> (56 - 8 * (i % 8))) & 0xFF;
            gid.append(String.format("%02d", b));
            if (i < 15)
            {
                gid.append(':');
            }
        }
        out.println(gid);
    }

    /** perftest 4.5's latency header ({@code RESULT_FMT_LAT}), as ib_write_lat prints it. */
    static final String LATENCY_HEADER = " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]" +
        "    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] ";
    /** perftest 4.5's bandwidth header ({@code RESULT_FMT}), MB being 2^20 bytes. */
    static final String BANDWIDTH_HEADER = " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]" +
        "   MsgRate[Mpps]";
    /** The same with {@code --report_gbits} ({@code RESULT_FMT_G}), Gb being 10^9 bits. */
    static final String BANDWIDTH_HEADER_GBITS = " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]" +
        "   MsgRate[Mpps]";
    /** Bytes per second in one MB/sec and in one Gb/sec, as perftest's {@code format_factor}. */
    static final double BYTES_PER_MB = 1 << 20;
    static final double BYTES_PER_GBIT = 125_000_000.0;

    /**
     * The latency report: perftest's header and line (see {@link PerftestLatency}; {@code #iterations} is -n, as
     * perftest prints it, on both sides), with {@code -U} every sample first as perftest prints them (unsorted, then
     * sorted), then rnic's wider percentiles of the full round trip on a line of their own.
     */
    static void latency(final PrintStream out, final ToolOptions options, final long[] roundTripsNs,
        final Histogram roundTrips, final boolean halved)
    {
        final int rttFactor = halved ? 2 : 1;
        out.println(RULE);
        out.println(LATENCY_HEADER);
        if (options.reportAllLatencies)
        {
            // perftest's -U: every sample in the order measured, then (its -H, which -U implies) sorted without
            // the two it leaves out, then its header again
            samples(out, roundTripsNs, roundTripsNs.length, rttFactor);
            final long[] sorted = roundTripsNs.clone();
            Arrays.sort(sorted);
            samples(out, sorted, sorted.length - Math.min(PerftestLatency.MEASURE_TAIL, Math.max(0,
                sorted.length - 1)), rttFactor);
            out.println(RULE);
            out.println(LATENCY_HEADER);
        }
        if (roundTripsNs.length > 0)
        {
            final PerftestLatency p = PerftestLatency.of(roundTripsNs, rttFactor);
            out.println(latencyLine(options.size, options.iterations, p));
        }
        out.println(RULE);
        percentiles(out, options, roundTrips, halved);
    }

    private static void samples(final PrintStream out, final long[] roundTripsNs, final int count,
        final int rttFactor)
    {
        out.println("#, usec");
        for (int i = 0; i < count; i++)
        {
            out.println((i + 1) + ", " + formatG(roundTripsNs[i] / (1000.0 * rttFactor)));
        }
    }

    /** perftest's latency header with -D ({@code RESULT_FMT_LAT_DUR}). */
    static final String LATENCY_DURATION_HEADER = " #bytes        #iterations       t_avg[usec]    tps average";

    /** perftest's latency report with -D: the measurement's iterations, average and transactions per second. */
    static void latencyDuration(final PrintStream out, final ToolOptions options, final long iterations,
        final double averageUs, final double tps)
    {
        out.println(RULE);
        out.println(LATENCY_DURATION_HEADER);
        out.println(String.format(" %-7d       %d            %-7.2f        %-7.2f", options.size, iterations, averageUs,
            tps));
        out.println(RULE);
    }

    /** One line of perftest's latency table ({@code REPORT_FMT_LAT}). */
    static String latencyLine(final int size, final long iterations, final PerftestLatency p)
    {
        return String.format(" %-7d %d          %-7.2f        %-7.2f      %-7.2f  \t       %-7.2f     \t%-7.2f" +
            "\t\t%-7.2f \t\t%-7.2f", size, iterations, p.minUs(), p.maxUs(), p.typicalUs(), p.averageUs(), p.stdevUs(),
            p.percentile99Us(), p.percentile999Us());
    }

    /** rnic's percentiles of the full round trip, labelled so that no script takes them for perftest's columns. */
    static void percentiles(final PrintStream out, final ToolOptions options, final Histogram roundTrips,
        final boolean halved)
    {
        out.printf(" rnic percentiles (%d samples), full round trip [usec]: p50=%.2f p90=%.2f p99=%.2f" +
            " p99.9=%.2f p99.99=%.2f max=%.2f%n", roundTrips.getTotalCount(),
            roundTrips.getValueAtPercentile(50) / 1000.0, roundTrips.getValueAtPercentile(90) / 1000.0,
            roundTrips.getValueAtPercentile(99) / 1000.0, roundTrips.getValueAtPercentile(99.9) / 1000.0,
            roundTrips.getValueAtPercentile(99.99) / 1000.0, roundTrips.getMaxValue() / 1000.0);
        if (!options.kind.isPingpong())
        {
            out.println(halved ?
                " (perftest's columns above: round trip / 2, its convention for " + options.kind.original() + ")" :
                " (perftest's columns above: the full round trip, as " + options.kind.original() + " reports it)");
        }
    }

    /** C's {@code %g}: six significant digits, trailing zeros dropped (perftest prints -U's samples so). */
    static String formatG(final double value)
    {
        if (value == 0)
        {
            return "0";
        }
        final int exponent = (int)Math.floor(Math.log10(Math.abs(value)));
        if (exponent < -4 || exponent >= 6)
        {
            final String mantissa = new BigDecimal(value / Math.pow(10, exponent))
                .round(new MathContext(6)).stripTrailingZeros().toPlainString();
            return mantissa + (exponent < 0 ? "e-" : "e+") + String.format("%02d", Math.abs(exponent));
        }
        return new BigDecimal(value).round(new MathContext(6)).stripTrailingZeros()
            .toPlainString();
    }

    /** perftest's bandwidth table: its header (MB/sec, or Gb/sec with --report_gbits) and one line. */
    static void bandwidth(final PrintStream out, final ToolOptions options, final OutOfBand.BandwidthReport report)
    {
        out.println(RULE);
        out.println(options.reportGbits ? BANDWIDTH_HEADER_GBITS : BANDWIDTH_HEADER);
        out.println(bandwidthLine(options.reportGbits, report));
        out.println(RULE);
    }

    /**
     * One line of perftest's bandwidth table ({@code REPORT_FMT}), or with Gb/sec under 0.1 the six-decimal one
     * perftest prints then ({@code REPORT_FMT_EXT}).
     */
    static String bandwidthLine(final boolean gbits, final OutOfBand.BandwidthReport r)
    {
        if (gbits && r.averageMBps() < 0.1)
        {
            return String.format(" %-7d    %d           %-7.6f            %-7.6f            %-7.6f", r.size(),
                r.iterations(), r.peakMBps(), r.averageMBps(), r.messageRateMpps());
        }
        return String.format(" %-7d    %-10d       %-7.2f            %-7.2f\t\t   %-7.6f", r.size(), r.iterations(),
            r.peakMBps(), r.averageMBps(), r.messageRateMpps());
    }

    /**
     * Congestion control at the end of a run: the parameters, the notification point's and reaction point's
     * counters summed over the engines, and each QP's final DCQCN rate.
     */
    static void congestion(final PrintStream out, final ToolOptions options, final RnicEngine[] engines,
        final LocalQp[] qps)
    {
        if (options.congestionControl == null)
        {
            out.println(" congestion control: none");
            return;
        }
        long cnpsSent = 0;
        long cnpsHandled = 0;
        long cnpsIgnored = 0;
        long ecnMarked = 0;
        for (final RnicEngine engine : engines)
        {
            cnpsSent += engine.counters().get(TransportCounter.CNP_SENT);
            cnpsHandled += engine.counters().get(TransportCounter.CNP_RECEIVED);
            cnpsIgnored += engine.counters().get(TransportCounter.CNP_IGNORED);
            ecnMarked += engine.counters().get(TransportCounter.ECN_MARKED_RECEIVED);
        }
        out.println(" congestion control: DCQCN " + options.congestionControl);
        out.printf(" CNPs sent: %d   CNPs received: %d (ignored %d)   ECN-marked (CE) packets received: %d%n",
            cnpsSent, cnpsHandled, cnpsIgnored, ecnMarked);
        for (final LocalQp q : qps)
        {
            out.printf(" QP 0x%04x final rate: %.3f Gb/s%n", q.qp.qpn(), q.qp.rateBitsPerSec() / 1e9);
        }
    }

    /** {@code -b}: both directions summed, as perftest's duplex report adds the peer's to its own. */
    static void bidirectional(final PrintStream out, final OutOfBand.BandwidthReport mine,
        final OutOfBand.BandwidthReport peer)
    {
        out.println(" both directions (this side's and the peer's, as perftest -b sums them):");
        out.println(" #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]");
        out.printf(" %-10d %-14d %-18.2f %-20.2f %.6f%n", mine.size(), mine.iterations() + peer.iterations(),
            mine.peakMBps() + peer.peakMBps(), mine.averageMBps() + peer.averageMBps(),
            mine.messageRateMpps() + peer.messageRateMpps());
        out.println(RULE);
    }

    /** rdma-core's pingpong summary: bytes both ways, and time per iteration. */
    static void pingpong(final PrintStream out, final ToolOptions options, final long iterations,
        final long elapsedNs)
    {
        final double seconds = elapsedNs / 1e9;
        final long bytes = 2L * options.size * iterations;
        out.printf("%d bytes in %.2f seconds = %.2f Mbit/sec%n", bytes, seconds, bytes * 8 / seconds / 1e6);
        out.printf("%d iters in %.2f seconds = %.2f usec/iter%n", iterations, seconds, seconds * 1e6 / iterations);
    }

}
