package io.rnic.datapath.driver;

import io.rnic.client.DriverContext;
import io.rnic.cnc.CncFile;
import io.rnic.cnc.QpQueuesLayout;
import io.rnic.datapath.endpoint.EndpointPairScenario;
import io.rnic.shm.SharedMemory;
import io.rnic.testing.OpenDescriptors;
import io.rnic.testing.ForkedJvm;
import io.rnic.verbs.WcStatus;
import io.rnic.verbs.WorkCompletion;
import org.agrona.concurrent.status.CountersReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A client killed with SIGKILL while a peer streams WRITEs into its memory: the kernel closes its {@code fds.sock}
 * connection, so the driver reclaims it at once, long before its client timeout, destroys what it held (its QP vanishes
 * from the wire, so the peer's QP ends in RETRY_EXC_ERR), counts it as gone, and another client of the same driver goes
 * on unaffected meanwhile and after. A client that stops its keepalives but keeps its connection open is still
 * reclaimed, by the client timeout.
 */
class ClientCrashTest
{
    /** Long against a socket's close, short for the test that waits for it. */
    private static final long CLIENT_TIMEOUT_MS = 4_000;
    /** What a closed connection may take to be reclaimed, a process's death included, on a busy machine. */
    private static final long CLOSED_RECLAIM_BOUND_MS = 2_000;
    private static final int WRITE_BYTES = 16_384;
    private static final int WRITES_BEFORE_KILL = 32;
    private static final int CQ_ENTRIES = 16;

    private DriverFixture fixture;
    private CncFile cnc;
    private CountersReader counters;
    private Process child;

    @BeforeEach
    void start() throws Exception
    {
        fixture = DriverFixture.withTimeoutMs(CLIENT_TIMEOUT_MS);
        cnc = CncFile.open(fixture.directory);
        counters = new CountersReader(cnc.countersMetadataBuffer(), cnc.countersValuesBuffer());
    }

    @AfterEach
    void stop() throws Exception
    {
        if (child != null)
        {
            child.destroyForcibly();
            child.waitFor();
        }
        cnc.close();
        fixture.close();
    }

    @Test
    void shouldReclaimAKilledClientWhileItsPeerWritesAndLeaveOtherClientsAlone() throws Exception
    {
        final long resourcesBefore = DriverFixture.counter(counters, "driver client resources");
        final DriverContext other = DriverContext.open(fixture.directory);
        final int clientsBefore = fixture.driver.clientCount();

        child = ForkedJvm.start(ForkedClientMain.class, fixture.directory.toString(),
            DriverFixture.IP_PEER.getHostAddress());
        final BufferedReader childOut = new BufferedReader(new InputStreamReader(child.getInputStream(),
            StandardCharsets.UTF_8));
        final Writer childIn = new OutputStreamWriter(child.getOutputStream(), StandardCharsets.UTF_8);
        final String[] qp = line(childOut, "QP ").split(" ");
        final int childQpn = Integer.parseInt(qp[1]);
        final long childAddress = Long.parseLong(qp[2]);
        final int childRKey = Integer.parseInt(qp[3]);
        assertEquals(clientsBefore + 1, fixture.driver.clientCount());

        final RcEnd peer = new RcEnd(fixture.peer, 1 << 20);
        // a 67 ms ACK timeout, 3 retries: RETRY_EXC_ERR within a second of the QP's end, and never from a busy machine
        peer.connect(childQpn, DriverFixture.IP_DRIVER, 14, 3);
        childIn.write(peer.qp.qpn() + "\n");
        childIn.flush();
        line(childOut, "CONNECTED");
        assertEquals(0, peer.postWrite(1, childAddress, childRKey, WRITE_BYTES));
        final WorkCompletion first = peer.poll(peer.sendCq, TimeUnit.SECONDS.toNanos(10));
        assertNotNull(first, "no completion of the first WRITE into the child");
        assertEquals(WcStatus.SUCCESS, first.status());

        CompletableFuture<Void> during = null;
        long killedNs = 0;
        WcStatus ended = WcStatus.SUCCESS;
        long writes = 0;
        while (ended == WcStatus.SUCCESS)
        {
            if (writes == WRITES_BEFORE_KILL)
            {
                during = CompletableFuture.runAsync(() -> rcOperations(other));
                child.destroyForcibly();
                killedNs = System.nanoTime();
            }
            assertEquals(0, peer.postWrite(2 + writes, childAddress + (writes % 64) * WRITE_BYTES, childRKey,
                WRITE_BYTES));
            final WorkCompletion done = peer.poll(peer.sendCq, TimeUnit.SECONDS.toNanos(10));
            assertNotNull(done, "the peer's WRITE " + writes + " neither completed nor failed");
            ended = done.status();
            writes++;
        }
        assertEquals(WcStatus.RETRY_EXC_ERR, ended, "after " + writes + " WRITEs");
        assertTrue(writes > WRITES_BEFORE_KILL, "the WRITEs failed before the kill");

        final long boundNs = TimeUnit.MILLISECONDS.toNanos(CLOSED_RECLAIM_BOUND_MS);
        while (fixture.driver.clientCount() != clientsBefore)
        {
            assertTrue(System.nanoTime() - killedNs < boundNs, "the killed client is still attached " +
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedNs) + " ms after its death");
            LockSupport.parkNanos(1_000_000);
        }
        assertEquals(1, DriverFixture.counter(counters, "driver clients departed without detaching (fds.sock closed)"));
        assertEquals(0, DriverFixture.counter(counters, "driver client timeouts"));

        during.get(30, TimeUnit.SECONDS);
        rcOperations(other);
        other.close();
        assertEquals(resourcesBefore, DriverFixture.counter(counters, "driver client resources"));
        assertEquals(clientsBefore - 1, fixture.driver.clientCount());
        assertEquals(0, fixture.driver.endpoint().engineErrors());
    }

    @Test
    void shouldTimeOutAClientThatStopsItsKeepalivesWithItsConnectionOpen()
    {
        final long resourcesBefore = DriverFixture.counter(counters, "driver client resources");
        final long cqBytes = QpQueuesLayout.completionQueueFileLength(CQ_ENTRIES);
        try (RawClient client = new RawClient(cnc, fixture.directory, 0x51_1E47);
            SharedMemory cqMemory = SharedMemory.create("rnic-silent-cq", cqBytes, false);
            SharedMemory unused = SharedMemory.create("rnic-silent-unused", 4096, false))
        {
            client.attach();
            assertTrue(client.allocPd().startsWith("result "));
            client.sendFd(1, cqMemory.fd());
            assertTrue(client.createCq(1, cqBytes, CQ_ENTRIES).startsWith("result "));
            client.sendFd(2, unused.fd());
            final long silentNs = System.nanoTime(); // its last command: no keepalive follows, the socket stays open
            assertEquals(resourcesBefore + 2, DriverFixture.counter(counters, "driver client resources"));

            final long boundNs = TimeUnit.MILLISECONDS.toNanos(CLIENT_TIMEOUT_MS + 5_000);
            while (fixture.driver.clientCount() != 0)
            {
                assertTrue(System.nanoTime() - silentNs < boundNs, "the silent client is still attached");
                LockSupport.parkNanos(1_000_000);
            }
            final long reclaimedAfterMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - silentNs);
            assertTrue(reclaimedAfterMs >= CLIENT_TIMEOUT_MS - 100, "timed out after " + reclaimedAfterMs + " ms");
            assertEquals(1, DriverFixture.counter(counters, "driver client timeouts"));
            assertEquals(0, DriverFixture.counter(counters, "driver clients departed without detaching (fds.sock closed)"));
            assertEquals(resourcesBefore, DriverFixture.counter(counters, "driver client resources"));
            assertEquals(1, OpenDescriptors.ofMemfd("rnic-silent-unused"), "the memfd it never named is closed");
            assertTrue(client.allocPd().startsWith("error 107: "), "it must attach again");
        }
    }

    private void rcOperations(final DriverContext client)
    {
        try
        {
            EndpointPairScenario.rcOperations(client, fixture.peer, DriverFixture.IP_DRIVER, DriverFixture.IP_PEER);
        }
        catch (final Exception ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    private String line(final BufferedReader out, final String prefix) throws Exception
    {
        final String line = out.readLine();
        assertTrue(line != null && line.startsWith(prefix), "the forked client said " + line +
            (line == null ? " and ended with " + child.waitFor() + " (its standard error is in this test's)" : ""));
        return line;
    }
}
