package io.rnic.tools.perftest;

import io.rnic.tools.LocalQp;
import io.rnic.tools.ToolKind;
import io.rnic.tools.exchange.OutOfBand;
import io.rnic.transport.RnicEngine;
import io.rnic.transport.TransportCounter;
import org.HdrHistogram.Histogram;

import java.io.PrintStream;

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

    /**
     * The latency table: perftest's columns plus p50/p90/p99/p99.9/p99.99. Values in µs; write and send show half
     * the round trip as perftest does, read and atomic the full round trip.
     */
    static void latency(final PrintStream out, final ToolOptions options, final Histogram roundTrips,
        final boolean halved)
    {
        final double scale = halved ? 2000.0 : 1000.0; // ns → µs, halved as perftest does for write and send
        out.println(RULE);
        out.println(" #bytes #iterations  t_min[usec]  t_p50[usec]  t_p90[usec]  t_p99[usec]  t_p99.9[usec]" +
            "  t_p99.99[usec]  t_max[usec]  t_avg[usec]  t_stdev[usec]");
        out.printf(" %-6d %-12d %-12.2f %-12.2f %-12.2f %-12.2f %-14.2f %-15.2f %-12.2f %-12.2f %-12.2f%n",
            options.size, roundTrips.getTotalCount(),
            roundTrips.getMinValue() / scale, roundTrips.getValueAtPercentile(50) / scale,
            roundTrips.getValueAtPercentile(90) / scale, roundTrips.getValueAtPercentile(99) / scale,
            roundTrips.getValueAtPercentile(99.9) / scale, roundTrips.getValueAtPercentile(99.99) / scale,
            roundTrips.getMaxValue() / scale, roundTrips.getMean() / scale, roundTrips.getStdDeviation() / scale);
        out.println(RULE);
        out.println(halved ?
            " t_* = round trip / 2 (perftest's convention for " + options.kind.original() + ")" :
            " t_* = full round trip (post to completion), as " + options.kind.original() + " reports it");
        out.printf(" round trip [usec]: p50=%.2f p90=%.2f p99=%.2f p99.9=%.2f p99.99=%.2f max=%.2f%n",
            roundTrips.getValueAtPercentile(50) / 1000.0, roundTrips.getValueAtPercentile(90) / 1000.0,
            roundTrips.getValueAtPercentile(99) / 1000.0, roundTrips.getValueAtPercentile(99.9) / 1000.0,
            roundTrips.getValueAtPercentile(99.99) / 1000.0, roundTrips.getMaxValue() / 1000.0);
    }

    static void bandwidth(final PrintStream out, final ToolOptions options, final long operations,
        final long elapsedNs)
    {
        final double seconds = elapsedNs / 1e9;
        final double bytes = (double)operations * options.size;
        out.println(RULE);
        out.println(" #bytes     #iterations    BW average[MB/sec]    MsgRate[Mpps]    BW average[Gb/sec]");
        out.printf(" %-10d %-14d %-21.2f %-16.6f %.3f%n", options.size, operations,
            bytes / seconds / (1 << 20), operations / seconds / 1e6, bytes * 8 / seconds / 1e9);
        out.println(RULE);
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

    /** The client's result as a perftest client sends it to the server (perftest's server prints it too). */
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

    static void peerBandwidth(final PrintStream out, final OutOfBand.BandwidthReport report)
    {
        out.println(RULE);
        out.println(" the client's report (perftest exchange):");
        out.println(" #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]");
        out.printf(" %-10d %-14d %-18.2f %-20.2f %.6f%n", report.size(), report.iterations(), report.peakMBps(),
            report.averageMBps(), report.messageRateMpps());
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
