package io.rnic.tools.perftest;

import io.rnic.tools.ToolKind;
import io.rnic.tools.UsageException;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The output and measurement options: perftest's names and defaults, refused where perftest refuses them. */
class ToolOptionsOutputTest
{
    @Test
    void shouldBeOffByDefault()
    {
        final ToolOptions options = ToolOptions.parse(ToolKind.WRITE_BW, new String[0]);
        assertFalse(options.reportGbits);
        assertNull(options.outJson);
        assertFalse(options.reportAllLatencies);
        assertEquals(0, options.durationS);
        assertFalse(options.runInfinitely);
        assertEquals(1024, options.warmup, "5000 iterations, but no more than 64 MiB of the default 64 KiB");
        assertFalse(options.allSizes);
        final ToolOptions all = ToolOptions.parse(ToolKind.READ_LAT, new String[]{ "-a" });
        assertTrue(all.allSizes);
        assertEquals(8 << 20, all.size, "the buffers hold the largest size");
    }

    @Test
    void shouldTakePerftestsNames()
    {
        final ToolOptions options = ToolOptions.parse(ToolKind.WRITE_LAT, new String[]{ "--report_gbits", "-U",
            "--out_json", "-D", "8" });
        assertTrue(options.reportGbits);
        assertTrue(options.reportAllLatencies);
        assertEquals(Path.of("perftest_out.json"), options.outJson);
        assertEquals(8, options.durationS);
        assertEquals(0, options.warmup, "-D's first quarter is the warm-up");
        assertEquals(60_000 + 8_000, options.timeoutMs, "the wait for the peer's results outlasts the run");
        assertEquals(Path.of("/tmp/x.json"), ToolOptions.parse(ToolKind.SEND_BW,
            new String[]{ "--out_json", "--out_json_file=/tmp/x.json" }).outJson);
        assertEquals(Path.of("y.json"), ToolOptions.parse(ToolKind.SEND_BW,
            new String[]{ "--out_json_file", "y.json", "--out_json" }).outJson);
        assertEquals(3, ToolOptions.parse(ToolKind.READ_BW, new String[]{ "--duration=3" }).durationS);
        assertTrue(ToolOptions.parse(ToolKind.SEND_LAT, new String[]{ "--report-unsorted" }).reportAllLatencies);
    }

    @Test
    void shouldReportEveryFiveSecondsByDefaultWhenRunningInfinitely()
    {
        final ToolOptions options = ToolOptions.parse(ToolKind.WRITE_BW, new String[]{ "--run_infinitely" });
        assertTrue(options.runInfinitely);
        assertEquals(ToolOptions.RUN_INFINITELY_PERIOD_DEFAULT_S, options.durationS);
        assertEquals(2, ToolOptions.parse(ToolKind.SEND_BW, new String[]{ "--run_infinitely", "-D", "2" }).durationS);
    }

    @Test
    void shouldRefuseWherePerftestDoes()
    {
        final String latency = "it applies to write-lat, read-lat, send-lat, atomic-lat";
        assertMessage(ToolKind.WRITE_BW, "-U does not apply to write-bw: " + latency, "-U");
        assertMessage(ToolKind.RC_PINGPONG, "-U does not apply to rc-pingpong: " + latency, "-U");
        assertMessage(ToolKind.WRITE_LAT, "--run_infinitely does not apply to write-lat: it applies to write-bw",
            "--run_infinitely");
        assertMessage(ToolKind.RC_PINGPONG, "-D does not apply to rc-pingpong: it applies to write-lat", "-D", "2");
        assertMessage(ToolKind.WRITE_BW, "-D", "-D", "0");
        assertMessage(ToolKind.ATOMIC_BW, "--verify counts on -n", "-D", "2", "--verify");
        assertMessage(ToolKind.ATOMIC_LAT, "-a does not apply to atomic-lat: it applies to write-lat, write-bw, read-lat, " +
            "read-bw, send-lat, send-bw", "-a");
        assertMessage(ToolKind.SEND_LAT, "-a runs RC and UC", "-a", "-c", "UD");
        assertMessage(ToolKind.WRITE_LAT, "write-lat -D needs -s 2 or more", "-D", "1", "-s", "1");
        assertMessage(ToolKind.WRITE_BW, "-a goes with none of --verify", "-a", "--verify");
        assertMessage(ToolKind.SEND_BW, "--verify counts on -n", "--verify", "--run_infinitely");
        assertMessage(ToolKind.WRITE_BW, "--out_json_file", "--out_json_file");
        assertMessage(ToolKind.WRITE_BW, "--out_json_file /nonexistent-rnic/x.json: no directory /nonexistent-rnic",
            "--out_json_file", "/nonexistent-rnic/x.json");
    }

    private static void assertMessage(final ToolKind kind, final String expected, final String... args)
    {
        final UsageException ex = assertThrows(UsageException.class, () -> ToolOptions.parse(kind, args));
        assertTrue(ex.getMessage().contains(expected), ex.getMessage());
    }
}
