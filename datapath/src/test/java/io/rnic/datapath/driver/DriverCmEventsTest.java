package io.rnic.datapath.driver;

import io.rnic.client.ClientConnectionManager;
import io.rnic.client.DriverContext;
import io.rnic.cm.CmId;
import io.rnic.cm.CmState;
import io.rnic.cnc.CmIdCodec;
import io.rnic.cnc.CncFile;
import io.rnic.datapath.cm.ConnectionSide;
import io.rnic.datapath.cm.RdmaCm;
import io.rnic.datapath.cm.RdmaCmException;
import io.rnic.datapath.cm.RdmaConnection;
import io.rnic.shm.SharedMemory;
import io.rnic.testing.FutexSleepers;
import io.rnic.verbs.EventRing;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A driver pushes its clients' CM id changes into their event rings and wakes them: a client blocked waiting for a
 * request wakes when one comes; a ring with no room loses no change a client waits for, the driver pushes the id's
 * latest state once the client made room.
 */
class DriverCmEventsTest
{
    private static final int PORT = 7491;
    private static final long TIMEOUT_NS = TimeUnit.SECONDS.toNanos(10);
    private static final String WAITER = "ev-cm-waiter";
    private static final byte[] HELLO = "hello through the ring".getBytes(StandardCharsets.US_ASCII);

    private DriverFixture fixture;
    /** Threads of their own: the common pool may have one, and a waiter would hold up the connect it waits for. */
    private final ExecutorService threads = Executors.newFixedThreadPool(2);

    @BeforeEach
    void start() throws Exception
    {
        fixture = DriverFixture.withTimeoutMs(2_000);
    }

    @AfterEach
    void stop() throws Exception
    {
        threads.shutdownNow();
        fixture.close();
    }

    @Test
    void shouldWakeAClientBlockedWaitingForARequestWhenTheDriverPushesIt() throws Exception
    {
        try (DriverContext client = DriverContext.open(fixture.directory);
            RdmaCm peerCm = RdmaCm.open(fixture.peer))
        {
            final ClientConnectionManager cm = client.openConnectionManager();
            cm.listen(PORT);
            final CompletableFuture<CmId> request = new CompletableFuture<>();
            final Thread waiter = new Thread(() -> request.complete(cm.awaitConnectRequest(6 * TIMEOUT_NS)), WAITER);
            waiter.setDaemon(true);
            waiter.start(); // it waits far longer than the test does: only the driver's wake-up ends its sleep in time
            awaitCondition(() -> FutexSleepers.isAsleep(WAITER), "client asleep on its event ring");
            final CompletableFuture<RdmaConnection> connecting = connectFromPeer(peerCm);

            final CmId received = request.get(10, TimeUnit.SECONDS);
            assertNotNull(received, "no request within 10 s");
            assertEquals(CmState.REQ_RCVD, received.state());
            assertEquals(PORT, received.servicePort());
            assertArrayEquals(HELLO, Arrays.copyOf(received.peerPrivateData(), HELLO.length));

            cm.reject(received, new byte[0]);
            assertRejected(connecting);
            cm.release(received);
            cm.close();
            waiter.join();
        }
    }

    /** A client asleep waiting for a request whose context closes wakes and says so (its ring is unmapped then). */
    @Test
    void shouldWakeAWaitingClientWhenItsContextCloses() throws Exception
    {
        final DriverContext client = DriverContext.open(fixture.directory);
        final ClientConnectionManager cm = client.openConnectionManager();
        cm.listen(PORT);
        final CompletableFuture<Throwable> ended = new CompletableFuture<>();
        final Thread waiter = new Thread(() ->
        {
            try
            {
                ended.complete(new AssertionError("returned " + cm.awaitConnectRequest(6 * TIMEOUT_NS)));
            }
            catch (final RuntimeException ex)
            {
                ended.complete(ex);
            }
        }, WAITER);
        waiter.setDaemon(true);
        waiter.start();
        awaitCondition(() -> FutexSleepers.isAsleep(WAITER), "client asleep on its event ring");
        client.close();
        final Throwable end = ended.get(10, TimeUnit.SECONDS);
        assertInstanceOf(IllegalStateException.class, end);
        assertEquals("the context of this connection manager is closed", end.getMessage());
    }

    /**
     * The client's ring reads as full (a consumer position that is not credible, as a client that never drains makes
     * it): a REQ to its port cannot be pushed and is not lost; once the ring has room the driver pushes it, whole.
     */
    @Test
    void shouldPushARequestAgainOnceAFullRingHasRoom() throws Exception
    {
        final long fileLength = EventRing.fileLength();
        try (CncFile cnc = CncFile.open(fixture.directory);
            RawClient client = new RawClient(cnc, fixture.directory, 0xE7E7_0000_0000_0001L);
            SharedMemory memory = SharedMemory.create("rnic-test-events", fileLength, false);
            RdmaCm peerCm = RdmaCm.open(fixture.peer))
        {
            client.attach();
            client.sendFd(1, memory.fd());
            assertEquals("result " + EventRing.CAPACITY, client.openAsyncEvents(1, fileLength));
            final UnsafeBuffer ring = new UnsafeBuffer(memory.segment().address(), (int)fileLength);
            final int firstSlot = EventRing.HEADER_LENGTH;
            ring.putLongVolatile(EventRing.CONSUMER_POSITION_OFFSET, Long.MAX_VALUE / 2); // reads as a full ring
            assertEquals("result done", client.cmListen(PORT));

            final CountersReader counters = new CountersReader(cnc.countersMetadataBuffer(),
                cnc.countersValuesBuffer());
            final long madsBefore = DriverFixture.counter(counters, "cm: CM MADs received");
            final CompletableFuture<RdmaConnection> connecting = connectFromPeer(peerCm);
            awaitCondition(() -> DriverFixture.counter(counters, "cm: CM MADs received") > madsBefore, "the REQ");
            final long seenMs = cnc.heartbeatMs();
            awaitCondition(() -> cnc.heartbeatMs() > seenMs + 2, "conductor cycles after the REQ");
            assertEquals(0, ring.getLongVolatile(firstSlot), "nothing published into a full ring");

            final long madsWhileFull = DriverFixture.counter(counters, "cm: CM MADs received");
            ring.putLongVolatile(EventRing.CONSUMER_POSITION_OFFSET, 0); // room again
            awaitCondition(() -> ring.getLongVolatile(firstSlot) == 1, "the request pushed once there is room");
            assertEquals(madsWhileFull, DriverFixture.counter(counters, "cm: CM MADs received"),
                "pushed for the room, not for a REQ the peer sent again");
            assertEquals(EventRing.KIND_CM_REQUEST, ring.getInt(firstSlot + EventRing.KIND_OFFSET));
            final int payload = firstSlot + EventRing.PAYLOAD_OFFSET;
            assertEquals(CmState.REQ_RCVD.ordinal(), ring.getInt(payload + CmIdCodec.STATE_OFFSET));
            assertEquals(PORT, ring.getInt(payload + CmIdCodec.SERVICE_PORT_OFFSET));
            assertArrayEquals(HELLO, Arrays.copyOf(CmIdCodec.privateData(ring, payload), HELLO.length));

            final int handle = ring.getInt(firstSlot + EventRing.HANDLE_OFFSET);
            assertEquals("result done", client.cmReject(handle));
            assertRejected(connecting);
            client.detach();
        }
    }

    private CompletableFuture<RdmaConnection> connectFromPeer(final RdmaCm peerCm)
    {
        final ConnectionSide side = new ConnectionSide(fixture.peer);
        return CompletableFuture.supplyAsync(() -> peerCm.connect(DriverFixture.IP_DRIVER, PORT, side.init(),
            Duration.ofSeconds(10), HELLO), threads);
    }

    private static void assertRejected(final CompletableFuture<RdmaConnection> connecting)
    {
        final ExecutionException failed = assertThrows(ExecutionException.class,
            () -> connecting.get(10, TimeUnit.SECONDS));
        assertInstanceOf(RdmaCmException.class, failed.getCause());
        assertTrue(failed.getCause().getMessage().contains("consumer reject"), failed.getCause().getMessage());
    }

    private static void awaitCondition(final BooleanSupplier condition, final String what)
    {
        final long deadlineNs = System.nanoTime() + TIMEOUT_NS;
        while (!condition.getAsBoolean())
        {
            assertTrue(System.nanoTime() < deadlineNs, "no " + what + " within 10 s");
            LockSupport.parkNanos(100_000);
        }
    }
}
