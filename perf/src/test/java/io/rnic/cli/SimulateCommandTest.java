package io.rnic.cli;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
        assertTrue(result[2].contains("loss probability 1.5 is not between 0 and 1"), result[2]);
        final String[] mix = run("simulate", "--ops-mix", "write,teleport");
        assertEquals("2", mix[0]);
        assertTrue(mix[2].contains("not 'teleport'"), mix[2]);
    }
}
