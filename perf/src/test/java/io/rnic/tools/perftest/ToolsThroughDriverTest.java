package io.rnic.tools.perftest;

import io.rnic.datapath.driver.Driver;
import io.rnic.datapath.endpoint.Endpoint;
import io.rnic.datapath.endpoint.EndpointOptions;
import io.rnic.datapath.endpoint.InterfaceAddresses;
import io.rnic.datapath.port.InMemoryPort;
import io.rnic.datapath.port.PacketPort;
import io.rnic.tools.CapturedRun;
import io.rnic.tools.Ports;
import io.rnic.tools.TcpPorts;
import io.rnic.tools.ToolKind;
import io.rnic.transport.LocalPort;
import io.rnic.transport.TransportCounter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The tools with {@code --driver}: one side a client of a driver started in this JVM on one end of an in-memory link,
 * the other side a tool with its own engine on the other end, every byte verified. Spinning threads: the driver's
 * engine and the embedded tool's (both yielding); the driver client's application thread backs off.
 */
class ToolsThroughDriverTest
{
    private static final long MAC_DRIVER = 0x02_00_00_00_0F_01L;
    private static final long MAC_EMBEDDED = 0x02_00_00_00_0F_02L;

    private Path directory;
    private Driver driver;
    private String embeddedName;

    @BeforeEach
    void start() throws Exception
    {
        directory = Files.createTempDirectory("rnic-tool-driver");
        final InMemoryPort[] ports = InMemoryPort.pair(MAC_DRIVER, MAC_EMBEDDED, 4096, 1 << 23);
        final EndpointOptions options = EndpointOptions.defaults().withIdleStrategy("yield")
            .withAnswerNeighbours(true).withHoldRocePort(false);
        driver = Driver.start(directory, TimeUnit.SECONDS.toNanos(5),
            counters -> Endpoint.start(new PacketPort[]{ ports[0] }, addressing(MAC_DRIVER, 1), options, counters));
        embeddedName = "drv-" + ThreadLocalRandom.current().nextInt(1 << 20);
        Ports.registerInMemory(embeddedName, ports[1], addressing(MAC_EMBEDDED, 2));
    }

    @AfterEach
    void stop() throws Exception
    {
        try
        {
            driver.close();
        }
        finally
        {
            try (Stream<Path> files = Files.walk(directory))
            {
                files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
            }
        }
    }

    /**
     * The driver's client as client (its requests leave through the driver, responses land in its shared memory) and
     * as server (the embedded client's WRITEs and SENDs land in memory the driver maps, checked byte by byte).
     */
    @ParameterizedTest
    @CsvSource({ "WRITE_BW,client", "READ_LAT,client", "SEND_BW,client", "RC_PINGPONG,client", "WRITE_BW,server",
        "SEND_BW,server" })
    void shouldRunToolThroughADriverAgainstAnEmbeddedTool(final ToolKind kind, final String driverSide)
        throws Exception
    {
        final List<String> common = new ArrayList<>(List.of("-p", String.valueOf(tcpPort()), "--verify",
            "--timeout-ms", "30000"));
        switch (kind)
        {
            case WRITE_BW, SEND_BW -> common.addAll(List.of("-s", "5000", "-n", "2000", "-q", "2", "--warmup", "100"));
            case RC_PINGPONG -> common.addAll(List.of("-s", "3000", "-n", "300"));
            default -> common.addAll(List.of("-s", "3000", "-n", "300", "--warmup", "20"));
        }
        final boolean driverIsClient = driverSide.equals("client");
        final CapturedRun[] results = runAgainstEmbedded(kind, common, driverIsClient);
        final CapturedRun c = results[0];
        final CapturedRun s = results[1];
        assertEquals(0, c.status(), "client:\n" + c.out() + c.err() + "\nserver:\n" + s.out() + s.err());
        assertEquals(0, s.status(), "server:\n" + s.out() + s.err());
        assertTrue(c.out().contains("verify: OK") && s.out().contains("verify: OK"), c.out() + s.out());
        final CapturedRun viaDriver = driverIsClient ? c : s;
        assertTrue(viaDriver.out().contains(" rnic counters (driver " + directory + "):") &&
            viaDriver.out().contains("the driver (every client's traffic)"), viaDriver.out());
        assertTrue(counter(viaDriver.out(), "rcvd_pkts") > 0 && counter(viaDriver.out(), "sent_pkts") > 0,
            viaDriver.out());
        assertEquals(0, counter(viaDriver.out(), "invalid RoCEv2 frames dropped"), viaDriver.out());
        assertEquals(0, driver.endpoint().engineErrors());
    }

    /**
     * srq-pingpong with its SRQ in a driver: -q QPs on one SRQ the client posts into through shared memory, topped up
     * as it falls to -q (-r 8 for 6 QPs), against an embedded tool's, in both roles; every QP's receives came from it.
     */
    @ParameterizedTest
    @CsvSource({ "client", "server" })
    void shouldPingpongOverAnSrqThroughADriver(final String driverSide) throws Exception
    {
        final List<String> common = new ArrayList<>(List.of("-p", String.valueOf(tcpPort()), "--timeout-ms", "30000",
            "-s", "3000", "-n", "300", "-q", "6", "-r", "8"));
        final boolean driverIsClient = driverSide.equals("client");
        final CapturedRun[] results = runAgainstEmbedded(ToolKind.SRQ_PINGPONG, common, driverIsClient);
        final CapturedRun c = results[0];
        final CapturedRun s = results[1];
        assertEquals(0, c.status(), "client:\n" + c.out() + c.err() + "\nserver:\n" + s.out() + s.err());
        assertEquals(0, s.status(), "server:\n" + s.out() + s.err());
        for (final CapturedRun run : results)
        {
            assertTrue(Pattern.compile("(?m)^300 iters in \\d+\\.\\d\\d seconds = \\d+\\.\\d\\d usec/iter$")
                .matcher(run.out()).find(), run.out());
        }
        final CapturedRun viaDriver = driverIsClient ? c : s;
        assertTrue(counter(viaDriver.out(), "rdma_recvs") >= 300, viaDriver.out());
        assertEquals(0, driver.endpoint().engineErrors());
    }

    /**
     * perftest's {@code -R} through a driver: the exchange and the test QPs connected by the driver's RDMA CM (its one
     * manager on QP1) against an embedded tool's, in both roles, with one QP or several (-q: a CM connection each); the
     * client names the server's RoCE address.
     */
    @ParameterizedTest
    @CsvSource({ "WRITE_BW,client,1", "READ_LAT,server,1", "SEND_BW,server,1", "READ_BW,client,1", "WRITE_BW,server,4",
        "SEND_BW,client,2", "READ_BW,server,2" })
    void shouldConnectWithTheRdmaCmThroughADriver(final ToolKind kind, final String driverSide, final int qps)
        throws Exception
    {
        final List<String> common = new ArrayList<>(List.of("-R", "-p", String.valueOf(tcpPort()), "--verify",
            "--timeout-ms", "30000", "-s", "3000", "-n", "300", "-q", String.valueOf(qps)));
        final List<String> throughDriver = new ArrayList<>(common);
        throughDriver.addAll(List.of("--driver", directory.toString()));
        final List<String> embedded = new ArrayList<>(common);
        embedded.addAll(List.of("--port", "memory", "-d", embeddedName, "--idle", "yield"));
        final boolean driverIsClient = driverSide.equals("client");
        if (driverIsClient)
        {
            throughDriver.add("10.91.0.2");
        }
        else
        {
            embedded.add("10.91.0.1");
        }

        final CapturedRun[] results = CapturedRun.serverThenClient(
            (arguments, out, err) -> PerftestTool.run(kind, arguments, out, err),
            driverIsClient ? embedded : throughDriver, driverIsClient ? throughDriver : embedded,
            () -> driverIsClient || listeners() > 0);
        final CapturedRun c = results[0];
        final CapturedRun s = results[1];
        assertEquals(0, c.status(), "client:\n" + c.out() + c.err() + "\nserver:\n" + s.out() + s.err());
        assertEquals(0, s.status(), "server:\n" + s.out() + s.err());
        assertTrue(c.out().contains("verify: OK") && s.out().contains("verify: OK"), c.out() + s.out());
        assertTrue(c.out().contains("rdma_cm QPs     : ON"), c.out());
        assertEquals(0, driver.endpoint().engineErrors());
        assertEquals(0, driver.clientCount(), "the tool detached");
    }

    /** rping through a driver against an embedded rping, both roles: the CM's MADs and 20 verified pings. */
    @ParameterizedTest
    @CsvSource({ "client", "server" })
    void shouldRpingThroughADriver(final String driverSide) throws Exception
    {
        final boolean driverIsClient = driverSide.equals("client");
        final String serverAddress = driverIsClient ? "10.91.0.2" : "10.91.0.1";
        final int port = tcpPort();
        final List<String> common = List.of("-a", serverAddress, "-p", String.valueOf(port), "-C", "20", "-S", "100",
            "-V", "-v", "--timeout-ms", "30000");
        final List<String> throughDriver = new ArrayList<>(common);
        throughDriver.addAll(List.of("--driver", directory.toString(), driverIsClient ? "-c" : "-s"));
        final List<String> embedded = new ArrayList<>(common);
        embedded.addAll(List.of("--port", "memory", "--iface", embeddedName, "--idle", "yield",
            driverIsClient ? "-s" : "-c"));

        final CapturedRun[] results = CapturedRun.serverThenClient(io.rnic.tools.rping.Rping::run,
            driverIsClient ? embedded : throughDriver, driverIsClient ? throughDriver : embedded,
            () -> driverIsClient || listeners() > 0);
        final CapturedRun c = results[0];
        final CapturedRun s = results[1];
        assertEquals(0, c.status(), "client:\n" + c.out() + c.err() + "\nserver:\n" + s.out() + s.err());
        assertEquals(0, s.status(), "server:\n" + s.out() + s.err());
        assertEquals(20, c.out().lines().filter(l -> l.startsWith("ping data: rdma-ping-")).count(), c.out());
        assertTrue(c.out().contains("client DISCONNECT EVENT") && s.out().contains("server DISCONNECT EVENT"),
            c.out() + s.out());
        assertEquals(0, driver.clientCount(), "rping detached");
    }

    /** The driver stops in the middle of a run: its client says so in one line and fails, rather than hang. */
    @Test
    void shouldFailClearlyWhenTheDriverStopsDuringARun() throws Exception
    {
        final String tcpPort = String.valueOf(tcpPort());
        final List<String> server = List.of("-p", tcpPort, "--timeout-ms", "20000", "-s", "64", "-n", "1000000000",
            "--port", "memory", "-d", embeddedName, "--idle", "yield");
        final List<String> client = List.of("-p", tcpPort, "--timeout-ms", "20000", "-s", "64", "-n", "1000000000",
            "--driver", directory.toString(), "127.0.0.1");
        final ExecutorService threads = Executors.newFixedThreadPool(2);
        try
        {
            final Future<CapturedRun> serverRun = threads.submit(() -> run(ToolKind.WRITE_BW, server));
            final Future<CapturedRun> clientRun = threads.submit(() -> run(ToolKind.WRITE_BW, client));
            final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (driver.endpoint().transportCounter(TransportCounter.PACKETS_SENT) < 1000 && !clientRun.isDone())
            {
                assertTrue(System.nanoTime() < deadlineNs, "no traffic through the driver");
                LockSupport.parkNanos(1_000_000L);
            }
            driver.close();
            final CapturedRun c = clientRun.get(30, TimeUnit.SECONDS);
            assertEquals(1, c.status(), c.out() + c.err());
            // the tool sees the CnC file gone, or first the flushed work requests of the QPs the stopping driver
            // destroyed: either way one line says why
            final String first = c.err().lines().findFirst().orElse("");
            assertTrue(first.equals("write-bw: the rnic driver at " + directory + " has stopped") ||
                first.startsWith("write-bw: work completion WR_FLUSH_ERR"), c.err());
            serverRun.get(30, TimeUnit.SECONDS); // ends on the closed exchange or its own timeout
        }
        finally
        {
            threads.shutdownNow();
        }
    }

    /**
     * The driver stops while its client, a write-bw server, waits on the exchange for its peer's report: the peer's
     * WRITEs meet no QP any more, it fails and closes the exchange. The server names the driver as the cause, not the
     * peer that closed the connection.
     */
    @Test
    void shouldNameTheStoppedDriverNotThePeerWhenTheExchangeEndsAfterTheDriverStopped() throws Exception
    {
        final String tcpPort = String.valueOf(tcpPort());
        final List<String> server = List.of("-p", tcpPort, "--timeout-ms", "20000", "-s", "64", "-n", "1000000000",
            "--driver", directory.toString());
        final List<String> client = List.of("-p", tcpPort, "--timeout-ms", "20000", "-s", "64", "-n", "1000000000",
            "--port", "memory", "-d", embeddedName, "--idle", "yield", "127.0.0.1");
        final ExecutorService threads = Executors.newFixedThreadPool(2);
        try
        {
            final Future<CapturedRun> serverRun = threads.submit(() -> run(ToolKind.WRITE_BW, server));
            while (driver.clientCount() == 0 && !serverRun.isDone())
            {
                LockSupport.parkNanos(1_000_000L); // the server attached: its TCP port is open
            }
            final Future<CapturedRun> clientRun = threads.submit(() -> run(ToolKind.WRITE_BW, client));
            final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (driver.endpoint().transportCounter(TransportCounter.PACKETS_RECEIVED) < 1000 && !clientRun.isDone())
            {
                assertTrue(System.nanoTime() < deadlineNs, "no traffic through the driver");
                LockSupport.parkNanos(1_000_000L);
            }
            driver.close();
            final CapturedRun s = serverRun.get(60, TimeUnit.SECONDS);
            final CapturedRun c = clientRun.get(60, TimeUnit.SECONDS);

            assertNotEquals(0, s.status(), s.out() + s.err());
            assertTrue(s.err().startsWith("the rnic driver at " + directory + " has stopped (then: the peer "),
                "server:\n" + s.err() + "client:\n" + c.err());
        }
        finally
        {
            threads.shutdownNow();
        }
    }

    @Test
    void shouldSayInOneLineThatNoDriverIsThere() throws Exception
    {
        final Path missing = directory.resolve("nothing-here");
        final CapturedRun run = run(ToolKind.WRITE_BW, List.of("--driver", missing.toString(), "127.0.0.1"));
        assertEquals(2, run.status(), run.err());
        assertTrue(run.err().startsWith("no rnic driver at " + missing), run.err());
        assertEquals(1, run.err().lines().count(), run.err());
    }

    /** The ports the driver's RDMA CM listens on, as {@code stat} reads them. */
    private long listeners()
    {
        try (io.rnic.cnc.CncFile cnc = io.rnic.cnc.CncFile.open(directory))
        {
            final org.agrona.concurrent.status.CountersReader counters = new org.agrona.concurrent.status
                .CountersReader(cnc.countersMetadataBuffer(), cnc.countersValuesBuffer(),
                java.nio.charset.StandardCharsets.US_ASCII);
            final long[] value = { 0 };
            counters.forEach((id, type, key, label) ->
            {
                if (label.equals("driver RDMA CM ports listened on"))
                {
                    value[0] = counters.getCounterValue(id);
                }
            });
            return value[0];
        }
    }

    private static CapturedRun run(final ToolKind kind, final List<String> args)
    {
        return CapturedRun.of((arguments, out, err) -> PerftestTool.run(kind, arguments, out, err), args);
    }

    private static long counter(final String report, final String name)
    {
        final Matcher value = Pattern.compile("(?m)^\\s+" + name + "\\s+([0-9,]+)$").matcher(report);
        return value.find() ? Long.parseLong(value.group(1).replace(",", "")) : 0;
    }

    /** Server and client on two threads; returns {client, server}. */
    /**
     * The tool {@code kind} with {@code common} arguments through the driver on one side and embedded (an in-memory
     * port) on the other; the client names the server's IPv4 address: the exchange runs over loopback TCP, the GIDs
     * say the rest. Returns the client's run, then the server's.
     */
    private CapturedRun[] runAgainstEmbedded(
        final ToolKind kind, final List<String> common, final boolean driverIsClient) throws Exception
    {
        final List<String> throughDriver = new ArrayList<>(common);
        throughDriver.addAll(List.of("--driver", directory.toString()));
        final List<String> embedded = new ArrayList<>(common);
        embedded.addAll(List.of("--port", "memory", "-d", embeddedName, "--idle", "yield"));
        (driverIsClient ? throughDriver : embedded).add("127.0.0.1");
        return runPair(kind, driverIsClient ? embedded : throughDriver, driverIsClient ? throughDriver : embedded);
    }

    private static CapturedRun[] runPair(final ToolKind kind, final List<String> server, final List<String> client)
        throws Exception
    {
        return CapturedRun.serverAndClient((arguments, out, err) -> PerftestTool.run(kind, arguments, out, err),
            server, client);
    }

    private static LocalPort addressing(final long mac, final int host)
    {
        final LocalPort port = new LocalPort(mac).ethernetMtu(1500);
        port.addGid(0xFE80_0000_0000_0000L, InterfaceAddresses.eui64(mac));
        port.addIpv4(0x0A5B_0000 | host);
        return port;
    }

    private static int tcpPort()
    {
        return TcpPorts.free();
    }
}
