package io.rnic.cli;

import io.rnic.status.CounterTypes;
import io.rnic.testing.Json;
import io.rnic.tools.ToolProcess;
import io.rnic.transport.TransportCounter;
import org.agrona.concurrent.status.AtomicCounter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code rnic stat} over a CnC file made here as a driver makes it, read through the mapped file only. */
class StatCommandTest
{
    @TempDir
    Path dir;

    private record Result(int status, String out, String err)
    {
    }

    private static Result stat(final Path shm, final long maxSnapshots, final String... args)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int status = StatCommand.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8), shm, maxSnapshots);
        return new Result(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private Result stat(final String... args)
    {
        final String[] all = new String[args.length + 2];
        all[0] = "--dir";
        all[1] = dir.toString();
        System.arraycopy(args, 0, all, 2, args.length);
        return stat(dir, 1, all);
    }

    @Test
    void shouldPrintEveryCounterAsAeronStatDoesWithTheHeaderAndTheDistinctErrors()
    {
        try (DriverCncFixture driver = new DriverCncFixture(dir))
        {
            final AtomicCounter sent = driver.counters.newCounter("engine 0: " + TransportCounter.PACKETS_SENT.label(),
                CounterTypes.TRANSPORT);
            final AtomicCounter cnps = driver.counters.newCounter("engine 0: " + TransportCounter.CNP_SENT.label(),
                CounterTypes.TRANSPORT);
            sent.set(1_234_567);
            cnps.set(3);
            final IllegalStateException error = new IllegalStateException("MR file too short");
            assertTrue(driver.errors.record(error));
            assertTrue(driver.errors.record(error));
            driver.markReady();

            final Result result = stat();

            assertEquals(0, result.status(), result.err());
            assertEquals("", result.err());
            final List<String> lines = result.out().lines().toList();
            assertTrue(Pattern.matches("\\d\\d:\\d\\d:\\d\\d - rnic driver pid " + ProcessHandle.current().pid() +
                ", started \\S+, heartbeat \\d+ ms ago", lines.get(0)), lines.get(0));
            assertTrue(lines.contains(String.format("%3d: %,20d - engine 0: sent_pkts", sent.id(), 1_234_567)),
                result.out());
            assertTrue(lines.contains(String.format("%3d: %,20d - engine 0: np_cnp_sent", cnps.id(), 3)), result.out());
            assertTrue(lines.contains("1 distinct error:"), result.out());
            assertTrue(result.out().contains("2 observations from "), result.out());
            assertTrue(result.out().contains("java.lang.IllegalStateException: MR file too short"), result.out());
        }
    }

    @Test
    void shouldPrintOneJsonObjectPerSnapshotAndFilterByLabel()
    {
        try (DriverCncFixture driver = new DriverCncFixture(dir))
        {
            driver.counters.newCounter("engine 0: sent_pkts", CounterTypes.TRANSPORT).set(10);
            final AtomicCounter qp = driver.counters.newCounter("qp 0x000123 client 7 RTS sq_psn 0x10 rq_psn 0x20 " +
                "retransmitted", CounterTypes.QP);
            qp.set(5);
            driver.markReady();

            final Result result = stat("--json", "--filter", "^qp 0x");

            assertEquals(0, result.status(), result.err());
            final List<String> lines = result.out().lines().toList();
            assertEquals(1, lines.size(), result.out());
            final Map<String, Object> snapshot = Json.parseObject(lines.get(0));
            assertEquals(ProcessHandle.current().pid(), snapshot.get("driver_pid"));
            assertEquals(Boolean.TRUE, snapshot.get("responding"));
            final List<?> counters = (List<?>)snapshot.get("counters");
            assertEquals(1, counters.size(), "the filter keeps the QP's counter only: " + counters);
            final Map<?, ?> counter = (Map<?, ?>)counters.get(0);
            assertEquals((long)qp.id(), counter.get("id"));
            assertEquals((long)CounterTypes.QP, counter.get("type_id"));
            assertEquals(5L, counter.get("value"));
            assertTrue(((String)counter.get("label")).startsWith("qp 0x000123 "));
            assertEquals(List.of(), snapshot.get("errors"));
        }
    }

    @Test
    void shouldRefreshUntilStoppedWhenWatchingClearingTheScreenAsAeronStatDoes()
    {
        try (DriverCncFixture driver = new DriverCncFixture(dir))
        {
            driver.counters.newCounter("engine 0: rcvd_pkts", CounterTypes.TRANSPORT).set(1);
            driver.markReady();
            final ByteArrayOutputStream out = new ByteArrayOutputStream();

            final int status = StatCommand.run(new String[]{ "--dir", dir.toString(), "--watch", "1" },
                new PrintStream(out, true, StandardCharsets.UTF_8), System.err, dir, 3, true);

            assertEquals(0, status);
            final String text = out.toString(StandardCharsets.UTF_8);
            assertEquals(3, text.split(Pattern.quote(StatCommand.CLEAR_SCREEN), -1).length - 1, text);
        }
    }

    @Test
    void shouldWriteNoTerminalEscapesWhenWatchingIntoAPipe()
    {
        try (DriverCncFixture driver = new DriverCncFixture(dir))
        {
            driver.counters.newCounter("engine 0: rcvd_pkts", CounterTypes.TRANSPORT).set(1);
            driver.markReady();

            final Result result = stat(dir, 3, "--dir", dir.toString(), "--watch", "1");

            assertEquals(0, result.status(), result.err());
            assertFalse(result.out().contains("\u001b"), result.out());
            assertEquals(3, result.out().lines().filter(line -> line.contains(" - rnic driver pid ")).count(),
                result.out());
        }
    }

    @Test
    void shouldSayTheDriverIsNotRunningWhenItsProcessIsGone() throws Exception
    {
        try (DriverCncFixture driver = new DriverCncFixture(dir))
        {
            driver.counters.newCounter("engine 0: sent_pkts", CounterTypes.TRANSPORT).set(9);
            driver.markReady();
            driver.kill(); // its heartbeat is fresh, its CnC file there: only its lock tells

            final Result result = stat();
            final Result json = stat("--json");

            assertEquals(1, result.status());
            assertEquals("rnic stat: the rnic driver at " + dir + " (pid " + ProcessHandle.current().pid() + ") is not " +
                "running: no process holds " + dir.resolve("driver.lock") + " (it was killed or crashed); its " +
                "counters as it left them above\n", result.err());
            assertTrue(result.out().lines().findFirst().orElseThrow()
                .endsWith("NOT RUNNING (its lock is free: killed or crashed)"), result.out());
            assertTrue(result.out().contains("engine 0: sent_pkts"), "the last counters are still shown");
            assertEquals(1, json.status());
            assertEquals(Boolean.FALSE, Json.parseObject(json.out().lines().findFirst().orElseThrow()).get("running"));
        }
    }

    @Test
    void shouldEndTheWatchSayingSoWhenTheDriverStops() throws Exception
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final AtomicInteger status = new AtomicInteger(-1);
        final Thread watch;
        try (DriverCncFixture driver = new DriverCncFixture(dir))
        {
            driver.counters.newCounter("engine 0: sent_pkts", CounterTypes.TRANSPORT).set(9);
            driver.markReady();
            watch = Thread.ofPlatform().start(() -> status.set(StatCommand.run(
                new String[]{ "--dir", dir.toString(), "--watch", "1" }, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), dir, Long.MAX_VALUE, false)));
            while (!out.toString(StandardCharsets.UTF_8).contains("sent_pkts"))
            {
                Thread.onSpinWait(); // its first snapshot
            }
            Files.delete(dir.resolve("cnc.dat")); // as a driver's clean stop does, then it lets its lock go
        }

        watch.join(TimeUnit.SECONDS.toMillis(60)); // a bound on a hang, not a measure
        assertFalse(watch.isAlive(), "stat --watch went on redrawing a driver that stopped: " + out);
        assertEquals(1, status.get());
        assertEquals("rnic stat: the rnic driver at " + dir + " stopped (its cnc.dat is gone)\n",
            err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void shouldSayTheDriverIsNotRespondingWhenItsHeartbeatIsOlderThanTheClientTimeout()
    {
        try (DriverCncFixture driver = new DriverCncFixture(dir))
        {
            driver.counters.newCounter("engine 0: sent_pkts", CounterTypes.TRANSPORT).set(9);
            driver.markReady();
            driver.cnc.heartbeat(System.currentTimeMillis() - 60_000);

            final Result result = stat();

            assertEquals(2, result.status());
            assertTrue(Pattern.matches("rnic stat: driver not responding \\(heartbeat 6\\d{4} ms ago\\)\\R",
                result.err()), result.err());
            assertTrue(result.out().contains("engine 0: sent_pkts"), "the last counters are still shown");
        }
    }

    @Test
    void shouldSayInOneLineThatNoDriverIsThereOrReady()
    {
        final Result none = stat();
        assertEquals(1, none.status());
        assertEquals(1, none.err().lines().count(), none.err());
        assertTrue(none.err().startsWith("rnic stat: no rnic driver at " + dir + " (no cnc.dat)"), none.err());
        assertEquals("", none.out());

        try (DriverCncFixture ignored = new DriverCncFixture(dir)) // created, never marked ready
        {
            final Result starting = stat();
            assertEquals(1, starting.status());
            assertEquals(1, starting.err().lines().count(), starting.err());
            assertTrue(starting.err().contains("is not ready"), starting.err());
        }

        final Result noneUnderShm = stat(dir, 1); // no --dir: the rnic-* directories under "/dev/shm"
        assertEquals(1, noneUnderShm.status());
        assertTrue(noneUnderShm.err().startsWith("rnic stat: no rnic driver in " + dir), noneUnderShm.err());
    }

    @Test
    void shouldFindTheOnlyDriverDirectoryUnderShm()
    {
        final Path driverDir = dir.resolve("rnic-veth0");
        assertTrue(driverDir.toFile().mkdir());
        try (DriverCncFixture driver = new DriverCncFixture(driverDir))
        {
            driver.counters.newCounter("engine 0: sent_pkts", CounterTypes.TRANSPORT).set(4);
            driver.markReady();

            final Result result = stat(dir, 1);

            assertEquals(0, result.status(), result.err());
            assertTrue(result.out().contains("engine 0: sent_pkts"), result.out());
        }
    }

    @Test
    void shouldRefuseBadOptionsWithTheUsage()
    {
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int status = RnicCli.run(new String[]{ "stat", "--filter", "(" }, new PrintStream(new ByteArrayOutputStream()),
            new PrintStream(err, true, StandardCharsets.UTF_8));
        final List<String> lines = err.toString(StandardCharsets.UTF_8).lines().toList();
        assertEquals(2, status);
        assertTrue(lines.get(0).startsWith("rnic stat: --filter '(' is not a regular expression"), lines.get(0));
        assertEquals("usage: rnic " + StatCommand.SYNOPSIS, lines.get(1));
    }

    @Test
    void shouldBeReadByAnotherProcessWhileThisOneCounts() throws Exception
    {
        try (DriverCncFixture driver = new DriverCncFixture(dir))
        {
            final AtomicCounter received = driver.counters.newCounter("engine 0: rcvd_pkts", CounterTypes.TRANSPORT);
            received.set(41_999);
            driver.markReady();
            final ToolProcess reader = ToolProcess.start(null, List.of("stat", "--dir", dir.toString(), "--json"));
            received.increment(); // the reader sees 41 999 or 42 000, whichever it reads first, and nothing else

            final ToolProcess.Result result = reader.await(60);

            assertEquals(0, result.status(), result.output());
            final String json = result.output().lines().filter(line -> line.startsWith("{")).findFirst().orElseThrow();
            final Map<?, ?> counter = (Map<?, ?>)((List<?>)Json.parseObject(json).get("counters")).get(0);
            assertEquals("engine 0: rcvd_pkts", counter.get("label"));
            final long value = (Long)counter.get("value");
            assertTrue(value == 41_999 || value == 42_000, json);
            assertFalse(result.output().contains("Exception"), result.output());
        }
    }
}
