package io.rnic.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** cc-sim's command line (the scenario itself is CongestionScenarioTest's). */
class CcSimCommandTest
{
    @Test
    void shouldRefuseBadOptionsInOneLineBeforeRunning()
    {
        final String[][] cases = {
            { "cc-sim: --flows needs a value: --flows N", "--flows" },
            { "cc-sim: unexpected argument 'stray': cc-sim takes options only", "stray" },
            { "cc-sim: unknown option --fast: 'rnic help cc-sim' lists its options", "--fast", "1" },
            { "cc-sim: --flows takes a whole number, not 'two'", "--flows", "two" },
            { "cc-sim: --flows 17 out of range 1..16", "--flows", "17" },
            { "cc-sim: --params takes paper|connectx, not 'fast'", "--params", "fast" } };
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

    @Test
    void shouldWriteIntoTheTemporaryDirectoryUnlessToldAndShowProgressOnlyOnATerminal() throws Exception
    {
        final Path inWorkingDirectory = Path.of("cc-sim");
        final boolean existedBefore = Files.exists(inWorkingDirectory);
        final Path defaultOut = Path.of(System.getProperty("java.io.tmpdir"), "rnic-cc-sim");
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final PrintStream print = new PrintStream(out, true, StandardCharsets.UTF_8);
        final int status = RnicCli.run(new String[]{ "cc-sim", "--duration-ms", "4", "--spacing-ms", "1" }, print, print);
        final String printed = out.toString(StandardCharsets.UTF_8);
        assertTrue(status == 0 || status == 1, printed);
        assertTrue(printed.contains("wrote " + defaultOut.resolve("cc-sim.html")), printed);
        assertTrue(Files.isRegularFile(defaultOut.resolve("dcqcn.csv")), printed);
        assertEquals(existedBefore, Files.exists(inWorkingDirectory), "nothing written into the working directory");
        assertFalse(printed.contains("\r"), printed);

        final ByteArrayOutputStream terminal = new ByteArrayOutputStream();
        final PrintStream shown = new PrintStream(terminal, true, StandardCharsets.UTF_8);
        CcSimCommand.run(new String[]{ "--duration-ms", "4", "--spacing-ms", "1", "--out", defaultOut.toString() },
            shown, shown, new Progress(shown, true, 0));
        final String text = terminal.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains("\rwith DCQCN: ") && text.contains("\rwithout congestion control: "), text);
        assertTrue(text.contains(" of 4.0 ms simulated\u001b[K"), text);
    }

    @Test
    void shouldRefuseAnOutThatIsAFileBeforeRunning(@TempDir final Path dir) throws Exception
    {
        final Path file = Files.writeString(dir.resolve("taken"), "x");
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final int status = RnicCli.run(new String[]{ "cc-sim", "--out", file.toString() },
            new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(2, status);
        assertEquals("rnic cc-sim: --out " + file + ": is a file, not a directory",
            err.toString(StandardCharsets.UTF_8).lines().findFirst().orElseThrow());
        assertEquals("", out.toString(StandardCharsets.UTF_8));
    }
}
