package io.rnic.tools.perftest;

import io.rnic.tools.ToolKind;
import io.rnic.tools.exchange.OutOfBand;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.Locale;

/**
 * perftest's {@code --out_json} report: an object of {@code test_info} (the run's parameters under perftest's key
 * names) and {@code results} (the figures of its result line), written over the file at the end of the run as
 * perftest writes it. perftest 4.5 wrote keys without quotes; from 23.04 on it quotes them, and so does this: the
 * file is JSON that any parser reads, with the same key names.
 */
final class JsonReport
{
    private final ToolOptions options;
    private String device = "";
    private int mtu;
    private int gidIndex;

    JsonReport(final ToolOptions options)
    {
        this.options = options;
    }

    /** What the run learnt once connected: the device's name, the path MTU and the GID index. */
    void connected(final String device, final int mtu, final int gidIndex)
    {
        this.device = device;
        this.mtu = mtu;
        this.gidIndex = gidIndex;
    }

    /** Writes the latency figures (null: this side measured none, and writes nothing, as perftest's server). */
    void latency(final PerftestLatency p) throws IOException
    {
        if (options.outJson == null || p == null)
        {
            return;
        }
        write(String.format(Locale.ROOT, "\"MsgSize\": %d,%n\"n_iterations\": %d,%n\"t_min\": %.2f,%n" +
            "\"t_max\": %.2f,%n\"t_typical\": %.2f,%n\"t_avg\": %.2f,%n\"t_stdev\": %.2f,%n" +
            "\"percentile_99\": %.2f,%n\"percentile_99.9\": %.2f%n", options.size, options.iterations, p.minUs(),
            p.maxUs(), p.typicalUs(), p.averageUs(), p.stdevUs(), p.percentile99Us(), p.percentile999Us()));
    }

    /** Writes -D's latency figures (perftest's {@code REPORT_FMT_LAT_DUR_JSON}). */
    void latencyDuration(final long iterations, final double averageUs, final double tps) throws IOException
    {
        if (options.outJson == null)
        {
            return;
        }
        write(String.format(Locale.ROOT, "\"MsgSize\": %d,%n\"n_iterations\": %d,%n\"t_avg\": %.2f,%n" +
            "\"tps_average\": %.2f%n", options.size, iterations, averageUs, tps));
    }

    /** Writes the bandwidth figures, in the unit the table shows (MB/sec, or Gb/sec with --report_gbits). */
    void bandwidth(final OutOfBand.BandwidthReport r) throws IOException
    {
        if (options.outJson == null)
        {
            return;
        }
        final boolean accurate = options.reportGbits && r.averageMBps() < 0.1; // perftest's six decimals then
        final String bw = accurate ? "%.6f" : "%.2f";
        write(String.format(Locale.ROOT, "\"MsgSize\": %d,%n\"n_iterations\": %d,%n\"BW_peak\": " + bw + ",%n" +
            "\"BW_average\": " + bw + ",%n\"MsgRate\": %.6f%n", r.size(), r.iterations(), r.peakMBps(),
            r.averageMBps(), r.messageRateMpps()));
    }

    private void write(final String results) throws IOException
    {
        final String text = "{\n\"test_info\": {\n" + testInfo() + "\n},\n\"results\": {\n" + results + "}\n}\n";
        try
        {
            Files.writeString(options.outJson, text, StandardCharsets.UTF_8);
        }
        catch (final IOException ex)
        {
            throw new IOException("--out_json: cannot write " + options.outJson + ": " + ex, ex);
        }
    }

    /** test_info, key by key as perftest writes it for the options we have. */
    String testInfo()
    {
        final ToolKind kind = options.kind;
        final ToolKind.Operation operation = kind.operation();
        final StringBuilder s = new StringBuilder();
        s.append("\"test\": \"").append(operation.title()).append('_');
        if (operation == ToolKind.Operation.ATOMIC)
        {
            s.append(options.atomicCompareSwap ? "CMP_AND_SWAP_" : "FETCH_AND_ADD_");
        }
        s.append(kind.isLatency() ? "Latency_" : "BW_").append("Test\",\n");
        s.append("\"Dual_port\": \"OFF\",\n\"Device\": \"").append(escape(device)).append("\",\n");
        s.append("\"Number_of_qps\": ").append(options.qps).append(",\n\"Transport_type\": \"IB\",\n");
        s.append("\"Connection_type\": \"").append(kind.qpType()).append("\",\n\"Using_SRQ\": \"OFF\",\n");
        s.append("\"PCIe_relax_order\": \"Unsupported\",\n\"ibv_wr_API\": \"OFF\",\n");
        if (!options.isServer())
        {
            s.append("\"TX_depth\": ").append(options.txDepth).append(",\n");
        }
        if (operation == ToolKind.Operation.SEND && options.isServer())
        {
            s.append("\"RX_depth\": ").append(options.rxDepth).append(",\n");
        }
        if (!kind.isLatency())
        {
            s.append("\"CQ_Moderation\": ").append(Bandwidth.cqModeration(options.txDepth)).append(",\n");
        }
        s.append("\"Mtu\": ").append(mtu).append(",\n\"Link_type\": \"Ethernet\",\n");
        s.append("\"GID_index\": ").append(gidIndex).append(",\n");
        if (operation == ToolKind.Operation.READ || operation == ToolKind.Operation.ATOMIC)
        {
            s.append("\"Outstand_reads\": ").append(options.txDepth).append(",\n");
        }
        else
        {
            s.append("\"Max_inline_data\": 0,\n");
        }
        s.append("\"rdma_cm_QPs\": \"").append(options.rdmaCm ? "ON" : "OFF").append("\",\n");
        s.append("\"Data_ex_method\": \"").append(options.rdmaCm ? "rdma_cm" : "Ethernet").append('"');
        return s.toString();
    }

    private static String escape(final String value)
    {
        return value.replace("\\", "\\\\").replace("\"", "\\\"");
    }
}
