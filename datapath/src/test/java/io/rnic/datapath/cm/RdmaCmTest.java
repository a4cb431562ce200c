package io.rnic.datapath.cm;

import io.rnic.cm.CmCounter;
import io.rnic.datapath.agent.EngineAgent;
import io.rnic.datapath.endpoint.InMemoryContexts;
import io.rnic.datapath.endpoint.InterfaceAddresses;
import io.rnic.datapath.neighbour.NeighbourTable;
import io.rnic.verbs.QpState;
import io.rnic.verbs.RecvWorkRequest;
import io.rnic.verbs.WcStatus;
import io.rnic.verbs.WorkCompletion;
import io.rnic.verbs.WrOpcode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The librdmacm-shaped connection API between two in-memory endpoints: listen / accept / connect, a WRITE and a READ
 * of 1 MiB through the connection's QP, disconnect with its flush; and the failures, each one line naming its cause.
 */
class RdmaCmTest
{
    private static final int PORT = 7471;
    private static final int MESSAGE_BYTES = ConnectionSide.MESSAGE_BYTES;
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private InMemoryContexts pair;
    private RdmaCm cmA;
    private RdmaCm cmB;

    @BeforeEach
    void start()
    {
        pair = InMemoryContexts.pair();
        cmA = RdmaCm.open(pair.first());
        cmB = RdmaCm.open(pair.second());
    }

    @AfterEach
    void stop()
    {
        cmA.close();
        cmB.close();
        pair.close();
    }

    @Test
    void shouldConnectWriteAndReadOneMebibyteByteExactAndDisconnect() throws Exception
    {
        final ConnectionSide a = new ConnectionSide(pair.first());
        final ConnectionSide b = new ConnectionSide(pair.second());
        final byte[] hello = { 'h', 'e', 'l', 'l', 'o' };
        final byte[] welcome = { 'w', 'e', 'l', 'c', 'o', 'm', 'e' };
        final RdmaListener listener = cmB.listen(pair.secondIpv4(), PORT);
        final CompletableFuture<RdmaConnection> accepted =
            CompletableFuture.supplyAsync(() -> listener.accept(b.init(), TIMEOUT, welcome));

        final RdmaConnection active = cmA.connect(pair.secondIpv4(), PORT, a.init(), TIMEOUT, hello);
        final RdmaConnection passive = accepted.get(10, TimeUnit.SECONDS);
        assertTrue(active.isConnected());
        assertTrue(passive.isConnected());
        assertEquals(QpState.RTS, active.qp().state());
        assertEquals(QpState.RTS, passive.qp().state());
        assertEquals(passive.qp().qpn(), active.remoteQpn());
        assertEquals(pair.firstIpv4(), passive.peerAddress());
        assertArrayEquals(hello, Arrays.copyOf(passive.peerPrivateData(), hello.length));
        assertArrayEquals(welcome, Arrays.copyOf(active.peerPrivateData(), welcome.length));

        for (int i = 0; i < MESSAGE_BYTES; i++)
        {
            a.memory.set(ValueLayout.JAVA_BYTE, i, (byte)(i * 7 + 3 + (i >>> 12)));
        }
        a.post(active.qp(), WrOpcode.RDMA_WRITE, 0, b.mr.address(), b.mr.rKey());
        assertEquals(WcStatus.SUCCESS, a.await(a.sendCq).status());
        assertEquals(-1, b.memory.asSlice(0, MESSAGE_BYTES).mismatch(a.memory.asSlice(0, MESSAGE_BYTES)));
        a.post(active.qp(), WrOpcode.RDMA_READ, MESSAGE_BYTES, b.mr.address(), b.mr.rKey());
        assertEquals(WcStatus.SUCCESS, a.await(a.sendCq).status());
        assertEquals(-1, a.memory.asSlice(MESSAGE_BYTES, MESSAGE_BYTES).mismatch(b.memory.asSlice(0, MESSAGE_BYTES)));

        // a receive still posted on the passive side completes flushed once the peer disconnects
        final RecvWorkRequest recv = new RecvWorkRequest();
        recv.wrId = 77;
        recv.sgl.add(b.mr.address(), 64, b.mr.lKey());
        assertEquals(0, passive.qp().postRecv(recv));
        active.disconnect();
        assertTrue(active.awaitDisconnected(TIMEOUT), "no DREP");
        assertTrue(passive.awaitDisconnected(TIMEOUT), "no DREQ");
        assertFalse(active.isConnected());
        assertEquals(QpState.ERR, active.qp().state());
        assertEquals(QpState.ERR, passive.qp().state());
        final WorkCompletion flushed = b.await(b.recvCq);
        assertEquals(77, flushed.wrId());
        assertEquals(WcStatus.WR_FLUSH_ERR, flushed.status());
        active.close();
        passive.close();
        listener.close();
    }

    /**
     * A REQ from a peer this endpoint never resolved, as after a driver's restart (the peer still has our MAC and asks
     * no ARP): the REP leaves at once, to the MAC the REQ came from, with no ARP round trip (the REQ was dropped, and
     * answered only when the peer sent it again after an ARP exchange: 4.3 s), and the peer is a stale neighbour.
     */
    @Test
    void shouldAnswerAReqFromAPeerNeverResolvedWithoutAnArpRoundTrip() throws Exception
    {
        pair.first().endpoint().addStaticNeighbour(pair.secondIpv4(), InMemoryContexts.MAC_SECOND); // no ARP from A
        final EngineAgent agentB = pair.second().endpoint().agent();
        final ConnectionSide a = new ConnectionSide(pair.first());
        final ConnectionSide b = new ConnectionSide(pair.second());
        final RdmaListener listener = cmB.listen(pair.secondIpv4(), PORT);
        final CompletableFuture<RdmaConnection> accepted =
            CompletableFuture.supplyAsync(() -> listener.accept(b.init(), TIMEOUT, new byte[0]));

        try (RdmaConnection active = cmA.connect(pair.secondIpv4(), PORT, a.init(), TIMEOUT, new byte[0]);
            RdmaConnection passive = accepted.get(10, TimeUnit.SECONDS))
        {
            assertTrue(active.isConnected() && passive.isConnected());
            assertEquals(0, agentB.neighbours().requestsSent(), "B asked ARP for the requester");
            final long[] unresolved = { 0 };
            pair.second().endpoint().counters().forEach((id, type, key, label) ->
            {
                if (label.endsWith(CmCounter.DROPPED_UNRESOLVED.description()))
                {
                    unresolved[0] += pair.second().endpoint().counters().getCounterValue(id);
                }
            });
            assertEquals(0, unresolved[0], "REQs dropped for want of the requester's MAC");
            final long[] gidA = InterfaceAddresses.gidOf(pair.firstIpv4());
            final long[] macs = agentB.engine().execute(() -> new long[]{
                agentB.neighbours().table().lookup(gidA[0], gidA[1]),
                agentB.neighbours().table().lookupConfirmed(gidA[0], gidA[1]) });
            assertEquals(InMemoryContexts.MAC_FIRST, macs[0]);
            assertEquals(NeighbourTable.NO_MAC, macs[1], "heard from a datagram: stale");
        }
        listener.close();
    }

    @Test
    void shouldRejectAConnectToAPortNobodyListensOnNamingTheReason()
    {
        final ConnectionSide a = new ConnectionSide(pair.first());
        final RdmaCmException error = assertThrows(RdmaCmException.class,
            () -> cmA.connect(pair.secondIpv4(), PORT + 1, a.init(), TIMEOUT, new byte[0]));
        assertEquals("connect to 192.0.2.2 port 7472: rejected: invalid service ID: nobody listens on that port " +
            "(REJ reason 8)", error.getMessage());
    }

    @Test
    void shouldRejectAConnectTheListenerRefuses() throws Exception
    {
        final ConnectionSide a = new ConnectionSide(pair.first());
        final RdmaListener listener = cmB.listen(PORT);
        final CompletableFuture<byte[]> refused = CompletableFuture.supplyAsync(() ->
        {
            final RdmaConnectRequest request = listener.getRequest(TIMEOUT);
            request.reject(new byte[]{ 'n', 'o' });
            return request.privateData();
        });
        final RdmaCmException error = assertThrows(RdmaCmException.class,
            () -> cmA.connect(pair.secondIpv4(), PORT, a.init(), TIMEOUT, new byte[]{ 42 }));
        assertEquals("connect to 192.0.2.2 port 7471: rejected: consumer reject: the listener refused it (REJ reason " +
            "28)", error.getMessage());
        assertEquals(42, refused.get(10, TimeUnit.SECONDS)[0]);
        assertEquals(28, error.rejectReason());
        assertEquals('n', error.rejectPrivateData()[0], "the REJ's private data, as librdmacm's event carries it");
        assertEquals(148, error.rejectPrivateData().length);
    }

    @Test
    void shouldTimeOutAnAcceptCleanlyAndAcceptTheNextConnect() throws Exception
    {
        final ConnectionSide a = new ConnectionSide(pair.first());
        final ConnectionSide b = new ConnectionSide(pair.second());
        final RdmaListener listener = cmB.listen(PORT);
        final RdmaCmException error = assertThrows(RdmaCmException.class,
            () -> listener.accept(b.init(), Duration.ofMillis(200), new byte[0]));
        assertEquals("no connect request on port 7471 within 200 ms", error.getMessage());

        final CompletableFuture<RdmaConnection> accepted =
            CompletableFuture.supplyAsync(() -> listener.accept(b.init(), TIMEOUT, new byte[0]));
        try (RdmaConnection active = cmA.connect(pair.secondIpv4(), PORT, a.init(), TIMEOUT, new byte[0]);
            RdmaConnection passive = accepted.get(10, TimeUnit.SECONDS))
        {
            assertTrue(active.isConnected() && passive.isConnected());
        }
    }

    @Test
    void shouldNameTheMissingRouteWhenNobodyAnswersArp() throws Exception
    {
        final ConnectionSide a = new ConnectionSide(pair.first());
        final InetAddress nobody = InetAddress.getByAddress(new byte[]{ (byte)192, 0, 2, 99 });
        final RdmaCmException error = assertThrows(RdmaCmException.class,
            () -> cmA.connect(nobody, PORT, a.init(), Duration.ofMillis(300), new byte[0]));
        assertTrue(error.getMessage().startsWith("connect to 192.0.2.99 port 7471: no route: no ARP/neighbour reply " +
            "from 192.0.2.99"), error.getMessage());
    }

    @Test
    void shouldRefusePrivateDataLongerThanAReqCarries()
    {
        final ConnectionSide a = new ConnectionSide(pair.first());
        final IllegalArgumentException error = assertThrows(IllegalArgumentException.class,
            () -> cmA.connect(pair.secondIpv4(), PORT, a.init(), TIMEOUT, new byte[57]));
        assertEquals("a REQ carries at most 56 bytes of private data, not 57", error.getMessage());
    }

    @Test
    void shouldCloseQuietlyAfterItsContextWithConnectionsStillOpen() throws Exception
    {
        final ConnectionSide a = new ConnectionSide(pair.first());
        final ConnectionSide b = new ConnectionSide(pair.second());
        final RdmaListener listener = cmB.listen(PORT);
        final CompletableFuture<RdmaConnection> accepted =
            CompletableFuture.supplyAsync(() -> listener.accept(b.init(), TIMEOUT, new byte[0]));
        final RdmaConnection active = cmA.connect(pair.secondIpv4(), PORT, a.init(), TIMEOUT, new byte[0]);
        accepted.get(10, TimeUnit.SECONDS);

        pair.close(); // the wrong order: the engines stop under the connection managers
        final long startNs = System.nanoTime();
        cmA.close();
        cmB.close();
        active.close();
        assertTrue(System.nanoTime() - startNs < TimeUnit.SECONDS.toNanos(5), "closing waited for a stopped engine");
    }
}
