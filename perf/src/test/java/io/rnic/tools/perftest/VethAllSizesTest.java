package io.rnic.tools.perftest;

import io.rnic.tools.NetnsTopology;
import io.rnic.tools.ToolProcess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * perftest's {@code -a} sweep between two processes on a veth pair, each way round, and a server whose client's run
 * fails. The sweep ran into RETRY_EXC_ERR at 2 MiB on a clean link, 3 runs of 3: its server waited for the client's
 * end of all 23 sizes in one read of the exchange, gave up after --timeout-ms (60 s; the sweep took longer) and left,
 * and the client's next packets met a closed port. Needs root.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class VethAllSizesTest
{
    private static final String GID_IPV4 = "1";
    /** The sizes of -a: 2 B to 8 MiB. */
    private static final int SIZES = 23;

    private NetnsTopology topology;

    @BeforeAll
    void createTopology() throws Exception
    {
        assumeTrue(NetnsTopology.available(), "needs root and iproute2 for network namespaces");
        topology = new NetnsTopology(1500);
    }

    @AfterAll
    void deleteTopology()
    {
        if (topology != null)
        {
            topology.close();
        }
    }

    @Test
    void shouldSweepEverySizeFromBToA() throws Exception
    {
        sweep(topology.nsA, topology.ifA, topology.nsB, topology.ifB, topology.ip4A);
    }

    @Test
    void shouldSweepEverySizeFromAToB() throws Exception
    {
        sweep(topology.nsB, topology.ifB, topology.nsA, topology.ifA, topology.ip4B);
    }

    /**
     * The server of a failed run prints its side's counters, as the client does: here the client's run times out
     * (far more iterations than its --timeout-ms allows) and it leaves; the server, waiting on the exchange, sees
     * the connection close.
     */
    @Test
    void shouldPrintTheServersCountersWhenItsClientsRunFails() throws Exception
    {
        final List<String> common = List.of("write-bw", "-x", GID_IPV4, "-s", "65536", "-n", "100000000",
            "--warmup", "0");
        final List<String> server = new ArrayList<>(common);
        server.addAll(List.of("-d", topology.ifA));
        final List<String> client = new ArrayList<>(common);
        client.addAll(List.of("--timeout-ms", "2000", "-d", topology.ifB, topology.ip4A));
        final ToolProcess serverProcess = ToolProcess.start(topology.nsA, server);
        final ToolProcess clientProcess = ToolProcess.start(topology.nsB, client);
        final ToolProcess.Result c = clientProcess.await(120);
        final ToolProcess.Result s = serverProcess.await(30);
        assertEquals(1, c.status(), "the client's run times out:\n" + c.output() + "\n--- server:\n" + s.output());
        assertTrue(c.output().contains("write-bw: timed out after 2000 ms"), c.output());
        assertEquals(2, s.status(), "the server fails on the exchange:\n" + s.output());
        assertTrue(s.output().contains("write-bw: the exchange with the peer failed\n rnic counters:\n"),
            s.output());
        assertTrue(s.output().matches("(?s).*\\n\\s*rcvd_pkts\\s+[1-9].*") &&
            s.output().contains("port frames received"), "the server's own counters:\n" + s.output());
        assertTrue(s.output().contains("closed the connection"), s.output());
    }

    private static void sweep(final String serverNs, final String serverIf, final String clientNs,
        final String clientIf, final String serverAddress) throws Exception
    {
        final List<String> common = List.of("write-bw", "-a", "-n", "5", "-x", GID_IPV4);
        final List<String> server = new ArrayList<>(common);
        server.addAll(List.of("-d", serverIf));
        final List<String> client = new ArrayList<>(common);
        client.addAll(List.of("-d", clientIf, serverAddress));
        final ToolProcess serverProcess = ToolProcess.start(serverNs, server);
        final ToolProcess clientProcess = ToolProcess.start(clientNs, client);
        final ToolProcess.Result c = clientProcess.await(300);
        final ToolProcess.Result s = serverProcess.await(30);
        assertEquals(0, c.status(), "client failed:\n" + c.output() + "\n--- server:\n" + s.output());
        assertEquals(0, s.status(), "server failed:\n" + s.output() + "\n--- client:\n" + c.output());
        final long lines = c.output().lines().filter(line -> line.matches(" \\d+\\s+5\\s+.*")).count();
        assertEquals(SIZES, lines, "one line per size, 2 B to 8 MiB:\n" + c.output());
        assertTrue(c.output().lines().anyMatch(line -> line.startsWith(" 8388608 ")), c.output());
    }
}
