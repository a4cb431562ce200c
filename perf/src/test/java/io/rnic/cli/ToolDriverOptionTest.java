package io.rnic.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What {@code bin/rnic TOOL --driver DIR} says when it cannot run through a driver: one line, status 2. */
class ToolDriverOptionTest
{
    @TempDir
    Path directory;

    @Test
    void shouldSayInOneLineThatNoDriverServesTheDirectory()
    {
        final Path missing = directory.resolve("rnic-nothing");
        final Run run = run("write-bw", "--driver", missing.toString(), "10.0.0.1");
        assertEquals(2, run.status, run.err);
        assertEquals(List.of("rnic write-bw: no rnic driver at " + missing + " (no cnc.dat): start one with " +
            "bin/rnic driver -d IFACE --dir " + missing), run.err.lines().toList());
    }

    @Test
    void shouldRefuseEveryPortOptionThroughADriver()
    {
        for (final String[] option : new String[][]{ { "-d", "eth0" }, { "--port", "dpdk" }, { "--eal", "-l 0" },
            { "--engines", "2" }, { "--pcap", "x.pcap" }, { "--cc", "dcqcn" }, { "--qdisc-bypass" } })
        {
            final List<String> args = new java.util.ArrayList<>(List.of("write-bw", "--driver", directory.toString()));
            args.addAll(List.of(option));
            final Run run = run(args.toArray(String[]::new));
            assertEquals(2, run.status, run.err);
            assertEquals("rnic write-bw: " + option[0] + " sets up the port, which is the driver's business with " +
                "--driver: give it to bin/rnic driver", run.err.lines().findFirst().orElseThrow());
        }
        // perftest's --port with a number is the TCP port of the exchange: allowed
        final Run tcpPort = run("write-bw", "--driver", directory.resolve("none").toString(), "--port", "18600");
        assertTrue(tcpPort.err.startsWith("rnic write-bw: no rnic driver at "), tcpPort.err);
    }

    @Test
    void shouldRefusePortOptionsForRpingThroughADriverAndSayItInHelp()
    {
        final Run run = run("rping", "-c", "-a", "10.0.0.1", "--driver", directory.toString(), "--iface", "eth0");
        assertEquals(2, run.status, run.err);
        assertEquals("rnic rping: --iface sets up the port, which is the driver's business with --driver: give it to " +
            "bin/rnic driver", run.err.lines().findFirst().orElseThrow());
        assertTrue(run("help", "rping").out.contains("[--iface IFACE | --driver DIR]"));
        final Run help = run("help", "write-bw");
        assertTrue(help.out.contains("[-d IFACE | --driver DIR]") && help.out.contains("run as a client of the " +
            "rnic driver serving DIR") && help.out.contains("With --driver, the driver's RDMA"), help.out);
    }

    private record Run(int status, String out, String err)
    {
    }

    private static Run run(final String... args)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int status = RnicCli.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }
}
