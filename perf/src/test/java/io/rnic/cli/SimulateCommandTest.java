package io.rnic.cli;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SimulateCommandTest
{
    private static String[] run(final String... args)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int status = RnicCli.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
        return new String[]{ String.valueOf(status), out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8) };
    }

    @Test
    void shouldRunAVerifiedWorkloadOverALossyLinkAndPrintTheRecovery()
    {
        final String[] result = run("simulate", "--ops", "500", "--qps", "2", "--max-size", "100000", "--loss", "0.05",
            "--reorder", "0.05", "--dup", "0.02", "--corrupt", "0.01", "--seed", "3", "--ops-mix", "write,read,send,atomic");
        assertEquals("0", result[0], result[1] + result[2]);
        assertTrue(result[1].contains("operations      500 completed"), result[1]);
        assertTrue(result[1].contains("retransmissions"), result[1]);
        assertTrue(result[1].contains("PSN sequence"), result[1]);
        assertTrue(result[1].trim().endsWith("PASS"), result[1]);
    }

    @Test
    void shouldStayByteExactThroughMemoryWindowsOverALossyLink()
    {
        final String[] result = run("simulate", "--ops", "600", "--qps", "2", "--max-size", "100000", "--loss", "0.05",
            "--reorder", "0.05", "--dup", "0.02", "--seed", "5", "--ops-mix", "write,read,mw");
        assertEquals("0", result[0], result[1] + result[2]);
        assertTrue(result[1].contains("operations      600 completed"), result[1]);
        assertTrue(result[1].matches("(?s).*; [1-9][0-9,]* of the writes and reads through memory windows\\).*"),
            result[1]);
        assertTrue(result[1].trim().endsWith("PASS"), result[1]);
    }

    @Test
    void shouldBeDeterministicForASeed()
    {
        final String first = run("simulate", "--ops", "300", "--loss", "0.03", "--seed", "11")[1];
        final String second = run("simulate", "--ops", "300", "--loss", "0.03", "--seed", "11")[1];
        assertEquals(first.replaceAll("wall time .*", ""), second.replaceAll("wall time .*", ""));
    }

    @Test
    void shouldExplainBadOptions()
    {
        final String[] result = run("simulate", "--loss", "1.5");
        assertEquals("2", result[0]);
        assertTrue(result[2].contains("--loss 1.5 out of range 0..1"), result[2]);
        final String[] mix = run("simulate", "--ops-mix", "write,teleport");
        assertEquals("2", mix[0]);
        assertTrue(mix[2].contains("not 'teleport'"), mix[2]);
    }

    @Test
    void shouldRefuseRetryKnobsOutsideTheirIbverbsRangesInOneLine()
    {
        final String[][] cases = {
            { "--retry-cnt", "8", "--retry-cnt 8 out of range 0..7" },
            { "--rnr-retry", "-1", "--rnr-retry -1 out of range 0..7" },
            { "--timeout", "32", "--timeout 32 out of range 0..31" },
            { "--timeout", "soon", "--timeout takes a whole number, not 'soon'" } };
        for (final String[] c : cases)
        {
            final String[] result = run("simulate", c[0], c[1]);
            assertEquals("2", result[0], c[0] + " " + c[1]);
            assertEquals("rnic simulate: " + c[2], result[2].lines().findFirst().orElseThrow());
            assertTrue(result[2].lines().skip(1).allMatch(line -> line.startsWith("usage: rnic simulate")), result[2]);
        }
    }

    @Test
    void shouldSayInOneLineWhichOperationRanOutOfRetriesAndWhichFlagAllowsMore()
    {
        // retry_cnt 0: the first lost request or answer fails its WQE
        final String[] result = run("simulate", "--ops", "400", "--qps", "2", "--max-size", "65536", "--loss", "0.05",
            "--seed", "5", "--retry-cnt", "0", "--timeout", "4");
        assertEquals("1", result[0], result[1] + result[2]);
        assertTrue(result[1].contains("QPs: retry_cnt 0, rnr_retry 7, timeout 4 (0.066 ms)"), result[1]);
        final List<String> errors = result[1].lines().filter(line -> line.contains("RETRY_EXC_ERR")).toList();
        assertEquals(1, errors.size(), result[1]);
        assertTrue(errors.get(0).matches("ERROR: QP \\d+: op \\d+ \\((WRITE|READ|SEND|ATOMIC), [\\d,]+ B\\) failed " +
            "with RETRY_EXC_ERR: 1 try lost a request or its answer, more than --retry-cnt 0 allows; raise " +
            "it \\(at most 7\\)"), errors.get(0));
        assertTrue(result[1].lines().noneMatch(line -> line.startsWith("MISMATCH")), "the flushed WQEs after it are " +
            "no news: " + result[1]);
        assertTrue(result[1].trim().endsWith("FAIL"), result[1]);
    }

    @Test
    void shouldDescribeTheRetryKnobsInItsHelp()
    {
        final String[] result = run("help", "simulate");
        assertEquals("0", result[0], result[2]);
        assertTrue(result[1].startsWith("usage: rnic simulate ["), result[1]);
        for (final String flag : new String[]{ "--retry-cnt N", "--rnr-retry N", "--timeout T" })
        {
            assertTrue(result[1].contains("[" + flag + "]"), flag + " in the synopsis: " + result[1]);
            assertTrue(result[1].contains("\n  " + flag + " "), flag + " explained: " + result[1]);
        }
        for (final String range : new String[]{ "(0..7; default 7, the IBTA's maximum)", "(0..7; default 7 = infinite)",
            "(0..31; default 8 (1.05 ms))" })
        {
            assertTrue(result[1].replaceAll("\\s+", " ").contains(range), range + " in: " + result[1]);
        }
    }

    @Test
    void shouldCountOnlyTheOperationsThatSucceededAsCompletedAndTellTheRetryFailureOnce()
    {
        // two QPs both run out of retries in the same step: one line says why, and counts the other
        // (the mix before ATOMIC WRITE and FLUSH joined it: with seed 1 it makes two QPs fail in one step)
        final String[] result = run("simulate", "--ops", "200", "--max-size", "4096", "--loss", "0.3", "--seed", "1",
            "--retry-cnt", "0", "--ops-mix", "write,read,send,atomic");
        assertEquals("1", result[0], result[1] + result[2]);
        final String operations = result[1].lines().filter(line -> line.startsWith("operations ")).findFirst()
            .orElseThrow();
        final java.util.regex.Matcher m = java.util.regex.Pattern.compile("operations +(\\d+) completed \\((\\d+) " +
            "write, (\\d+) read, (\\d+) send, (\\d+) atomic, (\\d+) atomic write, (\\d+) flush\\), (\\d+) failed or " +
            "flushed").matcher(operations);
        assertTrue(m.matches(), operations);
        final long completed = Long.parseLong(m.group(1));
        assertEquals(completed, Long.parseLong(m.group(2)) + Long.parseLong(m.group(3)) + Long.parseLong(m.group(4)) +
            Long.parseLong(m.group(5)) + Long.parseLong(m.group(6)) + Long.parseLong(m.group(7)), operations);
        assertTrue(completed < 200 && Long.parseLong(m.group(8)) > 0, operations);
        final List<String> errors = result[1].lines().filter(line -> line.contains("RETRY_EXC_ERR")).toList();
        assertEquals(1, errors.size(), result[1]);
        assertTrue(errors.get(0).endsWith("raise it (at most 7) (1 other QP failed too)"), errors.get(0));
    }

    @Test
    void shouldRefuseMoreQpsOrLargerRegionsThanItCanHoldBeforeAllocatingAnything()
    {
        final String[][] cases = {
            { "--qps 2000", "--qps 2000 out of range 1..1024" },
            { "--max-size 1073741824", "--max-size 1073741824 needs regions of 8589938688 bytes (8 operations in " +
                "flight per QP); a memory region holds at most 2147483647 (max_mr_size): use --max-size 134217728 " +
                "or less" } };
        for (final String[] c : cases)
        {
            final List<String> args = new java.util.ArrayList<>(List.of("simulate"));
            args.addAll(List.of(c[0].split(" ")));
            final String[] result = run(args.toArray(String[]::new));
            assertEquals("2", result[0], c[0]);
            assertEquals("rnic simulate: " + c[1], result[2].lines().findFirst().orElseThrow());
            assertEquals("", result[1]);
        }
        // 2 sides x 1024 QPs x 1 GiB: more than any machine that runs this test
        final String[] memory = run("simulate", "--qps", "1024", "--max-size", "134217728");
        assertEquals("2", memory[0]);
        assertTrue(memory[2].lines().findFirst().orElseThrow().matches("rnic simulate: --qps 1024 with --max-size " +
            "134217728 needs 2048\\.0 GiB of regions \\(2 sides x 1024 QPs x 1,073,745,920 bytes\\), more than this " +
            "machine's [\\d.]+ GiB: lower --qps or --max-size"), memory[2]);
        assertEquals("", memory[1]);
    }

    @Test
    void shouldShowProgressOnATerminalAndNothingButTheResultsOtherwise()
    {
        final ByteArrayOutputStream terminal = new ByteArrayOutputStream();
        final PrintStream out = new PrintStream(terminal, true, StandardCharsets.UTF_8);
        final String[] args = { "--ops", "3000", "--max-size", "4096", "--loss", "0.01", "--seed", "2" };
        assertEquals(0, SimulateCommand.run(args, out, out, new Progress(out, true, 0)));
        final String shown = terminal.toString(StandardCharsets.UTF_8);
        assertTrue(shown.matches("(?s).*\r[\\d,]+ of 3,000 operations completed\u001b\\[K.*"), shown);
        assertTrue(shown.contains("\r\u001b[Koperations      3,000 completed"), "cleared before the results: " + shown);

        final String[] redirected = run("simulate", "--ops", "3000", "--max-size", "4096", "--loss", "0.01", "--seed",
            "2");
        assertEquals("0", redirected[0]);
        assertFalse(redirected[1].contains("\r") || redirected[1].contains("\u001b"), redirected[1]);
        assertEquals(shown.replaceAll("\r[^\r]*\u001b\\[K", "").replaceAll("wall time .*", ""),
            redirected[1].replaceAll("wall time .*", ""));
    }
}
