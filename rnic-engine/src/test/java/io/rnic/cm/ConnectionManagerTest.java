package io.rnic.cm;

import io.rnic.device.ConnectParameters;
import io.rnic.device.EngineQueuePair;
import io.rnic.device.QueuePair;
import io.rnic.device.RnicDevice;
import io.rnic.sim.LinkConditions;
import io.rnic.sim.TwoNodeFabric;
import io.rnic.transport.LocalPort;
import io.rnic.transport.TransportCounter;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.MemoryRegion;
import io.rnic.verbs.PathMtu;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.QpInitAttributes;
import io.rnic.verbs.QpState;
import io.rnic.verbs.QpType;
import io.rnic.verbs.RecvWorkRequest;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.WcStatus;
import io.rnic.verbs.WorkCompletion;
import io.rnic.verbs.WrOpcode;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two connection managers over the simulated fabric (virtual time): connect, move data on the RC QP they connected,
 * disconnect; retransmission of an unanswered REQ; rejection without a listener; malformed MADs counted and dropped.
 */
class ConnectionManagerTest
{
    private static final long SECOND_NS = 1_000_000_000L;
    private static final int PORT = 7174;
    private static final long IP_A_GID = 0x0000_FFFF_0000_0000L | TwoNodeFabric.IP_A;
    private static final long IP_B_GID = 0x0000_FFFF_0000_0000L | TwoNodeFabric.IP_B;
    private final Arena arena = Arena.ofShared();
    private final List<ConnectionManager> managers = new ArrayList<>();

    @AfterEach
    void close()
    {
        managers.forEach(ConnectionManager::close);
        arena.close();
    }

    private ConnectionManager manager(final TwoNodeFabric fabric, final RnicDevice device, final long seed)
    {
        final boolean isA = device == fabric.a();
        final LocalPort port = new LocalPort(isA ? TwoNodeFabric.MAC_A : TwoNodeFabric.MAC_B).ethernetMtu(1500);
        port.addIpv4(isA ? TwoNodeFabric.IP_A : TwoNodeFabric.IP_B); // as the fabric's: GID 0 is the IPv4 address
        final ConnectionManager cm = new ConnectionManager(device, port, 0,
            (high, low) -> low == IP_A_GID ? TwoNodeFabric.MAC_A : TwoNodeFabric.MAC_B, seed).timeouts(12, 3);
        managers.add(cm);
        return cm;
    }

    /** B's manager, listening on {@link #PORT}. */
    private ConnectionManager listener(final TwoNodeFabric fabric, final long seed)
    {
        final ConnectionManager cm = manager(fabric, fabric.b(), seed);
        cm.listen(PORT);
        return cm;
    }

    private static boolean run(final TwoNodeFabric fabric, final BooleanSupplier done, final ConnectionManager... cms)
    {
        return fabric.runUntil(() ->
        {
            for (final ConnectionManager cm : cms)
            {
                cm.poll(fabric.clock().nanoTime());
            }
            return done.getAsBoolean();
        }, 2 * SECOND_NS);
    }

    /** Runs both managers until B hears a connection request and returns it. */
    private static CmConnection awaitConnectRequest(
        final TwoNodeFabric fabric, final ConnectionManager cmA, final ConnectionManager cmB)
    {
        final CmConnection[] passive = new CmConnection[1];
        assertTrue(run(fabric, () -> (passive[0] = cmB.pollConnectRequest()) != null, cmA, cmB));
        return passive[0];
    }

    /** Connects A's QP to B's listener, B accepts at once, and both run until the connection is established. */
    private static CmConnection[] establish(
        final TwoNodeFabric fabric, final ConnectionManager cmA, final ConnectionManager cmB, final Side a, final Side b)
    {
        final CmConnection active = cmA.connect(a.qp, 0, IP_B_GID, PORT, 1, 1, fabric.clock().nanoTime());
        final CmConnection passive = awaitConnectRequest(fabric, cmA, cmB);
        cmB.accept(passive, b.qp, 1, 1, fabric.clock().nanoTime());
        assertTrue(run(fabric, () -> active.isEstablished() && passive.isEstablished(), cmA, cmB));
        return new CmConnection[]{ active, passive };
    }

    private final class Side
    {
        final CompletionQueue sendCq;
        final CompletionQueue recvCq;
        final EngineQueuePair qp;
        final MemorySegment memory = arena.allocate(8192, 4096);
        final MemoryRegion mr;
        final WorkCompletion[] wcs = { new WorkCompletion() };

        Side(final RnicDevice device)
        {
            final ProtectionDomain pd = device.allocPd();
            sendCq = device.createCq(16);
            recvCq = device.createCq(16);
            qp = device.createQp(new QpInitAttributes().type(QpType.RC).pd(pd).cqs(sendCq, recvCq).capacity(8, 8));
            mr = device.registerMemoryRegion(pd, memory, AccessFlags.ALL);
        }
    }

    @Test
    void shouldCarryPrivateDataInTheReqAfterTheCmaHeaderAndInTheRep()
    {
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), 1);
        final ConnectionManager cmA = manager(fabric, fabric.a(), 1);
        final ConnectionManager cmB = listener(fabric, 2);
        final Side a = new Side(fabric.a());
        final Side b = new Side(fabric.b());
        final byte[] fromA = new byte[CmReqFlyweight.CONSUMER_PRIVATE_DATA_LENGTH];
        final byte[] fromB = { 'h', 'e', 'l', 'l', 'o' };
        for (int i = 0; i < fromA.length; i++)
        {
            fromA[i] = (byte)(i + 1);
        }

        final CmConnection active = cmA.connect(a.qp, 0, IP_B_GID, PORT, 1, 1, fromA, fabric.clock().nanoTime());
        final CmConnection passive = awaitConnectRequest(fabric, cmA, cmB);
        assertArrayEquals(fromA, passive.peerPrivateData());
        cmB.accept(passive, b.qp, 1, 1, fromB, fabric.clock().nanoTime());
        assertTrue(run(fabric, () -> active.isEstablished() && passive.isEstablished(), cmA, cmB));

        final byte[] expected = new byte[CmRepFlyweight.PRIVATE_DATA_LENGTH];
        System.arraycopy(fromB, 0, expected, 0, fromB.length);
        assertArrayEquals(expected, active.peerPrivateData(), "the whole field, zero-padded, as librdmacm's");
        final IllegalArgumentException tooLong = assertThrows(IllegalArgumentException.class, () -> cmA.connect(
            a.qp, 0, IP_B_GID, PORT, 1, 1, new byte[fromA.length + 1], fabric.clock().nanoTime()));
        assertEquals("a REQ carries at most 56 bytes of private data, not 57", tooLong.getMessage());
    }

    @Test
    void shouldConnectTransferAndDisconnectAnRcQp()
    {
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), 1);
        final ConnectionManager cmA = manager(fabric, fabric.a(), 1);
        final ConnectionManager cmB = listener(fabric, 2);
        final Side a = new Side(fabric.a());
        final Side b = new Side(fabric.b());

        final CmConnection active = cmA.connect(a.qp, 0, IP_B_GID, PORT, 1, 1, fabric.clock().nanoTime());
        assertEquals(CmState.REQ_SENT, active.state());
        final CmConnection p = awaitConnectRequest(fabric, cmA, cmB);
        assertEquals(a.qp.qpn(), p.remoteQpn());
        assertEquals(active.localPsn(), p.remotePsn());
        assertEquals(PORT, p.servicePort());
        assertEquals(IP_A_GID, p.peerGidLow());
        assertEquals(PathMtu.MTU_1024, p.pathMtu());
        assertEquals(1, p.responderResources());

        // the passive side posts its receive before it accepts, as rping does
        ConnectionManager.toInit(b.qp);
        final RecvWorkRequest recv = new RecvWorkRequest();
        recv.sgl.add(b.mr.address(), 4096, b.mr.lKey());
        assertEquals(QueuePair.POST_OK, b.qp.postRecv(recv));
        cmB.accept(p, b.qp, 1, 1, fabric.clock().nanoTime());
        assertEquals(QpState.RTS, b.qp.state());
        assertTrue(run(fabric, () -> active.isEstablished() && p.isEstablished(), cmA, cmB));
        assertEquals(QpState.RTS, a.qp.state());
        assertEquals(b.qp.qpn(), active.remoteQpn());
        assertEquals(p.localPsn(), active.remotePsn());
        assertEquals(p.localCommId(), active.remoteCommId());
        // as Linux: each side receives from the PSN it announced (REQ / REP) and sends from the one its peer did
        assertEquals(p.localPsn(), a.qp.context().sendPsn());
        assertEquals(active.localPsn(), a.qp.context().expectedPsn());
        assertEquals(active.localPsn(), b.qp.context().sendPsn());
        assertEquals(p.localPsn(), b.qp.context().expectedPsn());

        // the QPs the CM connected carry an RC SEND and an RDMA READ
        a.memory.asSlice(0, 100).fill((byte)0x5A);
        final SendWorkRequest send = new SendWorkRequest();
        send.sgl.add(a.mr.address(), 100, a.mr.lKey());
        assertEquals(QueuePair.POST_OK, a.qp.postSend(send));
        assertTrue(run(fabric, () -> b.recvCq.poll(b.wcs, 1) == 1, cmA, cmB));
        assertEquals(WcStatus.SUCCESS, b.wcs[0].status());
        assertEquals(100, b.wcs[0].byteLength());
        assertEquals((byte)0x5A, b.memory.get(ValueLayout.JAVA_BYTE, 99));
        final SendWorkRequest read = new SendWorkRequest();
        read.opcode = WrOpcode.RDMA_READ;
        read.sgl.add(b.mr.address() + 4096, 100, b.mr.lKey());
        read.remoteAddress = a.mr.address();
        read.rKey = a.mr.rKey();
        assertEquals(QueuePair.POST_OK, b.qp.postSend(read));
        assertTrue(run(fabric, () -> b.sendCq.poll(b.wcs, 1) == 1, cmA, cmB));
        assertEquals(WcStatus.SUCCESS, b.wcs[0].status());
        assertEquals((byte)0x5A, b.memory.get(ValueLayout.JAVA_BYTE, 4096 + 99));

        cmA.disconnect(active, fabric.clock().nanoTime());
        assertEquals(CmState.DREQ_SENT, active.state());
        assertTrue(run(fabric, () -> active.state() == CmState.DISCONNECTED && p.state() == CmState.DISCONNECTED,
            cmA, cmB));
        assertEquals(QpState.ERR, a.qp.state());
        assertEquals(QpState.ERR, b.qp.state());
        assertEquals(0, cmA.counter(CmCounter.RETRANSMISSIONS));
        assertEquals(3, cmA.counter(CmCounter.MADS_SENT), "REQ, RTU, DREQ");
        assertEquals(2, cmB.counter(CmCounter.MADS_SENT), "REP, DREP");
    }

    /**
     * Each reply lost once on the way back: the lost REP makes A send its REQ again, which B answers with the same REP;
     * the lost RTU makes B send its REP again, which A answers with the RTU; the lost DREP makes A send its DREQ again.
     */
    @Test
    void shouldAnswerDuplicatesWhenRepliesAreLost()
    {
        final LinkConditions aToB = new LinkConditions();
        final LinkConditions bToA = new LinkConditions();
        final TwoNodeFabric fabric = new TwoNodeFabric(aToB, bToA, 1);
        final ConnectionManager cmA = manager(fabric, fabric.a(), 11);
        final ConnectionManager cmB = listener(fabric, 12);
        final Side a = new Side(fabric.a());
        final Side b = new Side(fabric.b());

        final CmConnection active = cmA.connect(a.qp, 0, IP_B_GID, PORT, 1, 1, fabric.clock().nanoTime());
        final CmConnection p = awaitConnectRequest(fabric, cmA, cmB);
        bToA.loss = 1.0; // the REP is lost
        cmB.accept(p, b.qp, 1, 1, fabric.clock().nanoTime());
        assertTrue(run(fabric, () -> fabric.bToA().framesIn() > 0 && fabric.bToA().isEmpty(), cmA, cmB));
        bToA.loss = 0;
        assertTrue(run(fabric, active::isEstablished, cmA, cmB));
        // B's own REP timer, as long as A's REQ timer, may also fire (A answers that REP with its RTU): let it settle
        final long settledNs = fabric.clock().nanoTime() + 50_000_000L;
        assertTrue(run(fabric, () -> fabric.clock().nanoTime() > settledNs, cmA, cmB));
        assertEquals(1, cmA.counter(CmCounter.RETRANSMISSIONS), "the REQ again");
        assertEquals(1, cmB.counter(CmCounter.DUPLICATES_ANSWERED), "the REP again");
        final long bRetransmissions = cmB.counter(CmCounter.RETRANSMISSIONS);
        final long aDuplicates = cmA.counter(CmCounter.DUPLICATES_ANSWERED); // a REP of B's own timer: RTU again
        assertTrue(run(fabric, p::isEstablished, cmA, cmB));
        assertEquals(null, cmB.pollConnectRequest(), "a duplicate REQ is no new connection");

        final Side c = new Side(fabric.a());
        final Side d = new Side(fabric.b());
        final CmConnection second = cmA.connect(c.qp, 0, IP_B_GID, PORT, 1, 1, fabric.clock().nanoTime());
        final CmConnection secondPassive = awaitConnectRequest(fabric, cmA, cmB);
        final long framesBefore = fabric.aToB().framesIn();
        aToB.loss = 1.0; // the RTU is lost
        cmB.accept(secondPassive, d.qp, 1, 1, fabric.clock().nanoTime());
        assertTrue(run(fabric, () -> second.isEstablished() && fabric.aToB().framesIn() > framesBefore &&
            fabric.aToB().isEmpty(), cmA, cmB));
        aToB.loss = 0;
        assertTrue(run(fabric, secondPassive::isEstablished, cmA, cmB));
        assertEquals(bRetransmissions + 1, cmB.counter(CmCounter.RETRANSMISSIONS), "the REP again");
        assertEquals(aDuplicates + 1, cmA.counter(CmCounter.DUPLICATES_ANSWERED), "the RTU again");

        cmA.disconnect(active, fabric.clock().nanoTime());
        bToA.loss = 1.0; // the DREP is lost
        final long repliesBefore = fabric.bToA().framesIn();
        assertTrue(run(fabric, () -> p.state() == CmState.DISCONNECTED && fabric.bToA().framesIn() > repliesBefore &&
            fabric.bToA().isEmpty(), cmA, cmB));
        bToA.loss = 0;
        assertTrue(run(fabric, () -> active.state() == CmState.DISCONNECTED, cmA, cmB));
        assertEquals(2, cmA.counter(CmCounter.RETRANSMISSIONS), "the DREQ again");
        assertTrue(cmB.counter(CmCounter.DUPLICATES_ANSWERED) >= 2, "the DREP again");
        assertEquals(CmState.ESTABLISHED, second.state(), "the other connection is untouched");
    }

    /**
     * Both sides release a connection they disconnected: through its timewait (the local ACK timeout, 4.096 µs ×
     * 2^14) each manager still holds it, its QP stays in the error state under its QPN (a new QP gets another, a stray
     * packet for the old QPN is dropped); after it, the manager forgets the connection and destroys the QP.
     */
    @Test
    void shouldHoldAReleasedConnectionThroughItsTimewaitThenDestroyItsQp()
    {
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), 1);
        final Side a = new Side(fabric.a());
        final Side b = new Side(fabric.b());
        final ConnectionManager cmA = manager(fabric, fabric.a(), 21);
        final ConnectionManager cmB = listener(fabric, 22);
        final CmConnection[] connected = establish(fabric, cmA, cmB, a, b);
        final CmConnection active = connected[0];
        final CmConnection p = connected[1];
        final int qpnA = a.qp.qpn();
        final int qpnB = b.qp.qpn();

        cmA.release(active, fabric.clock().nanoTime()); // still up: the DREQ goes out
        assertEquals(CmState.DREQ_SENT, active.state());
        assertTrue(run(fabric, () -> active.isClosed() && p.isClosed(), cmA, cmB));
        final long closedNs = fabric.clock().nanoTime();
        cmB.release(p, closedNs);
        assertEquals(1, cmA.timewaitCount());
        assertEquals(1, cmB.timewaitCount());
        assertEquals(1, cmA.connectionCount());
        assertTrue(fabric.a().engine().hasQp(qpnA), "the QPN stays taken through the timewait");
        assertEquals(QpState.ERR, a.qp.state());
        assertTrue(fabric.a().createQp(new QpInitAttributes().type(QpType.RC).pd(fabric.a().allocPd())
            .cqs(a.sendCq, a.recvCq).capacity(1, 1)).qpn() != qpnA, "a new QP gets another QPN");

        // a stray packet of the old connection: B's side of it, reborn as a QP that still sends to A's old QPN
        final Side stray = new Side(fabric.b());
        final ConnectParameters toOldQpn = new ConnectParameters().remote(qpnA, 0).localPsn(0).timers(14, 0, 0, 12);
        toOldQpn.addressVector.destinationIpv4(TwoNodeFabric.IP_A).sourceGidIndex(0)
            .destinationMac(TwoNodeFabric.MAC_A);
        toOldQpn.applyTo(stray.qp);
        final long stateDrops = fabric.a().engine().counters().get(TransportCounter.DROPPED_QP_STATE);
        final SendWorkRequest send = new SendWorkRequest();
        send.sgl.add(stray.mr.address(), 64, stray.mr.lKey());
        assertEquals(QueuePair.POST_OK, stray.qp.postSend(send));
        assertTrue(run(fabric, () -> fabric.a().engine().counters().get(TransportCounter.DROPPED_QP_STATE) > stateDrops,
            cmA, cmB));
        assertEquals(0, a.recvCq.poll(a.wcs, 1), "nothing delivered to the QP in its timewait");

        assertTrue(run(fabric, () -> cmA.connectionCount() == 0 && cmB.connectionCount() == 0, cmA, cmB));
        assertTrue(fabric.clock().nanoTime() - closedNs >= ConnectionManager.timeoutNs(
            ConnectionManager.LOCAL_ACK_TIMEOUT_DEFAULT) - 100_000, "the timewait lasts the local ACK timeout");
        assertFalse(fabric.a().engine().hasQp(qpnA), "destroyed after the timewait");
        assertFalse(fabric.b().engine().hasQp(qpnB), "destroyed after the timewait");
        assertEquals(null, active.qp());
        assertEquals(1, cmA.counter(CmCounter.TIMEWAITS_ENDED));
        assertEquals(1, cmB.counter(CmCounter.TIMEWAITS_ENDED));
        assertEquals(CmState.DISCONNECTED, active.state(), "the application still sees how it ended");
    }

    /**
     * A driver's client detaches from its connection and destroys its QP at once: the QP is gone, but its QPN stays held
     * in the engine's QP table through the connection's timewait, so no new QP is numbered like it; the hold ends with
     * the timewait.
     */
    @Test
    void shouldHoldTheQpnOfADetachedConnectionThroughItsTimewait()
    {
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), 1);
        final Side a = new Side(fabric.a());
        final Side b = new Side(fabric.b());
        final ConnectionManager cmA = manager(fabric, fabric.a(), 27);
        final ConnectionManager cmB = listener(fabric, 28);
        final CmConnection[] connected = establish(fabric, cmA, cmB, a, b);
        final CmConnection active = connected[0];
        final int qpnA = a.qp.qpn();

        cmA.detach(active, fabric.clock().nanoTime());
        fabric.a().destroyQp(a.qp); // the client's rdma_destroy_qp, at once
        assertFalse(fabric.a().engine().hasQp(qpnA));
        assertTrue(fabric.a().engine().qps().isHeld(qpnA), "the QPN stays taken");
        assertTrue(run(fabric, () -> active.isClosed() && cmA.timewaitCount() == 1, cmA, cmB));
        assertTrue(fabric.a().engine().qps().isHeld(qpnA), "through the timewait");
        assertTrue(run(fabric, () -> cmA.connectionCount() == 0, cmA, cmB));
        assertFalse(fabric.a().engine().qps().isHeld(qpnA), "free again after it");
    }

    /**
     * The DREP is lost and the passive side's timewait (1 ms here) ends before the active side sends its DREQ again:
     * the manager answers that DREQ for a connection it no longer holds with a DREP, as Linux's CM does, and the
     * active side disconnects at its first retry instead of timing out after the last.
     */
    @Test
    void shouldAnswerADreqAfterTheTimewaitWithADrep()
    {
        final LinkConditions bToA = new LinkConditions();
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), bToA, 1);
        final ConnectionManager cmA = manager(fabric, fabric.a(), 23);
        final ConnectionManager cmB = manager(fabric, fabric.b(), 24).timewaitNs(1_000_000);
        cmB.listen(PORT);
        final Side a = new Side(fabric.a());
        final Side b = new Side(fabric.b());
        final CmConnection[] connected = establish(fabric, cmA, cmB, a, b);
        final CmConnection active = connected[0];
        final CmConnection p = connected[1];

        bToA.loss = 1.0; // the DREP is lost
        cmA.disconnect(active, fabric.clock().nanoTime());
        assertTrue(run(fabric, () -> p.isClosed() && cmB.connectionCount() == 0 && fabric.bToA().isEmpty(),
            cmA, cmB));
        assertEquals(0, cmA.counter(CmCounter.RETRANSMISSIONS), "B's timewait ended before A's DREQ timer");
        bToA.loss = 0;
        assertTrue(run(fabric, () -> active.state() == CmState.DISCONNECTED, cmA, cmB));
        assertEquals(1, cmA.counter(CmCounter.RETRANSMISSIONS), "the DREQ again");
        assertEquals(0, cmA.counter(CmCounter.TIMEOUTS));
        assertEquals(1, cmB.counter(CmCounter.DREQS_ANSWERED_UNKNOWN));
        assertEquals(0, cmB.counter(CmCounter.DROPPED_UNKNOWN_CONNECTION));
    }

    /**
     * Released before it is up: a REQ not yet accepted is rejected (consumer reject), a REQ of ours nobody answers
     * is given up at once rather than after its retries; both are forgotten after their timewait, and the QP handed
     * over with the second is destroyed then.
     */
    @Test
    void shouldRejectAPendingRequestAndGiveUpAnUnansweredOneOnRelease()
    {
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), 1);
        final Side a = new Side(fabric.a());
        final ConnectionManager cmA = manager(fabric, fabric.a(), 25);
        final ConnectionManager cmB = listener(fabric, 26);
        final CmConnection refused = cmA.connect(a.qp, 0, IP_B_GID, PORT, 1, 1, fabric.clock().nanoTime());
        final CmConnection pending = awaitConnectRequest(fabric, cmA, cmB);
        cmB.release(pending, fabric.clock().nanoTime());
        assertEquals(CmState.REJECTED, pending.state());
        assertTrue(run(fabric, refused::isClosed, cmA, cmB));
        assertEquals(CmState.REJECTED, refused.state());
        assertEquals(CmRejFlyweight.REASON_CONSUMER, refused.rejectReason());

        final Side a2 = new Side(fabric.a());
        final CmConnection unanswered = cmA.connect(a2.qp, 0, IP_A_GID + 99, PORT, 1, 1, fabric.clock().nanoTime());
        cmA.release(unanswered, fabric.clock().nanoTime());
        assertEquals(CmState.TIMED_OUT, unanswered.state());
        assertTrue(fabric.a().engine().hasQp(a2.qp.qpn()), "held through the timewait");
        assertTrue(run(fabric, () -> cmA.connectionCount() == 0 && cmB.connectionCount() == 0, cmA, cmB));
        assertFalse(fabric.a().engine().hasQp(a2.qp.qpn()), "released: destroyed after the timewait");
        assertTrue(fabric.a().engine().hasQp(a.qp.qpn()), "not released: the application's to destroy");
        assertEquals(0, cmA.counter(CmCounter.RETRANSMISSIONS), "given up, not retried");
        assertEquals(0, cmA.counter(CmCounter.TIMEOUTS));
    }

    @Test
    void shouldRetransmitTheRequestUntilThePeerAnswers()
    {
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), 1);
        final ConnectionManager cmA = manager(fabric, fabric.a(), 3);
        final Side a = new Side(fabric.a());
        final Side b = new Side(fabric.b());
        final CmConnection active = cmA.connect(a.qp, 0, IP_B_GID, PORT, 1, 1, fabric.clock().nanoTime());
        // B has no GSI QP yet: the first REQ is dropped
        assertTrue(run(fabric, () -> fabric.b().engine().counters().get(TransportCounter.DROPPED_UNKNOWN_QP) == 1,
            cmA));
        final ConnectionManager cmB = listener(fabric, 4);
        final CmConnection passive = awaitConnectRequest(fabric, cmA, cmB);
        assertTrue(cmA.counter(CmCounter.RETRANSMISSIONS) >= 1);
        cmB.accept(passive, b.qp, 1, 1, fabric.clock().nanoTime());
        assertTrue(run(fabric, active::isEstablished, cmA, cmB));
        assertTrue(run(fabric, passive::isEstablished, cmA, cmB));
    }

    @Test
    void shouldTimeOutAfterTheLastRetryAndRejectWithoutAListener()
    {
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), 1);
        final ConnectionManager cmA = manager(fabric, fabric.a(), 5);
        final Side a = new Side(fabric.a());
        final CmConnection lost = cmA.connect(a.qp, 0, IP_B_GID, PORT, 1, 1, fabric.clock().nanoTime());
        assertTrue(run(fabric, lost::isClosed, cmA));
        assertEquals(CmState.TIMED_OUT, lost.state());
        assertEquals(3, cmA.counter(CmCounter.RETRANSMISSIONS), "timeouts(12, 3): three retries");
        assertEquals(1, cmA.counter(CmCounter.TIMEOUTS));

        final ConnectionManager cmB = manager(fabric, fabric.b(), 6);
        cmB.listen(PORT + 1);
        final Side a2 = new Side(fabric.a());
        final CmConnection refused = cmA.connect(a2.qp, 0, IP_B_GID, PORT, 1, 1, fabric.clock().nanoTime());
        assertTrue(run(fabric, refused::isClosed, cmA, cmB));
        assertEquals(CmState.REJECTED, refused.state());
        assertEquals(CmRejFlyweight.REASON_INVALID_SERVICE_ID, refused.rejectReason());
        assertEquals(1, cmB.counter(CmCounter.REJECTS_SENT));
        assertEquals(0, cmB.connectionCount(), "a REQ refused for want of a listener leaves nothing behind");
        // both ended connections go through their timewait and are forgotten; their QPs stay the application's
        assertTrue(run(fabric, () -> cmA.connectionCount() == 0, cmA, cmB));
        assertEquals(2, cmA.counter(CmCounter.TIMEWAITS_ENDED));
        assertTrue(fabric.a().engine().hasQp(a.qp.qpn()), "not released: the application destroys it");
    }

    @Test
    void shouldDropARequestFromAnAddressItCannotResolve()
    {
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), 1);
        final ConnectionManager cmA = manager(fabric, fabric.a(), 13);
        final LocalPort port = new LocalPort(TwoNodeFabric.MAC_B).ethernetMtu(1500);
        port.addIpv4(TwoNodeFabric.IP_B);
        final ConnectionManager cmB = new ConnectionManager(fabric.b(), port, 0, (high, low) ->
        {
            throw new IllegalStateException("no answer to ARP");
        }, 14);
        managers.add(cmB);
        cmB.listen(PORT);
        final CmConnection active = cmA.connect(new Side(fabric.a()).qp, 0, IP_B_GID, PORT, 1, 1,
            fabric.clock().nanoTime());
        assertTrue(run(fabric, () -> cmB.counter(CmCounter.DROPPED_UNRESOLVED) == 2, cmA, cmB));
        assertEquals(null, cmB.pollConnectRequest());
        assertEquals(CmState.REQ_SENT, active.state(), "the requester retries");
    }

    @Test
    void shouldCountAndDropMalformedMads()
    {
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), 1);
        final ConnectionManager cmB = listener(fabric, 7);
        // a raw GSI QP on A sends whatever we build
        final ProtectionDomain pd = fabric.a().allocPd();
        final CompletionQueue cq = fabric.a().createCq(64);
        final EngineQueuePair gsi = fabric.a().createGsiQp(new QpInitAttributes().type(QpType.UD).pd(pd).cqs(cq, cq)
            .capacity(16, 16));
        final ConnectParameters parameters = new ConnectParameters();
        parameters.qkey = ConnectionManager.GSI_QKEY;
        parameters.applyTo(gsi);
        final MemorySegment memory = arena.allocate(8 * 256, 4096);
        final MemoryRegion mr = fabric.a().registerMemoryRegion(pd, memory, AccessFlags.ALL);
        final UnsafeBuffer buffer = new UnsafeBuffer(memory.address(), 8 * 256);
        final int[] slot = { 0 };
        final java.util.function.IntConsumer sendSlot = length ->
        {
            final SendWorkRequest send = new SendWorkRequest();
            send.sgl.add(mr.address() + slot[0] * 256L, length, mr.lKey());
            send.udRemoteQpn = 1;
            send.udRemoteQkey = ConnectionManager.GSI_QKEY;
            send.udAddress.destinationIpv4(TwoNodeFabric.IP_B).sourceGidIndex(0).destinationMac(TwoNodeFabric.MAC_B);
            assertEquals(QueuePair.POST_OK, gsi.postSend(send));
            slot[0]++;
        };

        sendSlot.accept(100); // shorter than a MAD
        new CmMadFlyweight().wrapAt(buffer, 256).initialise(CmMadFlyweight.ATTR_REQ, 1);
        buffer.putByte(256 + 1, (byte)0x04); // a performance management MAD, not CM
        sendSlot.accept(256);
        new CmMadFlyweight().wrapAt(buffer, 512).initialise(CmMadFlyweight.ATTR_REQ, 1); // REQ without a CMA header
        buffer.putByte(512 + CmReqFlyweight.CMA_HEADER_OFFSET + 1, (byte)0x50);
        sendSlot.accept(256);
        new CmMadFlyweight().wrapAt(buffer, 768).initialise(CmMadFlyweight.ATTR_RTU, 1).localCommId(5)
            .remoteCommId(6); // for no connection
        sendSlot.accept(256);
        new CmMadFlyweight().wrapAt(buffer, 1024).initialise(0x0019, 1); // LAP: no path migration here
        sendSlot.accept(256);
        assertTrue(run(fabric, () -> cmB.counter(CmCounter.MADS_RECEIVED) == 4 &&
            cmB.counter(CmCounter.DROPPED_TRUNCATED) == 1, cmB), cmB.counters().toString());
        assertEquals(1, cmB.counter(CmCounter.DROPPED_NOT_CM));
        assertEquals(1, cmB.counter(CmCounter.DROPPED_BAD_PRIVATE_DATA));
        assertEquals(1, cmB.counter(CmCounter.DROPPED_UNKNOWN_CONNECTION));
        assertEquals(1, cmB.counter(CmCounter.DROPPED_UNSUPPORTED));
        assertEquals(0, cmB.counter(CmCounter.MADS_SENT));
        // the snapshot says what the single reads say, and every whole MAD received was dropped for one reason
        final Map<CmCounter, Long> snapshot = cmB.counters();
        for (final CmCounter counter : CmCounter.values())
        {
            assertEquals(cmB.counter(counter), snapshot.getOrDefault(counter, 0L), counter.name());
        }
        assertEquals(snapshot.get(CmCounter.MADS_RECEIVED), snapshot.get(CmCounter.DROPPED_NOT_CM) +
            snapshot.get(CmCounter.DROPPED_BAD_PRIVATE_DATA) + snapshot.get(CmCounter.DROPPED_UNKNOWN_CONNECTION) +
            snapshot.get(CmCounter.DROPPED_UNSUPPORTED));
        snapshot.clear();
        assertEquals(4, cmB.counter(CmCounter.MADS_RECEIVED), "a snapshot, not the manager's own counters");
        assertEquals(null, cmB.pollConnectRequest());
    }
}
