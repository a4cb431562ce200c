package io.rnic.datapath.driver;

import io.rnic.client.DriverContext;
import io.rnic.cnc.CncFile;
import io.rnic.datapath.endpoint.EndpointPairScenario;
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
 * A client killed with SIGKILL while a peer streams WRITEs into its memory: the driver times it out within its client
 * timeout, destroys what it held (its QP vanishes from the wire, so the peer's QP ends in RETRY_EXC_ERR), counts the
 * timeout, and another client of the same driver goes on unaffected meanwhile and after.
 */
class ClientCrashTest
{
    private static final long CLIENT_TIMEOUT_MS = 1_000;
    private static final int WRITE_BYTES = 16_384;

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
        final long resourcesBefore = counter("driver client resources");
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
        peer.connect(childQpn, DriverFixture.IP_DRIVER, 10, 3); // 4 ms ACK timeout, 3 retries: RETRY_EXC_ERR soon
        childIn.write(peer.qp.qpn() + "\n");
        childIn.flush();
        line(childOut, "CONNECTED");
        assertEquals(0, peer.postWrite(1, childAddress, childRKey, WRITE_BYTES));
        final WorkCompletion first = peer.poll(peer.sendCq, TimeUnit.SECONDS.toNanos(10));
        assertNotNull(first, "no completion of the first WRITE into the child");
        assertEquals(WcStatus.SUCCESS, first.status());

        final CompletableFuture<Void> during = CompletableFuture.runAsync(() -> rcOperations(other));
        child.destroyForcibly();
        final long killedNs = System.nanoTime();
        WcStatus ended = WcStatus.SUCCESS;
        long writes = 0;
        while (ended == WcStatus.SUCCESS)
        {
            assertEquals(0, peer.postWrite(2 + writes, childAddress + (writes % 64) * WRITE_BYTES, childRKey,
                WRITE_BYTES));
            final WorkCompletion done = peer.poll(peer.sendCq, TimeUnit.SECONDS.toNanos(10));
            assertNotNull(done, "the peer's WRITE " + writes + " neither completed nor failed");
            ended = done.status();
            writes++;
        }
        assertEquals(WcStatus.RETRY_EXC_ERR, ended, "after " + writes + " WRITEs");

        final long boundNs = TimeUnit.MILLISECONDS.toNanos(CLIENT_TIMEOUT_MS + 2_000);
        while (fixture.driver.clientCount() != clientsBefore)
        {
            assertTrue(System.nanoTime() - killedNs < boundNs, "the killed client is still attached");
            LockSupport.parkNanos(1_000_000);
        }
        final long reclaimedAfterMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedNs);
        assertTrue(reclaimedAfterMs >= CLIENT_TIMEOUT_MS - 100, "timed out after " + reclaimedAfterMs + " ms");
        assertEquals(1, counter("driver client timeouts"));

        during.get(30, TimeUnit.SECONDS);
        rcOperations(other);
        other.close();
        assertEquals(resourcesBefore, counter("driver client resources"));
        assertEquals(clientsBefore - 1, fixture.driver.clientCount());
        assertEquals(0, fixture.driver.endpoint().engineErrors());
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

    private static String line(final BufferedReader out, final String prefix) throws Exception
    {
        final String line = out.readLine();
        assertTrue(line != null && line.startsWith(prefix), "the forked client said " + line);
        return line;
    }

    private long counter(final String labelStart)
    {
        final long[] value = { Long.MIN_VALUE };
        counters.forEach((id, typeId, key, label) ->
        {
            if (label.startsWith(labelStart))
            {
                value[0] = counters.getCounterValue(id);
            }
        });
        assertTrue(value[0] != Long.MIN_VALUE, "no counter " + labelStart);
        return value[0];
    }
}
