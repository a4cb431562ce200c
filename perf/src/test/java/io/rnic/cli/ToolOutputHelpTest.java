package io.rnic.cli;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code rnic help TOOL} shows perftest's output and measurement flags, in the synopsis and explained. */
class ToolOutputHelpTest
{
    @Test
    void shouldShowTheFlagsInHelp()
    {
        final String latency = help("write-lat");
        final String bandwidth = help("write-bw");
        for (final String flag : new String[]{ "--report_gbits", "--out_json", "--out_json_file PATH", "-D SECONDS",
            "-a" })
        {
            assertTrue(latency.contains("[" + flag + "]"), flag + " in the synopsis:\n" + latency);
            assertTrue(bandwidth.contains("[" + flag + "]"), flag + " in the synopsis:\n" + bandwidth);
        }
        // each where it applies, as perftest's: -U to latency, --run_infinitely to bandwidth
        assertTrue(latency.contains("[-U]") && !bandwidth.contains("[-U]"), latency);
        assertTrue(bandwidth.contains("[--run_infinitely]") && !latency.contains("[--run_infinitely]"), bandwidth);
        for (final String explained : new String[]{ "  --report_gbits, --report-gbits ", "  --out_json, --out-json ",
            "  --out_json_file, --out-json-file PATH ",
            "  -D, --duration SECONDS ", "  -a, --all " })
        {
            assertTrue(latency.contains(explained), explained + " explained:\n" + latency);
        }
        assertTrue(latency.contains("  -U, --report-unsorted "), latency);
        assertTrue(bandwidth.contains("  --run_infinitely, --run-infinitely "), bandwidth);
    }

    private static String help(final String command)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertEquals(0, RnicCli.run(new String[]{ "help", command }, new PrintStream(out, true, StandardCharsets.UTF_8),
            System.err));
        return out.toString(StandardCharsets.UTF_8);
    }
}
