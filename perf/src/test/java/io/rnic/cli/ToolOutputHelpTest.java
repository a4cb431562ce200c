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
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertEquals(0, RnicCli.run(new String[]{ "help", "write-lat" },
            new PrintStream(out, true, StandardCharsets.UTF_8), System.err));
        final String help = out.toString(StandardCharsets.UTF_8);
        for (final String flag : new String[]{ "--report_gbits", "--out_json", "--out_json_file PATH", "-U",
            "-D SECONDS", "--run_infinitely", "-a" })
        {
            assertTrue(help.contains("[" + flag + "]"), flag + " in the synopsis:\n" + help);
        }
        for (final String explained : new String[]{ "  --report_gbits ", "  --out_json ", "  --out_json_file PATH ",
            "  -U, --report-unsorted ", "  -D, --duration SECONDS ", "  --run_infinitely ", "  -a, --all " })
        {
            assertTrue(help.contains(explained), explained + " explained:\n" + help);
        }
    }
}
