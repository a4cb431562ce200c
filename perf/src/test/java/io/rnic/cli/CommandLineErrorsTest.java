package io.rnic.cli;

import io.rnic.datapath.affinity.ThreadAffinity;
import io.rnic.tools.ToolKind;
import io.rnic.tools.perftest.ToolOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a user who gets the command line wrong sees: usage on {@code --help}, unknown flags called unknown, and every
 * mistake that can be known before a port opens reported in one line with status 2, before any work.
 */
class CommandLineErrorsTest
{
    /** A run of {@code bin/rnic} in the test's JVM (the other CLI tests of this package use it too). */
    record Result(int status, String out, String err)
    {
        /** The error line, with the usage line the launcher adds after it. */
        String firstErrorLine()
        {
            return err.lines().findFirst().orElse("");
        }
    }

    static Result run(final String... args)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int status = RnicCli.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Result(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void shouldPrintEveryToolsUsageOnHelpAndExitZero()
    {
        for (final ToolKind kind : ToolKind.values())
        {
            final String command = kind.command();
            final Result help = run("help", command);
            assertEquals(0, help.status(), command);
            assertTrue(help.out().startsWith("usage: rnic " + command + " "), help.out());
            assertTrue(help.out().contains("--accept-timeout-ms"), help.out());
            for (final String flag : List.of("--help", "-h"))
            {
                final Result result = run(command, "-s", "64", flag);
                assertEquals(0, result.status(), command + " " + flag + ": " + result.err());
                assertEquals(help.out(), result.out(), command + " " + flag);
                assertEquals("", result.err());
            }
        }
        for (final String command : List.of("simulate", "cc-sim", "demo", "inspect", "rping", "stat", "devinfo"))
        {
            final Result result = run(command, "--help");
            assertEquals(0, result.status(), command + ": " + result.err());
            assertEquals(run("help", command).out(), result.out(), command);
        }
    }

    @Test
    void shouldPrintTheListOnStderrAndExitTwoWithoutACommand()
    {
        final Result result = run();
        assertEquals(2, result.status());
        assertEquals("", result.out());
        assertTrue(result.err().contains("usage: bin/rnic COMMAND [ARGS]"), result.err());
        assertEquals(0, run("--help").status());
    }

    @Test
    void shouldPrintTheVersion()
    {
        final Result result = run("--version");
        assertEquals(0, result.status(), result.err());
        assertEquals("rnic " + RnicCli.version() + " (Java " + Runtime.version() + ")", result.out().trim());
    }

    @Test
    void shouldCallAnUnknownFlagUnknownAlsoWhenItEndsTheLine()
    {
        final String lists = ": 'rnic help write-bw' lists its options";
        assertEquals("rnic write-bw: unknown option --bogus" + lists, run("write-bw", "--bogus").firstErrorLine());
        assertEquals("rnic write-bw: unknown option -Z" + lists, run("write-bw", "-s", "64", "-Z").firstErrorLine());
        assertEquals("rnic write-bw: unknown option --bogus" + lists,
            run("write-bw", "--bogus", "10.0.0.1").firstErrorLine());
        assertEquals("rnic simulate: unknown option --bogus: 'rnic help simulate' lists its options",
            run("simulate", "--bogus").firstErrorLine());
        assertEquals("rnic cc-sim: unknown option --bogus: 'rnic help cc-sim' lists its options",
            run("cc-sim", "--bogus").firstErrorLine());
        // a flag the tool knows still needs its value, in its short and long forms
        assertEquals("rnic write-bw: -s needs a value: -s SIZE", run("write-bw", "-s").firstErrorLine());
        assertEquals("rnic write-bw: --size needs a value: --size SIZE", run("write-bw", "--size").firstErrorLine());
        assertEquals("rnic write-bw: --accept-timeout-ms needs a value: --accept-timeout-ms MS",
            run("write-bw", "--accept-timeout-ms").firstErrorLine());
        assertEquals("rnic simulate: --ops needs a value: --ops N", run("simulate", "--ops").firstErrorLine());
        for (final String flag : List.of("--warmup", "-p", "--hlog", "--cc-param", "--oob", "--idle"))
        {
            assertTrue(run("write-lat", flag).firstErrorLine().startsWith("rnic write-lat: " + flag + " needs a value: " +
                flag + " "), flag);
        }
        final Result unknown = run("send-lat", "--bogus");
        assertEquals(2, unknown.status());
        assertTrue(unknown.err().lines().skip(1).allMatch(line -> line.startsWith("usage: rnic send-lat")), unknown.err());
    }

    @Test
    void shouldRefuseFilesItCannotWriteBeforeAnyWork(@TempDir final Path dir)
    {
        assertOneLine("rnic write-lat: --hlog /nonexistent-rnic/x.hlog: no such directory /nonexistent-rnic",
            "write-lat", "--hlog", "/nonexistent-rnic/x.hlog");
        assertOneLine("rnic write-bw: --pcap " + dir + ": is a directory, not a file", "write-bw", "--pcap",
            dir.toString());
    }

    @Test
    void shouldRefuseACpuThisProcessMayNotRunOn()
    {
        final int cpus = ThreadAffinity.allowedCpus().length();
        assertOneLine("rnic write-bw: --cpu 999: CPU 999 is not one this process may run on (allowed: " +
            (cpus == 1 ? "0" : "0-" + (cpus - 1)) + ")", "write-bw", "--cpu", "999");
        final Result engines = run("write-bw", "--cpu", String.valueOf(cpus - 1), "--engines", "2");
        assertEquals(2, engines.status());
        assertTrue(engines.firstErrorLine().contains("with --engines 2: CPU " + cpus + " is not one"),
            engines.err());
    }

    @Test
    void shouldRefuseADriverCpuThisProcessMayNotRunOnBeforeThePortOpens(@TempDir final Path dir)
    {
        // an interface that does not exist: the CPU is refused first, before the port is looked for
        assertOneLine("rnic driver: --cpu 999: CPU 999 is not one this process may run on (allowed: " +
            ThreadAffinity.cpuList(ThreadAffinity.allowedCpus()) + ")", "driver", "-d", "tcnone", "--cpu", "999",
            "--dir", dir.toString());
    }

    @Test
    void shouldRefuseAnEmptyDriverDirectory()
    {
        // an empty path is the working directory to every file call: the driver wrote its lock there
        assertOneLine("rnic driver: --dir needs a directory, not ''", "driver", "-d", "tcnone", "--dir", "");
        assertOneLine("rnic stat: --dir needs a directory, not ''", "stat", "--dir", "");
        assertOneLine("rnic devinfo: --dir needs a directory, not ''", "devinfo", "--dir", "");
        assertOneLine("rnic write-bw: --driver needs a directory, not ''", "write-bw", "--driver", "", "10.94.0.9");
        assertOneLine("rnic rping: --driver needs a directory, not ''", "rping", "-c", "-a", "10.94.0.9", "--driver",
            "");
        assertOneLine("rnic mw-peer: --driver needs a directory, not ' '", "mw-peer", "--driver", " ", "10.94.0.9");
    }

    @Test
    void shouldRefuseAMessageLargerThanARegionHolds()
    {
        assertOneLine("rnic read-bw: -s 536870912 with -q 2 needs a region of 2147483648 bytes; a memory region " +
            "holds at most 2147483647 (max_mr_size)", "read-bw", "-s", "512M", "-q", "2");
    }

    /**
     * -s states its range truly: every size inside it runs with -q 1, and a size beyond it, in any form, is refused
     * naming it. A QP's two buffers share one region, so the range ends at half of what a region holds.
     */
    @Test
    void shouldTakeEverySizeInsideTheStatedRangeAndNameTheRangeOfOneOutside()
    {
        final int max = ToolOptions.MAX_SIZE_BYTES;
        for (final ToolKind kind : List.of(ToolKind.WRITE_BW, ToolKind.READ_LAT, ToolKind.SEND_BW, ToolKind.RC_PINGPONG))
        {
            assertEquals(max, ToolOptions.parse(kind, new String[]{ "-s", String.valueOf(max) }).size, kind.command());
            assertEquals(512 << 20, ToolOptions.parse(kind, new String[]{ "-s", "512M" }).size, kind.command());
        }
        final String range = " out of range 1.." + max + " bytes";
        assertOneLine("rnic write-bw: -s " + (max + 1) + range, "write-bw", "-s", String.valueOf(max + 1));
        assertOneLine("rnic write-bw: -s 1024M (1073741824 bytes)" + range, "write-bw", "-s", "1024M");
        assertOneLine("rnic write-bw: -s 2G (2147483648 bytes)" + range, "write-bw", "-s", "2G");
        assertOneLine("rnic rc-pingpong: -s 2g (2147483648 bytes)" + range, "rc-pingpong", "-s", "2g");
        assertTrue(run("help", "write-bw").out().contains("1.." + max + " bytes"), "the range in the help");
    }

    @Test
    void shouldRefuseASecondServerOnItsTcpPortBeforeItsBanner() throws Exception
    {
        try (ServerSocket first = new ServerSocket())
        {
            first.bind(new InetSocketAddress(0));
            final String port = String.valueOf(first.getLocalPort());
            // no such in-memory port: a server that went on to open its port would fail on that instead
            final Result second = run("write-bw", "--port", "memory", "-d", "no-such-port", "-p", port);
            assertEquals(2, second.status(), second.out() + second.err());
            assertTrue(second.err().startsWith("rnic write-bw: cannot listen on TCP port " + port + ": "),
                second.err());
            assertTrue(second.err().trim().endsWith("(another server running? choose one with -p)"), second.err());
            assertEquals(1, second.err().lines().count(), second.err());
            assertFalse(second.out().contains("Waiting for client"), second.out());
        }
    }

    @Test
    void shouldLetTheServerWaitForItsClientAsLongAsItTakesUnlessAskedNotTo()
    {
        assertEquals(0, ToolOptions.parse(ToolKind.WRITE_BW, new String[0]).acceptTimeoutMs);
        assertEquals(250, ToolOptions.parse(ToolKind.WRITE_BW, new String[]{ "--accept-timeout-ms", "250" })
            .acceptTimeoutMs);
    }

    @Test
    void shouldNameTheFileAndTheReasonOfAFileError(@TempDir final Path dir)
    {
        final Result demo = run("demo", "--out", "/nonexistent-rnic/x.pcap");
        assertEquals(2, demo.status());
        assertEquals("rnic demo: --out /nonexistent-rnic/x.pcap: no such directory /nonexistent-rnic",
            demo.firstErrorLine());
        assertEquals("", demo.out(), "refused before the demo starts");
        final Result inspect = run("inspect", dir.toString());
        assertEquals(2, inspect.status());
        assertEquals("rnic inspect: " + dir + ": is a directory, not a capture file", inspect.err().trim());
        assertEquals("rnic: /nowhere/x.pcap: no such file or directory",
            "rnic: " + RnicCli.describe(new java.nio.file.NoSuchFileException("/nowhere/x.pcap")));
        assertEquals("rnic: /root/x: permission denied",
            "rnic: " + RnicCli.describe(new java.nio.file.AccessDeniedException("/root/x")));
    }

    @Test
    void shouldSayThatAnInMemoryPortIsNotForTheCommandLine()
    {
        final Result result = run("write-bw", "--port", "memory", "-d", "from-the-shell", "10.0.0.1");
        assertEquals(2, result.status(), result.out() + result.err());
        assertTrue(result.firstErrorLine().startsWith("rnic write-bw: no in-memory port named 'from-the-shell': " +
            "--port memory is for code that runs both endpoints in one JVM and registers them (registered: "),
            result.err());
        assertTrue(result.firstErrorLine().endsWith("); from the command line use --port afpacket or dpdk"),
            result.err());
        final String usage = run("help", "write-bw").out();
        assertFalse(usage.contains("|memory") || usage.contains("--port memory"), "not offered in the usage: " + usage);
    }

    /**
     * A DPDK client without --oob: the kernel owns none of the port's addresses, so a TCP exchange to the server's
     * RoCE address would go wherever this host's routes lead. Refused while the options are read, before any socket
     * or port (and were it not, the server address is on loopback: nothing leaves this machine).
     */
    @Test
    void shouldRequireOobForADpdkClient()
    {
        final String expected = "--port dpdk needs --oob HOST: the TCP exchange cannot run over the DPDK port, and a " +
            "connection to 127.0.0.2 would follow this host's routes, maybe to another machine; name the server's " +
            "kernel address (--oob 127.0.0.1 when both ends run on this machine)";
        for (final String tool : List.of("write-bw", "send-lat", "ud-pingpong"))
        {
            assertOneLine("rnic " + tool + ": " + expected, tool, "--port", "dpdk", "-d", "net_null0", "--ip",
                "10.52.9.2/24", "--eal", "--no-huge --vdev=net_null0", "127.0.0.2");
        }
    }

    /** The priority flags' ranges, before any port opens: 802.1Q VLAN ids, DSCPs, PCPs, a ToS byte. */
    @Test
    void shouldRefusePriorityAndMarkingFlagsOutOfRange()
    {
        final String[][] cases = {
            { "--vlan", "driver", "-d", "lo", "--vlan", "4095" },
            { "--cnp-dscp", "driver", "-d", "lo", "--cnp-dscp", "64" },
            { "--cnp-prio", "driver", "-d", "lo", "--cnp-prio", "8" },
            { "-t", "rping", "-c", "-a", "10.0.0.1", "-t", "256" },
            { "--vlan", "rping", "-c", "-a", "10.0.0.1", "--vlan", "-1" },
            { "--vlan", "write-bw", "--vlan", "4095" },
        };
        for (final String[] each : cases)
        {
            final Result result = run(java.util.Arrays.copyOfRange(each, 1, each.length));
            assertEquals(2, result.status(), String.join(" ", each) + ": " + result.out() + result.err());
            assertTrue(result.firstErrorLine().contains(each[0]), result.err());
        }
    }

    private static void assertOneLine(final String expected, final String... args)
    {
        final Result result = run(args);
        assertEquals(2, result.status(), result.out() + result.err());
        assertEquals(expected, result.firstErrorLine());
        assertTrue(result.err().lines().skip(1).allMatch(line -> line.startsWith("usage: rnic ")), result.err());
        assertEquals("", result.out());
    }
}
