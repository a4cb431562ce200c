package io.rnic.datapath.driver;

import io.rnic.client.DriverContext;
import io.rnic.cm.CmRejFlyweight;
import io.rnic.cnc.CncFile;
import io.rnic.datapath.cm.ConnectionSide;
import io.rnic.datapath.cm.RdmaCm;
import io.rnic.datapath.cm.RdmaCmException;
import io.rnic.datapath.cm.RdmaConnection;
import io.rnic.datapath.cm.RdmaListener;
import io.rnic.device.QueuePair;
import io.rnic.verbs.Errno;
import io.rnic.verbs.QpState;
import io.rnic.verbs.RecvWorkRequest;
import io.rnic.verbs.VerbsException;
import io.rnic.verbs.WcStatus;
import io.rnic.verbs.WrOpcode;
import org.agrona.concurrent.status.CountersReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The RDMA CM through a driver: {@link RdmaCm} on a {@link DriverContext}, the driver running the device's one
 * connection manager for its clients, against an embedded peer on the other end of an in-memory link, in both roles;
 * ports owned by the client that listens; and what a client that goes leaves behind (nothing: its peers are
 * disconnected).
 */
class DriverRdmaCmTest
{
    private static final int PORT = 7471;
    private static final int MESSAGE_BYTES = ConnectionSide.MESSAGE_BYTES;
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private DriverFixture fixture;

    @BeforeEach
    void start() throws Exception
    {
        fixture = DriverFixture.withTimeoutMs(2_000);
    }

    @AfterEach
    void stop() throws Exception
    {
        fixture.close();
    }

    @Test
    void shouldConnectFromADriverClientWriteReadAndDisconnect() throws Exception
    {
        try (DriverContext client = DriverContext.open(fixture.directory);
            RdmaCm clientCm = RdmaCm.open(client);
            RdmaCm peerCm = RdmaCm.open(fixture.peer))
        {
            final ConnectionSide a = new ConnectionSide(client);
            final ConnectionSide b = new ConnectionSide(fixture.peer);
            final byte[] hello = "hello".getBytes(StandardCharsets.US_ASCII);
            final byte[] welcome = "welcome".getBytes(StandardCharsets.US_ASCII);
            final RdmaListener listener = peerCm.listen(PORT);
            final CompletableFuture<RdmaConnection> accepted =
                CompletableFuture.supplyAsync(() -> listener.accept(b.init(), TIMEOUT, welcome));

            final RdmaConnection active = clientCm.connect(DriverFixture.IP_PEER, PORT, a.init(), TIMEOUT, hello);
            final RdmaConnection passive = accepted.get(10, TimeUnit.SECONDS);
            assertTrue(active.isConnected() && passive.isConnected());
            assertEquals(QpState.RTS, active.qp().state(), "the client sees its QP in RTS once connected");
            assertEquals(passive.qp().qpn(), active.remoteQpn());
            assertEquals(active.qp().qpn(), passive.remoteQpn());
            assertArrayEquals(hello, Arrays.copyOf(passive.peerPrivateData(), hello.length));
            assertArrayEquals(welcome, Arrays.copyOf(active.peerPrivateData(), welcome.length));

            writeAndReadByteExact(a, active.qp(), b);

            final RecvWorkRequest recv = new RecvWorkRequest();
            recv.wrId = 77;
            recv.sgl.add(b.mr.address(), 64, b.mr.lKey());
            assertEquals(0, passive.qp().postRecv(recv));
            active.disconnect();
            assertTrue(active.awaitDisconnected(TIMEOUT), "no DREP");
            assertTrue(passive.awaitDisconnected(TIMEOUT), "no DREQ");
            assertEquals(QpState.ERR, passive.qp().state());
            assertEquals(WcStatus.WR_FLUSH_ERR, b.await(b.recvCq).status());
            active.close();
            passive.close();
        }
        assertEquals(0, fixture.driver.clientCount());
    }

    /**
     * A connect to an address nobody answers for, with a timeout longer than the driver's client timeout: the driver
     * answers "unreachable" before the client gives up on it, and the context goes on working (the client once waited
     * no longer than the driver resolved, took the driver for dead, and failed every later call).
     */
    @Test
    void shouldReportAnUnreachablePeerAndKeepTheContextWorking() throws Exception
    {
        try (DriverContext client = DriverContext.open(fixture.directory);
            RdmaCm clientCm = RdmaCm.open(client);
            RdmaCm peerCm = RdmaCm.open(fixture.peer))
        {
            final ConnectionSide a = new ConnectionSide(client);
            final java.net.InetAddress nobody = java.net.InetAddress.getByName("10.13.0.99");
            final RdmaCmException unreachable = assertThrows(RdmaCmException.class,
                () -> clientCm.connect(nobody, PORT, a.init(), Duration.ofMillis(3_000), new byte[0]));
            assertTrue(unreachable.getMessage().startsWith("connect to 10.13.0.99 port 7471: no route: " +
                "EHOSTUNREACH: resolve_mac: no ARP/neighbour reply from 10.13.0.99") &&
                unreachable.getMessage().endsWith(" within 3000 ms"), unreachable.getMessage());

            final ConnectionSide b = new ConnectionSide(fixture.peer);
            final RdmaListener listener = peerCm.listen(PORT);
            final CompletableFuture<RdmaConnection> accepted =
                CompletableFuture.supplyAsync(() -> listener.accept(b.init(), TIMEOUT, new byte[0]));
            try (RdmaConnection active = clientCm.connect(DriverFixture.IP_PEER, PORT, a.init(), TIMEOUT, new byte[0]);
                RdmaConnection passive = accepted.get(10, TimeUnit.SECONDS))
            {
                assertTrue(active.isConnected() && passive.isConnected());
            }
            listener.close();
        }
    }

    @Test
    void shouldAcceptInADriverClientAConnectFromThePeer() throws Exception
    {
        try (DriverContext client = DriverContext.open(fixture.directory);
            RdmaCm clientCm = RdmaCm.open(client);
            RdmaCm peerCm = RdmaCm.open(fixture.peer))
        {
            final ConnectionSide a = new ConnectionSide(fixture.peer);
            final ConnectionSide b = new ConnectionSide(client);
            final RdmaListener listener = clientCm.listen(PORT);
            final byte[] welcome = new byte[196];
            Arrays.fill(welcome, (byte)0x5A);
            final CompletableFuture<RdmaConnection> accepted =
                CompletableFuture.supplyAsync(() -> listener.accept(b.init(), TIMEOUT, welcome));

            try (RdmaConnection active = peerCm.connect(DriverFixture.IP_DRIVER, PORT, a.init(), TIMEOUT,
                new byte[]{ 1, 2, 3 });
                RdmaConnection passive = accepted.get(10, TimeUnit.SECONDS))
            {
                assertTrue(passive.isConnected());
                assertEquals(DriverFixture.IP_PEER, passive.peerAddress());
                assertEquals(3, passive.peerPrivateData()[2]);
                assertArrayEquals(welcome, active.peerPrivateData(), "196 bytes of REP private data come through");
                writeAndReadByteExact(a, active.qp(), b);
            }
            listener.close();
        }
    }

    /**
     * A driver client refuses the peer's connect with private data: the peer's connect fails with the REJ's reason
     * (28, consumer defined) and those bytes, as librdmacm's RDMA_CM_EVENT_REJECTED carries them.
     */
    @Test
    void shouldRejectFromADriverClientWithPrivateData() throws Exception
    {
        try (DriverContext client = DriverContext.open(fixture.directory);
            RdmaCm clientCm = RdmaCm.open(client);
            RdmaCm peerCm = RdmaCm.open(fixture.peer))
        {
            final RdmaListener listener = clientCm.listen(PORT);
            final byte[] why = new byte[148];
            Arrays.fill(why, (byte)0x3C);
            final CompletableFuture<Void> refused = CompletableFuture.runAsync(() ->
                listener.getRequest(TIMEOUT).reject(why));
            final ConnectionSide a = new ConnectionSide(fixture.peer);
            final RdmaCmException error = assertThrows(RdmaCmException.class,
                () -> peerCm.connect(DriverFixture.IP_DRIVER, PORT, a.init(), TIMEOUT, new byte[0]));
            refused.get(10, TimeUnit.SECONDS);
            assertEquals(CmRejFlyweight.REASON_CONSUMER, error.rejectReason(), error.getMessage());
            assertArrayEquals(why, error.rejectPrivateData(), "148 bytes of REJ private data come through");
            listener.close();
        }
    }

    @Test
    void shouldRefuseAPortAnotherClientListensOnAndRejectAfterItStops() throws Exception
    {
        try (DriverContext first = DriverContext.open(fixture.directory);
            DriverContext second = DriverContext.open(fixture.directory);
            RdmaCm firstCm = RdmaCm.open(first);
            RdmaCm secondCm = RdmaCm.open(second);
            RdmaCm peerCm = RdmaCm.open(fixture.peer))
        {
            final RdmaListener listener = firstCm.listen(PORT);
            final VerbsException taken = assertThrows(VerbsException.class, () -> secondCm.listen(PORT));
            assertTrue(taken.getMessage().contains("port 7471 is in use"), taken.getMessage());
            assertEquals(Errno.EADDRINUSE, taken.errno(), "the errno, not only the message: " + taken.getMessage());
            listener.close();
            secondCm.listen(PORT).close(); // free again once its listener closed

            final ConnectionSide a = new ConnectionSide(fixture.peer);
            final RdmaCmException error = assertThrows(RdmaCmException.class,
                () -> peerCm.connect(DriverFixture.IP_DRIVER, PORT, a.init(), TIMEOUT, new byte[0]));
            assertEquals("connect to 10.13.0.1 port 7471: rejected: invalid service ID: nobody listens on that " +
                "port (REJ reason 8)", error.getMessage());
        }
    }

    @Test
    void shouldDisconnectThePeersOfAClientThatDetachesWithConnectionsOpen() throws Exception
    {
        try (RdmaCm peerCm = RdmaCm.open(fixture.peer); CncFile cnc = CncFile.open(fixture.directory))
        {
            final CountersReader counters = new CountersReader(cnc.countersMetadataBuffer(),
                cnc.countersValuesBuffer(), StandardCharsets.US_ASCII);
            final ConnectionSide b = new ConnectionSide(fixture.peer);
            final RdmaListener listener = peerCm.listen(PORT);
            final CompletableFuture<RdmaConnection> accepted =
                CompletableFuture.supplyAsync(() -> listener.accept(b.init(), TIMEOUT, new byte[0]));
            final DriverContext client = DriverContext.open(fixture.directory);
            final RdmaCm clientCm = RdmaCm.open(client);
            final ConnectionSide a = new ConnectionSide(client);
            clientCm.connect(DriverFixture.IP_PEER, PORT, a.init(), TIMEOUT, new byte[0]);
            final RdmaConnection passive = accepted.get(10, TimeUnit.SECONDS);
            assertTrue(passive.isConnected());

            client.close(); // without closing its RdmaCm or its connection: the driver ends them
            assertTrue(passive.awaitDisconnected(TIMEOUT), "the peer got no DREQ from the driver");
            assertEquals(0, fixture.driver.clientCount());
            assertEquals(0, DriverFixture.counter(counters, "driver client resources"));
            passive.close();
            listener.close();
        }
    }

    @Test
    void shouldCloseQuietlyAfterItsContextWithAConnectionStillOpen() throws Exception
    {
        try (RdmaCm peerCm = RdmaCm.open(fixture.peer))
        {
            final ConnectionSide b = new ConnectionSide(fixture.peer);
            final RdmaListener listener = peerCm.listen(PORT);
            final CompletableFuture<RdmaConnection> accepted =
                CompletableFuture.supplyAsync(() -> listener.accept(b.init(), TIMEOUT, new byte[0]));
            final DriverContext client = DriverContext.open(fixture.directory);
            final RdmaCm clientCm = RdmaCm.open(client);
            final RdmaConnection active = clientCm.connect(DriverFixture.IP_PEER, PORT, new ConnectionSide(client).init(),
                TIMEOUT, new byte[0]);
            accepted.get(10, TimeUnit.SECONDS);

            client.close(); // the wrong order: the context goes under its connection manager
            clientCm.close();
            active.close();
            final IllegalStateException closed = assertThrows(IllegalStateException.class,
                () -> clientCm.listen(PORT + 1));
            assertEquals("this RdmaCm is closed", closed.getMessage());
            listener.close();
        }
    }

    private static void writeAndReadByteExact(final ConnectionSide a, final QueuePair qp, final ConnectionSide b)
    {
        for (int i = 0; i < MESSAGE_BYTES; i++)
        {
            a.memory.set(ValueLayout.JAVA_BYTE, i, (byte)(i * 7 + 3 + (i >>> 12)));
        }
        a.post(qp, WrOpcode.RDMA_WRITE, 0, b.mr.address(), b.mr.rKey());
        assertEquals(WcStatus.SUCCESS, a.await(a.sendCq).status());
        assertEquals(-1, b.memory.asSlice(0, MESSAGE_BYTES).mismatch(a.memory.asSlice(0, MESSAGE_BYTES)));
        a.post(qp, WrOpcode.RDMA_READ, MESSAGE_BYTES, b.mr.address(), b.mr.rKey());
        assertEquals(WcStatus.SUCCESS, a.await(a.sendCq).status());
        assertEquals(-1, a.memory.asSlice(MESSAGE_BYTES, MESSAGE_BYTES).mismatch(b.memory.asSlice(0, MESSAGE_BYTES)));
    }
}
