package io.rnic.datapath.driver;

import io.rnic.client.DriverContext;
import io.rnic.cnc.CncException;
import io.rnic.testing.ForkedJvm;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.QpInitAttributes;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.WrOpcode;
import io.rnic.device.QueuePair;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A driver killed with SIGKILL (no close, its CnC file left behind, its heartbeat frozen): its clients learn it on
 * their next call, in one line, within the client timeout and a second, never by hanging; a new driver takes the
 * directory over (the OS released the dead one's lock) and serves new clients.
 */
class DriverDeathTest
{
    /** Long enough for a driver JVM that has just started (cold code, two yielding engine threads) on two cores. */
    private static final long CLIENT_TIMEOUT_MS = 2_000;
    private final List<Process> drivers = new ArrayList<>();
    private Path directory;

    @AfterEach
    void stop() throws Exception
    {
        for (final Process driver : drivers)
        {
            driver.destroyForcibly();
            driver.waitFor();
        }
        if (directory != null)
        {
            try (Stream<Path> files = Files.walk(directory))
            {
                files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
            }
        }
    }

    @Test
    void shouldFailTheClientInOneLineWhenTheDriverIsKilledAndServeAgainAfterARestart() throws Exception
    {
        directory = Files.createTempDirectory("rnic-driver-death");
        final Process first = startDriver();
        final DriverContext client = DriverContext.open(directory);
        final ProtectionDomain pd = client.allocPd();
        final CompletionQueue cq = served(() -> client.createCq(16));
        final QueuePair qp = client.createQp(new QpInitAttributes().pd(pd).cqs(cq, cq).capacity(4, 4));

        first.destroyForcibly();
        assertTrue(first.waitFor(10, TimeUnit.SECONDS), "SIGKILL did not end the driver");
        final long killedNs = System.nanoTime();
        final CncException gone = assertThrows(CncException.class, client::allocPd);
        final long failedAfterMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedNs);
        assertTrue(gone.getMessage().contains("is not running"), gone.getMessage());
        assertTrue(failedAfterMs <= CLIENT_TIMEOUT_MS + 1_000,
            "the client learnt of the driver's death after " + failedAfterMs + " ms: " + gone.getMessage());

        final SendWorkRequest send = new SendWorkRequest();
        send.opcode = WrOpcode.SEND;
        final CncException postGone = assertThrows(CncException.class, () -> qp.postSend(send));
        assertTrue(postGone.getMessage().contains("is not running"), postGone.getMessage());
        client.close();

        startDriver();
        try (DriverContext again = DriverContext.open(directory))
        {
            final ProtectionDomain newPd = again.allocPd();
            final CompletionQueue newCq = served(() -> again.createCq(16));
            final QueuePair newQp = again.createQp(new QpInitAttributes().pd(newPd).cqs(newCq, newCq).capacity(4, 4));
            assertTrue(newQp.qpn() > 0);
            again.destroyQp(newQp);
            again.destroyCq(newCq);
        }
    }

    /**
     * With a client timeout of a minute, the frozen heartbeat would tell after a minute: the driver's lock, which the
     * kernel let go with its process, tells the call waiting for its answer at once.
     */
    @Test
    void shouldFailACallWaitingForAKilledDriverByItsFreeLockNotAfterTheClientTimeout() throws Exception
    {
        directory = Files.createTempDirectory("rnic-driver-death");
        final Process driver = startDriver(60_000);
        try (DriverContext client = DriverContext.open(directory))
        {
            client.allocPd();

            driver.destroyForcibly();
            assertTrue(driver.waitFor(10, TimeUnit.SECONDS), "SIGKILL did not end the driver");
            final CncException gone = assertThrows(CncException.class, client::allocPd);

            assertEquals("the rnic driver at " + directory + " (pid " + driver.pid() + ") is not running: no process " +
                "holds " + directory.resolve("driver.lock") + " (it was killed or crashed): start it again (bin/rnic " +
                "driver) and reopen the context", gone.getMessage());
        }
    }

    /** What a live driver answers; when it does not, the failure shows what the driver logged. */
    private <T> T served(final java.util.function.Supplier<T> call)
    {
        try
        {
            return call.get();
        }
        catch (final CncException ex)
        {
            final StringBuilder errors = new StringBuilder();
            try (io.rnic.cnc.CncFile cnc = io.rnic.cnc.CncFile.open(directory))
            {
                org.agrona.concurrent.errors.ErrorLogReader.read(cnc.errorLogBuffer(),
                    (count, first, last, text) -> errors.append(count).append("x ").append(text));
            }
            throw new AssertionError(ex.getMessage() + "; the driver logged: " + errors, ex);
        }
    }

    private Process startDriver() throws IOException
    {
        return startDriver(CLIENT_TIMEOUT_MS);
    }

    private Process startDriver(final long clientTimeoutMs) throws IOException
    {
        final Process driver = ForkedJvm.start(ForkedDriverMain.class, directory.toString(),
            Long.toString(clientTimeoutMs));
        drivers.add(driver);
        final BufferedReader out = new BufferedReader(new InputStreamReader(driver.getInputStream(),
            StandardCharsets.UTF_8));
        final String line = out.readLine();
        assertTrue(line != null && line.startsWith(ForkedDriverMain.READY), "the forked driver said " + line);
        assertEquals(driver.pid(), Long.parseLong(line.substring(line.lastIndexOf(' ') + 1)));
        return driver;
    }
}
