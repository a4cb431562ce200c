package io.rnic.tools.perftest;

import io.rnic.dpdkbindings.DpdkBindings;
import io.rnic.tools.NetnsTopology;
import io.rnic.tools.ToolProcess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The tools on DPDK ports, as users run them: two endpoint processes over {@code net_memif} (shared memory), and a
 * DPDK endpoint on {@code net_af_packet} at one end of a veth talking to an AF_PACKET endpoint at the other —
 * {@code --verify} on both sides (byte-exact). With {@code -Drnic.require.dpdk=true} a missing DPDK fails.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DpdkEndToEndTest
{
    private static final String EAL = "--no-huge -m 512 --no-shconf --no-pci";

    private NetnsTopology topology;

    @BeforeAll
    void dpdk()
    {
        if (!Boolean.getBoolean("rnic.require.dpdk"))
        {
            assumeTrue(DpdkBindings.unavailableReason() == null, () -> "DPDK: " + DpdkBindings.unavailableReason());
        }
    }

    @AfterAll
    void deleteTopology()
    {
        if (topology != null)
        {
            topology.close();
        }
    }

    static Stream<Arguments> operations()
    {
        return Stream.of(
            Arguments.of("write-bw", List.of("-s", "10000", "-n", "2000", "-q", "2", "--warmup", "200")),
            Arguments.of("read-bw", List.of("-s", "10000", "-n", "2000", "--warmup", "200")),
            Arguments.of("send-bw", List.of("-s", "3000", "-n", "2000", "--imm", "--warmup", "200")),
            Arguments.of("atomic-lat", List.of("-A", "CMP_AND_SWAP", "-n", "500", "--warmup", "50")),
            Arguments.of("atomic-bw", List.of("-n", "2000", "--warmup", "200")),
            Arguments.of("write-lat", List.of("-s", "64", "-n", "2000", "--warmup", "200")),
            Arguments.of("ud-pingpong", List.of("-s", "1000", "-n", "300")));
    }

    @ParameterizedTest(name = "{0} {1} over net_memif")
    @MethodSource("operations")
    void shouldRunBetweenTwoProcessesOverMemifByteExact(final String tool, final List<String> arguments)
        throws Exception
    {
        final String socket = "/run/rnic-test-" + ProcessHandle.current().pid() + "-" + tool + ".sock";
        final String oobPort = Integer.toString(20_000 + (int)(ProcessHandle.current().pid() % 20_000));
        final List<String> common = new ArrayList<>(List.of(tool, "--port", "dpdk", "-d", "net_memif0", "--verify",
            "--timeout-ms", "60000", "-p", oobPort));
        common.addAll(arguments);
        final List<String> server = new ArrayList<>(common);
        server.addAll(List.of("--eal", EAL + " --file-prefix rs" + oobPort + " --vdev=net_memif0,role=server,socket=" +
            socket, "--ip", "10.52.0.1/24", "--oob", "127.0.0.1"));
        final List<String> client = new ArrayList<>(common);
        client.addAll(List.of("--eal", EAL + " --file-prefix rc" + oobPort + " --vdev=net_memif0,role=client,socket=" +
            socket, "--ip", "10.52.0.2/24", "--oob", "127.0.0.1", "10.52.0.1"));
        runPair(null, server, null, client);
        assertRuntimeDirGone("rs" + oobPort);
        assertRuntimeDirGone("rc" + oobPort);
    }

    @ParameterizedTest(name = "{0} {1}: DPDK net_af_packet <-> AF_PACKET over a veth")
    @MethodSource("operations")
    void shouldRunBetweenDpdkAndAfPacketEndpointsOverAVeth(final String tool, final List<String> arguments)
        throws Exception
    {
        assumeTrue(NetnsTopology.available(), "needs root and iproute2 for network namespaces");
        if (topology == null)
        {
            topology = new NetnsTopology(1500);
        }
        // the DPDK endpoint takes an address of its own, one the kernel behind the veth end does not own (else the
        // kernel would answer its RoCEv2 packets with ICMP port unreachable)
        final String dpdkIp = topology.ip4A.substring(0, topology.ip4A.lastIndexOf('.')) + ".77";
        final List<String> common = new ArrayList<>(List.of(tool, "--verify", "--timeout-ms", "60000"));
        common.addAll(arguments);
        final List<String> server = new ArrayList<>(common);
        server.addAll(List.of("--port", "dpdk", "-d", "net_af_packet0", "--eal", EAL + " --file-prefix ra" +
            ProcessHandle.current().pid() + " --vdev=net_af_packet0,iface=" + topology.ifA, "--ip", dpdkIp + "/24"));
        final List<String> client = new ArrayList<>(common);
        client.addAll(List.of("-d", topology.ifB, "-x", "1", "--oob", topology.ip4A, dpdkIp));
        runPair(topology.nsA, server, topology.nsB, client);
    }

    /** With hugepages (reserved for the test and given back after): {@code --in-memory}, no --file-prefix needed. */
    @Test
    void shouldRunOverMemifWithHugepages() throws Exception
    {
        final Path reserve = Path.of("/proc/sys/vm/nr_hugepages");
        assumeTrue(Files.isWritable(reserve), "needs root to reserve hugepages");
        final String before = Files.readString(reserve).trim();
        try
        {
            Files.writeString(reserve, Integer.toString(Math.max(Integer.parseInt(before), 300)));
            assumeTrue(Files.readString(Path.of("/proc/meminfo")).matches("(?s).*HugePages_Free:\\s+[1-9].*"),
                "the kernel reserved no hugepages");
            final String socket = "/run/rnic-test-" + ProcessHandle.current().pid() + "-huge.sock";
            final String oobPort = Integer.toString(40_000 + (int)(ProcessHandle.current().pid() % 20_000));
            final List<String> common = List.of("write-bw", "--port", "dpdk", "-d", "net_memif0", "--verify",
                "--timeout-ms", "60000", "-p", oobPort, "-s", "4096", "-n", "2000", "--oob", "127.0.0.1");
            final List<String> server = new ArrayList<>(common);
            server.addAll(List.of("--eal", "--in-memory -m 256 --no-pci --vdev=net_memif0,role=server,socket=" +
                socket, "--ip", "10.52.1.1/24"));
            final List<String> client = new ArrayList<>(common);
            client.addAll(List.of("--eal", "--in-memory -m 256 --no-pci --vdev=net_memif0,role=client,socket=" +
                socket, "--ip", "10.52.1.2/24", "10.52.1.1"));
            runPair(null, server, null, client);
        }
        finally
        {
            Files.writeString(reserve, before);
        }
    }

    /** EAL's usage and log stay off the terminal: our one line is all, with EAL's words for what it refused. */
    @Test
    void shouldExplainAWrongEalArgumentInOneLine() throws Exception
    {
        final ToolProcess.Result result = ToolProcess.start(null, List.of("write-lat", "--port", "dpdk", "-d",
            "net_memif0", "--ip", "10.52.0.9/24", "--eal", "--no-huge --bogus-option")).await(60);
        assertEquals(2, result.status(), result.output());
        final List<String> lines = printed(result);
        assertEquals(1, lines.size(), result.output());
        assertTrue(lines.get(0).startsWith("rnic write-lat: rte_eal_init [--no-huge, --bogus-option, ") &&
            lines.get(0).contains("failed: unrecognized option '--bogus-option': Invalid argument (errno 22)"),
            result.output());
    }

    /** No hugepage reserved and no --no-huge: what is missing and both ways out, not "Permission denied" alone. */
    @Test
    void shouldSayThatHugepagesAreMissingAndSuggestRunningWithoutThem() throws Exception
    {
        assumeTrue(Files.readString(Path.of("/proc/sys/vm/nr_hugepages")).trim().equals("0"),
            "hugepages are reserved here");
        final String prefix = "rh" + ProcessHandle.current().pid();
        final ToolProcess.Result result = ToolProcess.start(null, List.of("write-lat", "--port", "dpdk", "-d",
            "net_null0", "--ip", "10.52.0.9/24", "--eal", "--no-pci --file-prefix " + prefix + " --vdev=net_null0"))
            .await(60);
        assertEquals(2, result.status(), result.output());
        final List<String> lines = printed(result);
        assertEquals(1, lines.size(), result.output());
        assertTrue(lines.get(0).contains("failed: Cannot get hugepage information: Permission denied (errno 13). No " +
            "hugepages are reserved here: run without them (--no-huge -m 512 in the EAL arguments) or reserve some as " +
            "root (echo 512 > /proc/sys/vm/nr_hugepages)"), result.output());
        assertRuntimeDirGone(prefix);
    }

    /**
     * A run leaves no {@code /var/run/dpdk/<prefix>}: with shared files (EAL's config and IPC socket in it) and
     * without; here the server gives up waiting for a client, after EAL and the port started.
     */
    @Test
    void shouldLeaveNoRuntimeDirectoryBehind() throws Exception
    {
        final String tcpPort = Integer.toString(21_000 + (int)(ProcessHandle.current().pid() % 20_000));
        for (final String shared : List.of("", " --no-shconf"))
        {
            final String prefix = "rd" + (shared.isEmpty() ? "s" : "n") + ProcessHandle.current().pid();
            final ToolProcess.Result result = ToolProcess.start(null, List.of("write-bw", "--port", "dpdk", "-d",
                "net_null0", "--ip", "10.52.0.9/24", "-p", tcpPort, "--oob", "127.0.0.1", "--accept-timeout-ms",
                "500", "--eal", "--no-huge -m 512 --no-pci" + shared + " --file-prefix " + prefix +
                " --vdev=net_null0")).await(60);
            assertEquals(2, result.status(), result.output());
            assertTrue(result.output().contains("no client connected to TCP port " + tcpPort), result.output());
            assertFalse(result.output().contains("TELEMETRY"), "EAL's start-up notes stay off: " + result.output());
            assertRuntimeDirGone(prefix);
        }
    }

    @Test
    void shouldNameTheDevicesWhenTheDeviceIsMissing() throws Exception
    {
        final ToolProcess.Result result = ToolProcess.start(null, List.of("write-lat", "--port", "dpdk", "-d",
            "net_memif9", "--ip", "10.52.0.9/24", "--eal", EAL + " --file-prefix rm" + ProcessHandle.current().pid() +
            " --vdev=net_null0")).await(60);
        assertEquals(2, result.status(), result.output());
        assertTrue(result.output().contains("no DPDK port named 'net_memif9' (ports: [net_null0])"),
            result.output());
    }

    /** What the tool printed, without the test's description line and the JVM's incubator note. */
    private static List<String> printed(final ToolProcess.Result result)
    {
        return result.output().lines().skip(1).filter(l -> !l.startsWith("WARNING: Using incubator modules")).toList();
    }

    private static void assertRuntimeDirGone(final String prefix)
    {
        assertFalse(Files.exists(Path.of("/var/run/dpdk", prefix)), "/var/run/dpdk/" + prefix + " left behind");
    }

    /**
     * memif with 8 KiB buffers: each port takes path MTU 4096 by default (a 10 000-byte WRITE is 3 frames), the
     * case that crashed DPDK 22.11's memif receive path when its frames were chained over 2 KiB buffers.
     */
    @Test
    void shouldRunAtPathMtu4096BetweenTwoProcessesOverMemifWithLargeBuffers() throws Exception
    {
        final String socket = "/run/rnic-test-" + ProcessHandle.current().pid() + "-jumbo.sock";
        final String oobPort = Integer.toString(20_001 + (int)(ProcessHandle.current().pid() % 20_000));
        final List<String> common = new ArrayList<>(List.of("write-bw", "--port", "dpdk", "-d", "net_memif0",
            "--verify", "--timeout-ms", "60000", "-p", oobPort, "-s", "10000", "-n", "2000", "-q", "2",
            "--warmup", "200"));
        final List<String> server = new ArrayList<>(common);
        server.addAll(List.of("--eal", EAL + " --file-prefix rs" + oobPort +
            " --vdev=net_memif0,role=server,bsize=8192,socket=" + socket, "--ip", "10.52.0.1/24", "--oob",
            "127.0.0.1"));
        final List<String> client = new ArrayList<>(common);
        client.addAll(List.of("--eal", EAL + " --file-prefix rc" + oobPort +
            " --vdev=net_memif0,role=client,bsize=8192,socket=" + socket, "--ip", "10.52.0.2/24", "--oob",
            "127.0.0.1", "10.52.0.1"));
        final String clientOutput = runPair(null, server, null, client);
        assertTrue(clientOutput.contains("Mtu             : 4096[B]"), clientOutput);
    }

    /** memif's default 2048-byte buffers cannot hold MTU 4200's frames: refused in one line naming the fix. */
    @Test
    void shouldRefuseAPortMtuLargerThanTheMemifBuffersNamingBsize() throws Exception
    {
        final String socket = "/run/rnic-test-" + ProcessHandle.current().pid() + "-small.sock";
        final String prefix = "rm" + ProcessHandle.current().pid() % 100_000;
        final ToolProcess server = ToolProcess.start(null, List.of("write-bw", "--port", "dpdk", "-d", "net_memif0",
            "--port-mtu", "4200", "--eal", EAL + " --file-prefix " + prefix + " --vdev=net_memif0,role=server,socket=" +
            socket, "--ip", "10.52.0.1/24", "--oob", "127.0.0.1", "-p", "20999"));
        final ToolProcess.Result result = server.await(60);
        assertTrue(result.status() != 0, result.output());
        assertTrue(result.output().contains("net_memif0 carries a frame in one of its buffers of 2048 bytes (MTU " +
            "2030): for MTU 4200 give its --vdev bsize=8192, at both ends"), result.output());
        assertFalse(result.output().contains("\tat "), "one line, no stack trace:\n" + result.output());
        assertRuntimeDirGone(prefix);
    }

    private static String runPair(
        final String serverNs, final List<String> server, final String clientNs, final List<String> client)
        throws Exception
    {
        return runPairForBoth(serverNs, server, clientNs, client)[1];
    }

    /** The server's output and the client's, each having verified its memory. */
    private static String[] runPairForBoth(
        final String serverNs, final List<String> server, final String clientNs, final List<String> client)
        throws Exception
    {
        final ToolProcess serverProcess = ToolProcess.start(serverNs, server);
        final ToolProcess clientProcess = ToolProcess.start(clientNs, client);
        final ToolProcess.Result c = clientProcess.await(120);
        final ToolProcess.Result s = serverProcess.await(30);
        assertEquals(0, c.status(), "client failed:\n" + c.output() + "\n--- server:\n" + s.output());
        assertEquals(0, s.status(), "server failed:\n" + s.output() + "\n--- client:\n" + c.output());
        assertTrue(c.output().contains("verify: OK"), c.output());
        assertTrue(s.output().contains("verify: OK"), s.output());
        return new String[]{ s.output(), c.output() };
    }

    static Stream<Arguments> zeroCopyOperations()
    {
        // memif buffers of 8 KiB: path MTU 4096; of 2 KiB (the default): path MTU 1024
        return Stream.of(
            Arguments.of("write-bw", 8192, List.of("-s", "10000", "--sge", "3"), true), // 4096, 4096, 1808
            Arguments.of("write-bw", 8192, List.of("-s", "2100", "--sge", "2"), true),
            Arguments.of("write-bw", 8192, List.of("-s", "2000"), false), // below the threshold: copied
            Arguments.of("write-bw", 2048, List.of("-s", "3000", "--sge", "4"), false), // packets of 1024: copied
            Arguments.of("read-bw", 8192, List.of("-s", "9000", "--sge", "2"), true),
            Arguments.of("send-bw", 8192, List.of("-s", "5000", "--sge", "3", "--imm"), true),
            Arguments.of("send-bw", 8192, List.of("-s", "4096"), true));
    }

    /**
     * Zero-copy transmit over memif: the payload of WRITEs, READ responses and SENDs goes from the memory region in
     * mbufs chained after the headers (sizes below and above the threshold, over and under the MTU, messages over
     * several scatter/gather entries), byte-exact; the receiver checks every frame's ICRC and drops none, and the
     * sender's port counts the segments it sent from the region (none below the threshold: those are copied).
     */
    @ParameterizedTest(name = "{0} {2} over net_memif bsize={1}: payload sent from the region: {3}")
    @MethodSource("zeroCopyOperations")
    void shouldSendPayloadFromTheRegionWithoutCopyingAndTheReceiverShouldCheckItsIcrc(final String tool,
        final int memifBufferBytes, final List<String> arguments, final boolean zeroCopy) throws Exception
    {
        final String socket = "/run/rnic-test-" + ProcessHandle.current().pid() + "-zc.sock";
        final String oobPort = Integer.toString(20_002 + (int)(ProcessHandle.current().pid() % 20_000));
        final List<String> common = new ArrayList<>(List.of(tool, "--port", "dpdk", "-d", "net_memif0",
            "--verify", "--timeout-ms", "60000", "-p", oobPort, "-n", "2000", "--warmup", "200"));
        common.addAll(arguments);
        final String memif = ",bsize=" + memifBufferBytes + ",socket=" + socket;
        final List<String> server = new ArrayList<>(common);
        server.addAll(List.of("--eal", EAL + " --file-prefix rs" + oobPort + " --vdev=net_memif0,role=server" + memif,
            "--ip", "10.52.0.1/24", "--oob", "127.0.0.1"));
        final List<String> client = new ArrayList<>(common);
        client.addAll(List.of("--eal", EAL + " --file-prefix rc" + oobPort + " --vdev=net_memif0,role=client" + memif,
            "--ip", "10.52.0.2/24", "--oob", "127.0.0.1", "10.52.0.1"));
        final String[] outputs = runPairForBoth(null, server, null, client);
        final String sender = tool.equals("read-bw") ? outputs[0] : outputs[1]; // READ responses come from the server
        final java.util.regex.Matcher segments =
            java.util.regex.Pattern.compile("port tx zero-copy segments\\s+([\\d,]+)").matcher(sender);
        if (zeroCopy)
        {
            assertTrue(segments.find() && Long.parseLong(segments.group(1).replace(",", "")) >= 2000, sender);
        }
        else
        {
            assertFalse(segments.find(), sender);
        }
        System.out.println(tool + " " + arguments + ": " + sender.lines().filter(l -> l.contains("zero-copy") ||
            l.contains("frames transmitted")).toList()); // the counts, in the test's report
        for (final String output : outputs)
        {
            assertTrue(output.matches("(?s).*invalid RoCEv2 frames dropped\\s+0\\n.*"), output);
            assertTrue(output.matches("(?s).*port receive drops\\s+0\\n.*"), output);
        }
    }
}
