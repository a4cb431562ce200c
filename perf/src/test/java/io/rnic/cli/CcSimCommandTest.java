package io.rnic.cli;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** cc-sim's command line (the scenario itself is CongestionScenarioTest's). */
class CcSimCommandTest
{
    @Test
    void shouldRefuseBadOptionsInOneLineBeforeRunning()
    {
        final String[][] cases = {
            { "cc-sim: --flows needs a value", "--flows" },
            { "cc-sim: unknown argument stray", "stray" },
            { "cc-sim: unknown option --fast", "--fast", "1" },
            { "cc-sim: --flows takes a whole number, not 'two'", "--flows", "two" },
            { "cc-sim: --flows 17 out of range 1..16", "--flows", "17" },
            { "cc-sim: --params takes connectx or paper, not 'fast'", "--params", "fast" } };
        for (final String[] c : cases)
        {
            final String[] args = new String[c.length];
            args[0] = "cc-sim";
            System.arraycopy(c, 1, args, 1, c.length - 1);
            final ByteArrayOutputStream out = new ByteArrayOutputStream();
            final ByteArrayOutputStream err = new ByteArrayOutputStream();
            final int status = RnicCli.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
            final String errors = err.toString(StandardCharsets.UTF_8);
            assertEquals(2, status, errors);
            assertEquals("rnic " + c[0], errors.lines().findFirst().orElseThrow());
            assertTrue(errors.lines().skip(1).allMatch(line -> line.startsWith("usage: rnic cc-sim")), errors);
            assertEquals("", out.toString(StandardCharsets.UTF_8));
        }
    }
}
