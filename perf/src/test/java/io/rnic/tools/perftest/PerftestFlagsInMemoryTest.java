package io.rnic.tools.perftest;

import io.rnic.pcap.PcapReader;
import io.rnic.tools.CapturedRun;
import io.rnic.tools.ToolKind;
import org.agrona.DirectBuffer;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;

import static io.rnic.tools.perftest.ToolsInMemoryTest.memoryPorts;
import static io.rnic.tools.perftest.ToolsInMemoryTest.register;
import static io.rnic.tools.perftest.ToolsInMemoryTest.runPair;
import static io.rnic.tools.perftest.ToolsInMemoryTest.tcpPort;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** perftest's and rdma-core's flags in runs between two endpoints over in-memory ports, as {@link ToolsInMemoryTest}. */
class PerftestFlagsInMemoryTest
{
    @Test
    void shouldRunWriteBandwidthOverUc() throws Exception
    {
        final CapturedRun[] runs = run(ToolKind.WRITE_BW, "-c", "UC", "-s", "3000", "-n", "1000", "--warmup", "100",
            "--verify");
        assertPassed(runs);
        assertTrue(runs[0].out().contains("Connection type : UC"), runs[0].out());
        assertTrue(runs[1].out().contains("verify: OK"), runs[1].out());
    }

    @Test
    void shouldRunSendLatencyOverUcAndUd() throws Exception
    {
        for (final String type : new String[]{ "UC", "UD" })
        {
            final CapturedRun[] runs = run(ToolKind.SEND_LAT, "-c", type, "-s", "1000", "-n", "200", "--warmup", "20",
                "--verify");
            assertPassed(runs);
            assertTrue(runs[0].out().contains("Connection type : " + type), runs[0].out());
            assertTrue(runs[0].out().contains("verify: OK"), runs[0].out());
        }
    }

    /** UD SEND bandwidth: each receive starts with the 40-byte GRH, and the server checks the message after it. */
    @Test
    void shouldRunSendBandwidthOverUd() throws Exception
    {
        final CapturedRun[] runs = run(ToolKind.SEND_BW, "-c", "UD", "-s", "1000", "-n", "400", "--warmup", "0",
            "-t", "16", "-r", "512", "--verify");
        assertPassed(runs);
        assertTrue(runs[1].out().contains("verify: OK"), runs[1].out());
    }

    /** {@code --tclass}: its upper six bits are the DSCP of every packet the client sends; the server's stay 0. */
    @Test
    void shouldWriteTheTrafficClassIntoEveryPacketsDscp() throws Exception
    {
        final Path capture = Files.createTempFile("rnic-tclass", ".pcap");
        try
        {
            final CapturedRun[] runs = runWithClientArgs(ToolKind.WRITE_LAT,
                List.of("--tclass", "96", "-S", "3", "--pcap", capture.toString()), "-s", "64", "-n", "50",
                "--warmup", "5");
            assertPassed(runs);
            final int[] dscps = roceDscps(capture, 0x0A5A_0002);
            assertTrue(dscps.length >= 55, "client frames " + dscps.length);
            assertTrue(Arrays.stream(dscps).allMatch(d -> d == 96 >>> 2), Arrays.toString(dscps));
            final int[] server = roceDscps(capture, 0x0A5A_0001);
            assertTrue(server.length > 0 && Arrays.stream(server).allMatch(d -> d == 0), Arrays.toString(server));
        }
        finally
        {
            Files.deleteIfExists(capture);
        }
    }

    /**
     * {@code -R -T 184}: the client's CM sets the type of service (rdma_set_option's TOS) in its REQ and its QP; the
     * server's CM takes it from the REQ, so the test's packets of both sides carry DSCP 46; the exchange's connection
     * is made without it, as perftest's.
     */
    @Test
    void shouldCarryTheTypeOfServiceThroughTheRdmaCm() throws Exception
    {
        final Path capture = Files.createTempFile("rnic-tos", ".pcap");
        try
        {
            final String name = "flags-tos-" + ThreadLocalRandom.current().nextInt(1 << 20);
            final var ports = memoryPorts();
            register(name, ports[0], ports[1]);
            final List<String> common = List.of("--port", "memory", "-p", String.valueOf(tcpPort()), "--idle",
                "yield", "--timeout-ms", "30000", "-R", "-s", "4096", "-n", "200", "--warmup", "10");
            final CapturedRun[] runs = runPair(ToolKind.WRITE_BW, name, common,
                List.of("-T", "184", "--pcap", capture.toString()), "10.90.0.1");
            assertPassed(runs);
            final int[] client = roceDscps(capture, 0x0A5A_0002);
            final int[] server = roceDscps(capture, 0x0A5A_0001);
            // the test QP's connection at the ToS, the exchange's without it, as perftest 4.5 connects them (rxe's
            // capture: DSCP 0 on the exchange's QP of ib_send_lat -R -T)
            for (final int[] dscps : new int[][]{ client, server })
            {
                assertTrue(Arrays.stream(dscps).allMatch(d -> d == 46 || d == 0), Arrays.toString(dscps));
                assertTrue(Arrays.stream(dscps).filter(d -> d == 0).count() > 0, "the exchange: " +
                    Arrays.toString(dscps));
            }
            assertTrue(Arrays.stream(client).filter(d -> d == 46).count() > 200, Arrays.toString(client));
            assertTrue(Arrays.stream(server).filter(d -> d == 46).count() > 0, Arrays.toString(server));
        }
        finally
        {
            Files.deleteIfExists(capture);
        }
    }

    /**
     * {@code -e} where perftest allows it: the run completes, every application polled its CQs on their notifications
     * (each side's, client and server), and without {@code -e} on none.
     */
    @Test
    void shouldRunOnCompletionEvents() throws Exception
    {
        for (final ToolKind kind : new ToolKind[]{ ToolKind.SEND_BW, ToolKind.READ_LAT, ToolKind.SEND_LAT,
            ToolKind.RC_PINGPONG })
        {
            final List<ToolApplication> applications = new CopyOnWriteArrayList<>();
            final CapturedRun[] runs = watching(applications, () -> kind.isPingpong() ?
                run(kind, "-e", "-s", "1000", "-n", "100", "--chk") :
                run(kind, "-e", "-s", "1000", "-n", kind.isLatency() ? "100" : "500", "--warmup", "10", "--verify"));
            assertPassed(runs);
            assertTrue(runs[0].out().contains("verify: OK"), kind + ": " + runs[0].out());
            assertEquals(kind == ToolKind.READ_LAT ? 1 : 2, applications.size(), kind.toString());
            for (final ToolApplication application : applications)
            {
                assertTrue(application.events() > 0, kind + " " + application.roleName() + ": no completion event");
            }
        }
        final List<ToolApplication> polling = new CopyOnWriteArrayList<>();
        assertPassed(watching(polling, () -> run(ToolKind.SEND_LAT, "-s", "1000", "-n", "50", "--warmup", "0")));
        assertTrue(polling.stream().allMatch(a -> a.events() == 0));
    }

    /**
     * {@code -Q 4}: one completion per 4 WRITEs (2 200 of them: 550); {@code -l 8}: posted 8 at a time (275 lists).
     * By default the client signals one in 32 (half of {@code -t} 64) and posts one at a time.
     */
    @Test
    void shouldPostListsAndModerateCompletions() throws Exception
    {
        final List<ToolApplication> applications = new CopyOnWriteArrayList<>();
        assertPassed(watching(applications, () -> run(ToolKind.WRITE_BW, "-l", "8", "-Q", "4", "-t", "64", "-s",
            "2048", "-n", "2000", "--warmup", "200")));
        final Bandwidth client = (Bandwidth)applications.get(0);
        assertEquals(550, client.completionsPolled());
        assertEquals(275, client.postLists());
        applications.clear();
        assertPassed(watching(applications, () -> run(ToolKind.WRITE_BW, "-t", "64", "-s", "2048", "-n", "2000",
            "--warmup", "200")));
        final Bandwidth byDefault = (Bandwidth)applications.get(0);
        assertEquals(69, byDefault.completionsPolled(), "2 200 / 32, and the last");
        assertEquals(2200, byDefault.postLists());
        applications.clear();
        assertPassed(watching(applications, () -> run(ToolKind.SEND_BW, "-Q", "1", "-s", "2048", "-n", "1000",
            "--warmup", "100", "--verify")));
        final Bandwidth sender = (Bandwidth)applications.stream().filter(a -> a instanceof Bandwidth).findFirst()
            .orElseThrow();
        assertEquals(1100, sender.completionsPolled());
    }

    private interface Runs
    {
        CapturedRun[] run() throws Exception;
    }

    /** The runs' applications, server's and client's, into {@code applications}. */
    private static CapturedRun[] watching(final List<ToolApplication> applications, final Runs runs) throws Exception
    {
        ToolApplications.createdForTests = applications::add;
        try
        {
            return runs.run();
        }
        finally
        {
            ToolApplications.createdForTests = null;
        }
    }

    /**
     * {@code --rate_limit R --rate_units M}: the client holds R MB/sec (a burst of {@code -t} 4, then the rate), R a
     * fifth of what the same run moves unlimited on this machine (hundreds of MB/sec on an idle one, tens on 2 shared
     * cores). How far under R depends on the machine too (9.3 of 40 MB/sec measured on a loaded one): only the
     * ceiling is checked.
     */
    @Test
    void shouldHoldTheSoftwareRateLimit() throws Exception
    {
        final CapturedRun[] unlimited = run(ToolKind.WRITE_BW, "-t", "4", "-s", "65536", "-n", "100", "--warmup", "8");
        assertPassed(unlimited);
        final double rate = averageMbps(unlimited[0].out()) / 5;
        final CapturedRun[] runs = run(ToolKind.WRITE_BW, "--rate_limit", String.format(java.util.Locale.ROOT, "%.3f", rate), "--rate_units",
            "M", "-t", "4", "-s", "65536", "-n", "100", "--warmup", "8");
        assertPassed(runs);
        final double mbps = averageMbps(runs[0].out());
        // the limiter lets each QP post a burst of -t (4) messages before the rate holds, which adds up to 4 / 100 to
        // the average of a 100-message run (1.067 x measured once on a loaded machine); then 5 % for the clock
        assertTrue(mbps <= rate * (1 + 4.0 / 100) * 1.05 && mbps > 0, "write-bw limited to " + rate + " MB/sec: " +
            mbps + "\n" + runs[0].out());
        System.out.printf("write-bw -s 65536 -t 4: %.1f MB/sec unlimited, %.1f with --rate_limit %.1f " +
            "--rate_units M%n", rate * 5, mbps, rate);
    }

    /**
     * {@code -b}: both sides run the test (each side's application a {@link Bandwidth} that completed every
     * operation), and each prints its own figure and the sum of both, the figures the two sides swapped.
     */
    @Test
    void shouldRunBandwidthBothWays() throws Exception
    {
        for (final ToolKind kind : new ToolKind[]{ ToolKind.WRITE_BW, ToolKind.READ_BW })
        {
            final List<ToolApplication> applications = new CopyOnWriteArrayList<>();
            final CapturedRun[] runs = watching(applications, () -> run(kind, "-b", "-s", "4096", "-n", "1000",
                "--warmup", "100"));
            assertPassed(runs);
            assertEquals(2, applications.size(), kind.toString());
            for (final ToolApplication application : applications)
            {
                assertEquals(1000, ((Bandwidth)application).operations(), kind.toString());
                assertTrue(application.isDone(), kind.toString());
            }
            for (final CapturedRun side : runs)
            {
                assertTrue(side.out().contains(" Bidirectional BW Test"), side.out());
                assertTrue(side.out().contains("both directions (this side's and the peer's, as perftest -b sums " +
                    "them):\n #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]\n" +
                    " 4096       2000 "), side.out());
            }
        }
    }

    /** {@code -w}: perftest's verifier limit; a run below it fails with perftest's line. */
    @Test
    void shouldFailBelowTheBandwidthLimit() throws Exception
    {
        final CapturedRun[] runs = run(ToolKind.READ_BW, "-w", "1000000", "-s", "4096", "-n", "500", "--warmup", "0");
        assertEquals(1, runs[0].status(), runs[0].out() + runs[0].err());
        assertTrue(runs[0].err().contains("Error: BW result is below bw limit"), runs[0].err());
        assertPassed(run(ToolKind.READ_BW, "-w", "0.001", "-s", "4096", "-n", "500", "--warmup", "0"));
    }

    /** rdma-core's pingpongs print GIDs as inet_ntop does: an IPv4-mapped GID is {@code ::ffff:10.90.0.2}. */
    @Test
    void shouldPrintPingpongGidsAsInetNtop() throws Exception
    {
        final CapturedRun[] runs = run(ToolKind.RC_PINGPONG, "-s", "64", "-n", "20", "-l", "2");
        assertPassed(runs);
        assertTrue(runs[0].out().contains("local address:  LID 0x0000, QPN ") &&
            runs[0].out().contains(", GID ::ffff:10.90.0.2\n"), runs[0].out());
        assertTrue(runs[0].out().contains(", GID ::ffff:10.90.0.1\n"), runs[0].out());
        assertFalse(runs[0].out().contains("GID 10.90.0"), runs[0].out());
    }

    private static CapturedRun[] run(final ToolKind kind, final String... args) throws Exception
    {
        return runWithClientArgs(kind, List.of(), args);
    }

    private static CapturedRun[] runWithClientArgs(final ToolKind kind, final List<String> clientArgs,
        final String... args) throws Exception
    {
        final String name = "flags-" + kind.command() + "-" + ThreadLocalRandom.current().nextInt(1 << 20);
        final var ports = memoryPorts();
        register(name, ports[0], ports[1]);
        // -u 17 (537 ms): an engine thread preempted on a loaded machine is not an ACK timeout (103 stalls over
        // 10 ms in one run on 2 shared cores ended a send-bw in RETRY_EXC_ERR at the default 67 ms)
        final List<String> common = new ArrayList<>(List.of("--port", "memory", "-p", String.valueOf(tcpPort()),
            "--idle", "yield", "--timeout-ms", "30000", "-u", "17"));
        common.addAll(List.of(args));
        return runPair(kind, name, common, clientArgs, "127.0.0.1");
    }

    private static void assertPassed(final CapturedRun[] runs)
    {
        final CapturedRun c = runs[0];
        final CapturedRun s = runs[1];
        assertEquals(0, c.status(), "client:\n" + c.out() + c.err() + "\nserver:\n" + s.out() + s.err());
        assertEquals(0, s.status(), "server:\n" + s.out() + s.err());
    }

    /** The "BW average[MB/sec]" column of a bandwidth report, found by its header. */
    private static double averageMbps(final String out)
    {
        final String[] lines = out.split("\n");
        for (int i = 0; i + 1 < lines.length; i++)
        {
            final List<String> header = List.of(lines[i].trim().split("\\s{2,}"));
            final int column = header.indexOf("BW average[MB/sec]");
            if (column >= 0)
            {
                return Double.parseDouble(lines[i + 1].trim().split("\\s+")[column]);
            }
        }
        throw new AssertionError("no BW average[MB/sec] in\n" + out);
    }

    /** The DSCP of each RoCEv2 (UDP 4791) IPv4 frame from {@code sourceIpv4} in a capture. */
    private static int[] roceDscps(final Path capture, final int sourceIpv4) throws Exception
    {
        final List<Integer> dscps = new ArrayList<>();
        try (PcapReader reader = PcapReader.open(capture))
        {
            while (reader.next())
            {
                final DirectBuffer frame = reader.frame();
                if (reader.frameLength() < 42 || frame.getShort(12, java.nio.ByteOrder.BIG_ENDIAN) != 0x0800 ||
                    frame.getByte(23) != 17 || (frame.getShort(36, java.nio.ByteOrder.BIG_ENDIAN) & 0xFFFF) != 4791 ||
                    frame.getInt(26, java.nio.ByteOrder.BIG_ENDIAN) != sourceIpv4)
                {
                    continue;
                }
                dscps.add((frame.getByte(15) & 0xFF) >>> 2);
            }
        }
        return dscps.stream().mapToInt(Integer::intValue).toArray();
    }
}
