package io.rnic.cm;

import io.rnic.device.EngineQueuePair;
import io.rnic.device.RnicDevice;
import io.rnic.sim.LinkConditions;
import io.rnic.sim.TwoNodeFabric;
import io.rnic.transport.LocalPort;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.QpAttrMask;
import io.rnic.verbs.QpAttributes;
import io.rnic.verbs.QpInitAttributes;
import io.rnic.verbs.QpState;
import io.rnic.verbs.QpType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The CM's MRA (sent when our application is slow to accept, honoured when the peer sends one), the REJ reasons as
 * the application gets them, and the stale connection a REQ from a QP in our timewait is: two managers over the
 * simulated fabric, on its virtual clock.
 */
class ConnectionManagerMraRejTest
{
    private static final long MS_NS = 1_000_000L;
    private static final int PORT = 7175;
    private static final long IP_A_GID = 0x0000_FFFF_0000_0000L | TwoNodeFabric.IP_A;
    private static final long IP_B_GID = 0x0000_FFFF_0000_0000L | TwoNodeFabric.IP_B;
    /** timeouts(12, 3): 4.096 µs × 2^12 ≈ 16.8 ms per try, four tries: given up after ≈ 67 ms without an MRA. */
    private static final long GIVE_UP_NS = 4 * ConnectionManager.timeoutNs(12);
    private final List<ConnectionManager> managers = new ArrayList<>();

    @AfterEach
    void close()
    {
        managers.forEach(ConnectionManager::close);
    }

    private ConnectionManager manager(final TwoNodeFabric fabric, final RnicDevice device, final long seed)
    {
        final boolean isA = device == fabric.a();
        final LocalPort port = new LocalPort(isA ? TwoNodeFabric.MAC_A : TwoNodeFabric.MAC_B).ethernetMtu(1500);
        port.addIpv4(isA ? TwoNodeFabric.IP_A : TwoNodeFabric.IP_B);
        final ConnectionManager cm = new ConnectionManager(device, port, 0,
            (high, low) -> low == IP_A_GID ? TwoNodeFabric.MAC_A : TwoNodeFabric.MAC_B, seed).timeouts(12, 3);
        managers.add(cm);
        return cm;
    }

    private static EngineQueuePair rcQp(final RnicDevice device)
    {
        final ProtectionDomain pd = device.allocPd();
        final CompletionQueue cq = device.createCq(16);
        return device.createQp(new QpInitAttributes().type(QpType.RC).pd(pd).cqs(cq, cq).capacity(8, 8));
    }

    private static boolean run(final TwoNodeFabric fabric, final long limitNs, final BooleanSupplier done,
        final ConnectionManager... cms)
    {
        return fabric.runUntil(() ->
        {
            for (final ConnectionManager cm : cms)
            {
                cm.poll(fabric.clock().nanoTime());
            }
            return done.getAsBoolean();
        }, limitNs);
    }

    private static void runFor(final TwoNodeFabric fabric, final long durationNs, final ConnectionManager... cms)
    {
        final long untilNs = fabric.clock().nanoTime() + durationNs;
        assertTrue(run(fabric, durationNs + MS_NS, () -> fabric.clock().nanoTime() - untilNs >= 0, cms));
    }

    private static CmConnection awaitRequest(final TwoNodeFabric fabric, final ConnectionManager cmA,
        final ConnectionManager cmB)
    {
        final CmConnection[] request = new CmConnection[1];
        assertTrue(run(fabric, 100 * MS_NS, () -> (request[0] = cmB.pollConnectRequest()) != null, cmA, cmB));
        return request[0];
    }

    /**
     * B's application accepts 500 ms after the REQ, long after A's four tries (≈ 67 ms) would have run out: A's
     * first retry finds the REQ pending, B answers it with an MRA (service timeout 2^24 × 4.096 µs, the RDMA CM's),
     * A waits instead of trying again, and the late accept still connects. Without the MRA, A gives up.
     */
    @Test
    void shouldSendAnMraWhenTheAcceptIsLateAndStillConnect()
    {
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), 1);
        final ConnectionManager cmA = manager(fabric, fabric.a(), 1);
        final ConnectionManager cmB = manager(fabric, fabric.b(), 2);
        cmB.listen(PORT);
        final CmConnection active = cmA.connect(rcQp(fabric.a()), 0, IP_B_GID, PORT, 1, 1, fabric.clock().nanoTime());
        final CmConnection pending = awaitRequest(fabric, cmA, cmB);

        runFor(fabric, 500 * MS_NS, cmA, cmB); // the application is slow
        assertTrue(500 * MS_NS > GIVE_UP_NS);
        assertEquals(CmState.REQ_SENT, active.state(), "still waiting, not given up");
        assertEquals(1, cmA.counter(CmCounter.RETRANSMISSIONS), "one retry, answered by the MRA");
        assertEquals(1, cmB.counter(CmCounter.MRAS_SENT));
        assertEquals(1, cmA.counter(CmCounter.MRAS_RECEIVED));
        assertEquals(0, cmA.counter(CmCounter.TIMEOUTS));
        assertNull(cmB.pollConnectRequest(), "the retried REQ is no new request");

        cmB.accept(pending, rcQp(fabric.b()), 1, 1, fabric.clock().nanoTime());
        assertTrue(run(fabric, 100 * MS_NS, () -> active.isEstablished() && pending.isEstablished(), cmA, cmB));
        assertEquals(1, cmA.counter(CmCounter.RETRANSMISSIONS));
    }

    /**
     * The peer's MRA asks for 4.096 µs × 2^16 ≈ 268 ms: A sends its REQ again only after that and the packet lifetime
     * (its ACK timeout, 2^14 × 4.096 µs ≈ 67 ms), not at its own response timeout (≈ 17 ms), and each retry answered
     * by an MRA waits as long again; when its retries run out it gives the REQ up with a REJ "timeout" carrying its CA
     * GUID, which the passive side hands its application as the reject reason, its request gone.
     */
    @Test
    void shouldWaitThePeersMraServiceTimeoutThenRejectWithTimeout()
    {
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), 1);
        final ConnectionManager cmA = manager(fabric, fabric.a(), 3);
        final ConnectionManager cmB = manager(fabric, fabric.b(), 4).mraServiceTimeout(16);
        cmB.listen(PORT);
        final CmConnection active = cmA.connect(rcQp(fabric.a()), 0, IP_B_GID, PORT, 1, 1, fabric.clock().nanoTime());
        final CmConnection pending = awaitRequest(fabric, cmA, cmB);
        assertTrue(run(fabric, 100 * MS_NS, () -> cmA.counter(CmCounter.MRAS_RECEIVED) == 1, cmA, cmB));
        final long mraNs = fabric.clock().nanoTime();
        final long extendedNs = ConnectionManager.timeoutNs(16) +
            ConnectionManager.timeoutNs(ConnectionManager.LOCAL_ACK_TIMEOUT_DEFAULT);

        runFor(fabric, extendedNs - MS_NS, cmA, cmB);
        assertEquals(1, cmA.counter(CmCounter.RETRANSMISSIONS), "no retry within the MRA's service timeout");
        assertTrue(run(fabric, 10 * MS_NS, () -> cmA.counter(CmCounter.RETRANSMISSIONS) == 2, cmA, cmB),
            "the retry right after it");
        assertTrue(fabric.clock().nanoTime() - mraNs >= extendedNs);

        assertTrue(run(fabric, 10 * extendedNs, active::isClosed, cmA, cmB));
        assertEquals(CmState.TIMED_OUT, active.state(), "librdmacm: RDMA_CM_EVENT_UNREACHABLE");
        assertEquals(3, cmA.counter(CmCounter.MRAS_RECEIVED), "each retry answered by an MRA");
        assertEquals(1, cmA.counter(CmCounter.REJECTS_SENT));
        assertTrue(run(fabric, 10 * MS_NS, pending::isClosed, cmA, cmB));
        assertEquals(CmState.REJECTED, pending.state());
        assertEquals(CmRejFlyweight.REASON_TIMEOUT, pending.rejectReason());
        assertEquals("timeout", CmRejFlyweight.reasonName(pending.rejectReason()));
        assertEquals(1, cmB.counter(CmCounter.REJECTS_RECEIVED));
    }

    /** A consumer reject with private data: the active side's application gets reason 28 and the data, padded. */
    @Test
    void shouldDeliverTheRejectReasonAndPrivateData()
    {
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), 1);
        final ConnectionManager cmA = manager(fabric, fabric.a(), 5);
        final ConnectionManager cmB = manager(fabric, fabric.b(), 6);
        cmB.listen(PORT);
        final EngineQueuePair qp = rcQp(fabric.a());
        final CmConnection active = cmA.connect(qp, 0, IP_B_GID, PORT, 1, 1, fabric.clock().nanoTime());
        final CmConnection pending = awaitRequest(fabric, cmA, cmB);
        final byte[] why = { 'b', 'u', 's', 'y' };
        cmB.reject(pending, why, fabric.clock().nanoTime());
        assertTrue(run(fabric, 100 * MS_NS, active::isClosed, cmA, cmB));
        assertEquals(CmState.REJECTED, active.state());
        assertEquals(CmRejFlyweight.REASON_CONSUMER, active.rejectReason());
        assertEquals("consumer defined", CmRejFlyweight.reasonName(active.rejectReason()));
        final byte[] expected = new byte[CmRejFlyweight.PRIVATE_DATA_LENGTH];
        System.arraycopy(why, 0, expected, 0, why.length);
        assertArrayEquals(expected, active.peerPrivateData());
        assertEquals("invalid service ID", CmRejFlyweight.reasonName(CmRejFlyweight.REASON_INVALID_SERVICE_ID));
        assertEquals("stale conn", CmRejFlyweight.reasonName(CmRejFlyweight.REASON_STALE_CONNECTION));
        assertEquals("unrecognized reason", CmRejFlyweight.reasonName(34));
    }

    /**
     * A connection closes and B holds it in its timewait (500 ms here); A connects the same QP again at once (a new
     * comm ID, the same QPN): B rejects it as a stale connection (10), as Linux's CM does. Once B's timewait is over
     * the same REQ connects.
     */
    @Test
    void shouldRejectAReqFromAQpInTimewaitAsStaleUntilTheTimewaitEnds()
    {
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), 1);
        final ConnectionManager cmA = manager(fabric, fabric.a(), 7).timewaitNs(MS_NS);
        final ConnectionManager cmB = manager(fabric, fabric.b(), 8).timewaitNs(500 * MS_NS);
        cmB.listen(PORT);
        final EngineQueuePair qpA = rcQp(fabric.a());
        final CmConnection first = cmA.connect(qpA, 0, IP_B_GID, PORT, 1, 1, fabric.clock().nanoTime());
        final CmConnection firstPassive = awaitRequest(fabric, cmA, cmB);
        cmB.accept(firstPassive, rcQp(fabric.b()), 1, 1, fabric.clock().nanoTime());
        assertTrue(run(fabric, 100 * MS_NS, () -> first.isEstablished() && firstPassive.isEstablished(), cmA, cmB));
        cmA.disconnect(first, fabric.clock().nanoTime());
        assertTrue(run(fabric, 100 * MS_NS, () -> first.isClosed() && firstPassive.isClosed() &&
            cmA.timewaitCount() == 0, cmA, cmB));
        assertEquals(1, cmB.timewaitCount());

        reset(qpA);
        final CmConnection stale = cmA.connect(qpA, 0, IP_B_GID, PORT, 1, 1, fabric.clock().nanoTime());
        assertTrue(run(fabric, 100 * MS_NS, stale::isClosed, cmA, cmB));
        assertEquals(CmState.REJECTED, stale.state());
        assertEquals(CmRejFlyweight.REASON_STALE_CONNECTION, stale.rejectReason());
        assertEquals(1, cmB.counter(CmCounter.STALE_REJECTED));
        assertNull(cmB.pollConnectRequest(), "no request reaches the application");

        assertTrue(run(fabric, 1000 * MS_NS, () -> cmB.timewaitCount() == 0, cmA, cmB));
        reset(qpA);
        final CmConnection again = cmA.connect(qpA, 0, IP_B_GID, PORT, 1, 1, fabric.clock().nanoTime());
        final CmConnection againPassive = awaitRequest(fabric, cmA, cmB);
        cmB.accept(againPassive, rcQp(fabric.b()), 1, 1, fabric.clock().nanoTime());
        assertTrue(run(fabric, 100 * MS_NS, again::isEstablished, cmA, cmB));
        assertEquals(1, cmB.counter(CmCounter.STALE_REJECTED));
    }

    /** The REJ left the QP in the error state: back to RESET, for the CM to connect it again. */
    private static void reset(final EngineQueuePair qp)
    {
        final QpAttributes attr = new QpAttributes();
        attr.state = QpState.RESET;
        qp.modify(attr, QpAttrMask.STATE);
    }
}
