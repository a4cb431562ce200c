package io.rnic.tools.perftest;

import io.rnic.testing.SharedFiles;
import io.rnic.tools.exchange.OutOfBand;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Our result tables against perftest 4.5's, as its tools printed them between two rxe guests
 * ({@code shared/rxe-peer/perf/*.txt}): the same header, byte for byte, and for the same figures the same line, so
 * that a script reading columns by position reads the same meaning; and the columns' definitions
 * ({@link PerftestLatency}) on samples whose answer is known.
 */
class PerftestColumnsTest
{
    @ParameterizedTest
    @ValueSource(strings = { "ib_write_lat.txt", "ib_read_lat.txt", "ib_send_lat.txt" })
    void shouldPrintPerftestsLatencyHeader(final String capture) throws IOException
    {
        final List<String> lines = captured(capture);
        final int header = headerIndex(lines, " #bytes #iterations");
        assertEquals(lines.get(header), ToolReport.LATENCY_HEADER);
    }

    @ParameterizedTest
    @ValueSource(strings = { "ib_write_bw.txt", "ib_send_bw.txt", "ib_read_bw.txt" })
    void shouldPrintPerftestsBandwidthHeader(final String capture) throws IOException
    {
        // the captures ran with --report_gbits; perftest's MB/sec header (RESULT_FMT in perftest_parameters.h of
        // 4.5) is the same with MB for Gb
        final List<String> lines = captured(capture);
        final String header = lines.get(headerIndex(lines, " #bytes     #iterations"));
        assertEquals(header, ToolReport.BANDWIDTH_HEADER_GBITS);
        assertEquals(header.replace("Gb/sec", "MB/sec"), ToolReport.BANDWIDTH_HEADER);
    }

    /** ib_write_lat's client line, from its figures: the same text, tabs and all. */
    @Test
    void shouldPrintPerftestsLatencyLine() throws IOException
    {
        final List<String> lines = captured("ib_write_lat.txt");
        final String line = lines.get(headerIndex(lines, " #bytes #iterations") + 1);
        assertEquals(" 2       1000          349.88         6542.22      709.64   \t       1143.69     \t1071.43\t\t" +
            "5722.81 \t\t6542.22", line);
        final String[] columns = line.trim().split("\\s+");
        final PerftestLatency p = new PerftestLatency(Double.parseDouble(columns[2]),
            Double.parseDouble(columns[3]), Double.parseDouble(columns[4]), Double.parseDouble(columns[5]),
            Double.parseDouble(columns[6]), Double.parseDouble(columns[7]), Double.parseDouble(columns[8]));
        assertEquals(line, ToolReport.latencyLine(2, 1000, p));
    }

    /** ib_write_bw's client line (Gb/sec under 0.1: perftest's six decimals) and a MB/sec line's layout. */
    @Test
    void shouldPrintPerftestsBandwidthLine() throws IOException
    {
        final List<String> lines = captured("ib_write_bw.txt");
        final String line = lines.get(headerIndex(lines, " #bytes     #iterations") + 1);
        assertEquals(line, ToolReport.bandwidthLine(true,
            new OutOfBand.BandwidthReport(65536, 2000, 0.111714, 0.089475, 0.000171)));
        // MB/sec: perftest's REPORT_FMT, five columns in the header's order
        final String mb = ToolReport.bandwidthLine(false, new OutOfBand.BandwidthReport(65536, 2000, 10.5, 9.25,
            0.000148));
        assertEquals(" 65536      2000             10.50              9.25   \t\t   0.000148", mb);
        assertEquals(5, ToolReport.BANDWIDTH_HEADER.trim().split("\\s{2,}").length);
    }

    /**
     * perftest's definitions on round trips of 1..1000 us: the two largest left out (998 remain), t_min the least,
     * t_max the 999th (index 998), t_typical the median of the 998 (499.5), t_avg their mean, the percentiles the
     * samples at ceil(998 x 0.99) = 989 and ceil(998 x 0.999) = 998 — which is t_max, as in the capture, where the
     * 99.9% column equals t_max at 1000 iterations. Halved for WRITE and SEND.
     */
    @Test
    void shouldComputeTheColumnsAsPerftest() throws IOException
    {
        final long[] samples = new long[1000];
        for (int i = 0; i < samples.length; i++)
        {
            samples[i] = (samples.length - i) * 1_000L; // any order: perftest sorts
        }
        final PerftestLatency full = PerftestLatency.of(samples, 1);
        assertEquals(1.0, full.minUs());
        assertEquals(999.0, full.maxUs());
        assertEquals(499.5, full.typicalUs());
        assertEquals(499.5, full.averageUs(), 1e-9);
        assertEquals(Math.sqrt((998.0 * 998 - 1) / 12), full.stdevUs(), 1e-9); // of 1..998
        assertEquals(990.0, full.percentile99Us());
        assertEquals(999.0, full.percentile999Us());
        final PerftestLatency half = PerftestLatency.of(samples, 2);
        assertEquals(0.5, half.minUs());
        assertEquals(249.75, half.typicalUs());
        assertEquals(495.0, half.percentile99Us());

        final List<String> lines = captured("ib_write_lat.txt");
        final String[] columns = lines.get(headerIndex(lines, " #bytes #iterations") + 1).trim().split("\\s+");
        assertEquals(columns[3], columns[8], "perftest's t_max and 99.9% at 1000 iterations");
        assertEquals(1000, Long.parseLong(columns[1]), "perftest prints -n as #iterations");
    }

    /** perftest needs three samples; with two, one is measured and t_max is still the sample at m (here 1). */
    @Test
    void shouldKeepOneSampleOfTwo()
    {
        final PerftestLatency p = PerftestLatency.of(new long[]{ 4_000, 2_000 }, 1);
        assertEquals(2.0, p.minUs());
        assertEquals(2.0, p.typicalUs());
        assertEquals(2.0, p.averageUs());
        assertEquals(4.0, p.maxUs());
    }

    @Test
    void shouldFormatSamplesAsCDoes()
    {
        assertEquals("12.345", ToolReport.formatG(12.345));
        assertEquals("1234.57", ToolReport.formatG(1234.5678));
        assertEquals("0.5", ToolReport.formatG(0.5));
        assertEquals("1.23457e+06", ToolReport.formatG(1234567.0));
    }

    private static List<String> captured(final String file) throws IOException
    {
        final Path path = SharedFiles.sharedDir().resolve("rxe-peer/perf").resolve(file);
        assertTrue(Files.exists(path), path + " (perftest 4.5 between two rxe guests)");
        return Files.readAllLines(path);
    }

    private static int headerIndex(final List<String> lines, final String prefix)
    {
        for (int i = 0; i < lines.size(); i++)
        {
            if (lines.get(i).startsWith(prefix))
            {
                return i;
            }
        }
        throw new AssertionError("no line starting '" + prefix + "'");
    }
}
