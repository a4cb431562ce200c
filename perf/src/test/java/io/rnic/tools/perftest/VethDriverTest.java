package io.rnic.tools.perftest;

import io.rnic.cnc.CncException;
import io.rnic.cnc.CncFile;
import io.rnic.tools.NetnsTopology;
import io.rnic.tools.ToolProcess;
import io.rnic.transport.TransportCounter;
import org.agrona.concurrent.status.CountersReader;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Issue 14's proof of the driver with the tools as users run them, every one a process of {@code bin/rnic} in a
 * network namespace of one veth pair: in each namespace a driver (the engines, yielding: two spinning threads in
 * all), and two tools through each at the same time, {@code write-bw --verify} and {@code read-lat --verify}. The
 * tools' application threads back off. Needs root.
 */
class VethDriverTest
{
    private static final int MTU = 1024;
    private static final int WRITE_SIZE = 3000;
    private static final int WRITE_MESSAGES = 2000 + 200;
    private static final int READ_MESSAGES = 500 + 50;

    @Test
    void shouldServeTwoToolsAtOnceThroughOneDriverOnEachSide() throws Exception
    {
        assumeTrue(NetnsTopology.available(), "needs root and iproute2 for network namespaces");
        final Path root = Files.createTempDirectory("rnic-veth-driver");
        final Path serverDir = root.resolve("server");
        final Path clientDir = root.resolve("client");
        try (NetnsTopology topology = new NetnsTopology(1500))
        {
            final ToolProcess serverDriver = ToolProcess.start(topology.nsA, List.of("driver", "-d", topology.ifA,
                "--dir", serverDir.toString(), "--idle", "yield"));
            final ToolProcess clientDriver = ToolProcess.start(topology.nsB, List.of("driver", "-d", topology.ifB,
                "--dir", clientDir.toString(), "--idle", "yield"));
            try
            {
                awaitDriver(serverDir);
                awaitDriver(clientDir);
                // without --driver, the interface a driver holds is refused in one line naming --driver
                final ToolProcess.Result refused = ToolProcess.start(topology.nsB, List.of("write-bw", "-d",
                    topology.ifB, topology.ip4A)).await(60);
                assertEquals(2, refused.status(), refused.output());
                // after the description, leaving out the JVM's own warning (the Vector API's incubator module)
                final List<String> refusal = refused.output().lines().skip(1)
                    .filter(line -> !line.startsWith("WARNING: ")).toList();
                assertEquals(1, refusal.size(), refused.output());
                assertTrue(refusal.get(0).startsWith("rnic write-bw: another rnic endpoint already runs on " +
                    topology.ifB) && refusal.get(0).contains("--driver /dev/shm/rnic-" + topology.ifB),
                    refused.output());

                final List<String> write = List.of("write-bw", "-x", "1", "-m", String.valueOf(MTU), "--verify",
                    "--timeout-ms", "60000", "-p", "18611", "-s", String.valueOf(WRITE_SIZE), "-n", "2000", "-q", "2",
                    "--warmup", "200");
                final List<String> read = List.of("read-lat", "-x", "1", "-m", String.valueOf(MTU), "--verify",
                    "--timeout-ms", "60000", "-p", "18612", "-s", "2500", "-n", "500", "--warmup", "50");
                final ToolProcess writeServer = ToolProcess.start(topology.nsA, with(write, "--driver", serverDir));
                final ToolProcess readServer = ToolProcess.start(topology.nsA, with(read, "--driver", serverDir));
                final ToolProcess writeClient = ToolProcess.start(topology.nsB, with(with(write, "--driver",
                    clientDir), topology.ip4A));
                final ToolProcess readClient = ToolProcess.start(topology.nsB, with(with(read, "--driver",
                    clientDir), topology.ip4A));
                final ToolProcess.Result wc = writeClient.await(120);
                final ToolProcess.Result rc = readClient.await(120);
                final ToolProcess.Result ws = writeServer.await(30);
                final ToolProcess.Result rs = readServer.await(30);
                for (final ToolProcess.Result run : List.of(wc, rc, ws, rs))
                {
                    assertEquals(0, run.status(), run.output() + "\n--- all:\n" + wc.output() + rc.output() +
                        ws.output() + rs.output());
                    assertTrue(run.output().contains("verify: OK"), run.output());
                }

                final Set<String> qpns = new HashSet<>();
                for (final ToolProcess.Result run : List.of(wc, rc))
                {
                    final Matcher local = Pattern.compile(" local address: LID 0000 QPN (0x[0-9a-f]+)")
                        .matcher(run.output());
                    while (local.find())
                    {
                        assertTrue(qpns.add(local.group(1)), "QPN " + local.group(1) + " twice:\n" + wc.output() +
                            rc.output());
                    }
                }
                assertEquals(3, qpns.size(), "write-bw's two QPs and read-lat's one: " + qpns);

                // what the clients' driver sent: every WRITE packet of write-bw and every READ request of read-lat
                // (a requester sends no ACKs), each once on a clean link, nothing else
                final long packetsPerWrite = (WRITE_SIZE + MTU - 1) / MTU;
                final long expected = 2 * WRITE_MESSAGES * packetsPerWrite + READ_MESSAGES;
                final long[] sent = driverCounters(clientDir,
                    TransportCounter.PACKETS_SENT.label(), TransportCounter.RETRANSMITTED_PACKETS.label());
                if (sent[1] == 0)
                {
                    assertEquals(expected, sent[0], "sent_pkts of the clients' driver");
                }
                else
                {
                    assertTrue(sent[0] >= expected, "sent_pkts " + sent[0] + " < " + expected);
                }
                System.out.println("clients' driver: sent_pkts " + sent[0] + ", retransmitted " + sent[1] +
                    "; the two runs needed " + expected);
            }
            finally
            {
                final ToolProcess.Result c = clientDriver.stop(30);
                final ToolProcess.Result s = serverDriver.stop(30);
                assertEquals(0, c.status(), c.output());
                assertEquals(0, s.status(), s.output());
            }
        }
        finally
        {
            try (Stream<Path> files = Files.walk(root))
            {
                files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
            }
        }
    }

    private static List<String> with(final List<String> arguments, final String... more)
    {
        final List<String> all = new ArrayList<>(arguments);
        all.addAll(List.of(more));
        return all;
    }

    private static List<String> with(final List<String> arguments, final String option, final Path value)
    {
        return with(arguments, option, value.toString());
    }

    /** Waits until the driver's CnC file is there and ready (a driver's JVM takes seconds to start). */
    private static void awaitDriver(final Path directory)
    {
        final long deadlineNs = System.nanoTime() + 60_000_000_000L;
        while (true)
        {
            try (CncFile ignored = CncFile.open(directory))
            {
                return;
            }
            catch (final CncException ex)
            {
                if (System.nanoTime() - deadlineNs > 0)
                {
                    throw ex;
                }
                LockSupport.parkNanos(20_000_000L);
            }
        }
    }

    /** The driver's transport counters of these names, summed over its engines, read from its CnC file. */
    private static long[] driverCounters(final Path directory, final String... names)
    {
        final long[] values = new long[names.length];
        try (CncFile cnc = CncFile.open(directory))
        {
            final CountersReader counters = new CountersReader(cnc.countersMetadataBuffer(),
                cnc.countersValuesBuffer(), StandardCharsets.US_ASCII);
            counters.forEach((id, typeId, key, label) ->
            {
                for (int i = 0; i < names.length; i++)
                {
                    if (label.startsWith("engine ") && label.endsWith(": " + names[i]))
                    {
                        values[i] += counters.getCounterValue(id);
                    }
                }
            });
        }
        return values;
    }
}
