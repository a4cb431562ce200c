package io.rnic.cm;

import io.rnic.device.QueuePair;
import io.rnic.device.RnicDevice;
import io.rnic.sim.LinkConditions;
import io.rnic.sim.TwoNodeFabric;
import io.rnic.transport.LocalPort;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.QpInitAttributes;
import io.rnic.verbs.QpState;
import io.rnic.verbs.QpType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two connection managers run as agents by an "engine thread" that also drives the simulated fabric (and owns both
 * engines, as an endpoint's does), while the test's thread plays the application: it queues commands and waits for the
 * CM's events. The QP transitions the CM makes on the engine thread must run inline there (a queued one would wait
 * for the thread that queued it: the connection would never come up).
 */
class CmAgentTest
{
    private static final int PORT = 7174;
    private static final long WAIT_NS = 30_000_000_000L;
    private static final long IP_A_GID = 0x0000_FFFF_0000_0000L | TwoNodeFabric.IP_A;
    private static final long IP_B_GID = 0x0000_FFFF_0000_0000L | TwoNodeFabric.IP_B;

    private final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), 1);
    private final AtomicReference<Thread> resolvedOn = new AtomicReference<>();
    private final ConnectionManager cmA = manager(fabric.a(), 1);
    private final ConnectionManager cmB = manager(fabric.b(), 2);
    private final CmAgent agentA = new CmAgent(cmA, fabric.clock(), (high, low) ->
    {
        resolvedOn.set(Thread.currentThread());
        return TwoNodeFabric.MAC_B;
    });
    private final CmAgent agentB = new CmAgent(cmB, fabric.clock(), null);
    private final QueuePair qpA = rcQp(fabric.a());
    private final QueuePair qpB = rcQp(fabric.b());
    private final Thread engineThread = new Thread(this::runEngines, "cm-agent-test-engine");
    private volatile boolean running = true;

    private ConnectionManager manager(final RnicDevice device, final long seed)
    {
        final boolean isA = device == fabric.a();
        final LocalPort port = new LocalPort(isA ? TwoNodeFabric.MAC_A : TwoNodeFabric.MAC_B).ethernetMtu(1500);
        port.addIpv4(isA ? TwoNodeFabric.IP_A : TwoNodeFabric.IP_B);
        return new ConnectionManager(device, port, 0,
            (high, low) -> low == IP_A_GID ? TwoNodeFabric.MAC_A : TwoNodeFabric.MAC_B, seed);
    }

    private static QueuePair rcQp(final RnicDevice device)
    {
        final CompletionQueue cq = device.createCq(16);
        return device.createQp(new QpInitAttributes().type(QpType.RC).pd(device.allocPd()).cqs(cq, cq)
            .capacity(4, 4));
    }

    /** What an endpoint's engine thread does: the applications, then the engines (here with the fabric's links). */
    private void runEngines()
    {
        fabric.a().engine().engineThread(Thread.currentThread());
        fabric.b().engine().engineThread(Thread.currentThread());
        while (running)
        {
            agentA.doWork();
            agentB.doWork();
            fabric.step();
        }
        fabric.a().engine().engineThread(null);
        fabric.b().engine().engineThread(null);
    }

    @AfterEach
    void stop() throws InterruptedException
    {
        running = false;
        engineThread.join();
        cmA.close();
        cmB.close();
    }

    @Test
    void shouldConnectAndDisconnectThroughCommandsWhileTheEngineThreadOwnsTheManagers()
    {
        engineThread.start();
        agentB.listen(PORT);
        assertNull(agentB.awaitConnectRequest(1_000_000), "nobody asked yet");

        final CmConnection active = agentA.connect(qpA, 0, IP_B_GID, PORT, 1, 1);
        assertSame(Thread.currentThread(), resolvedOn.get(), "the peer is resolved on the caller's thread");
        final CmConnection passive = agentB.awaitConnectRequest(WAIT_NS);
        assertEquals(qpA.qpn(), passive.remoteQpn());
        agentB.accept(passive, qpB, 1, 1);
        assertEquals(QpState.RTS, qpB.state(), "moved to RTS on the engine thread before accept returned");
        assertTrue(agentA.await(active::isEstablished, WAIT_NS));
        assertTrue(agentB.await(passive::isEstablished, WAIT_NS));
        assertEquals(QpState.RTS, qpA.state());
        assertThrows(IllegalStateException.class, () -> agentB.accept(passive, qpB, 1, 1),
            "a command's failure reaches its caller");

        agentA.disconnect(active);
        assertTrue(agentB.await(passive::isClosed, WAIT_NS));
        assertTrue(agentA.await(active::isClosed, WAIT_NS));
        assertEquals(CmState.DISCONNECTED, active.state());
        assertEquals(QpState.ERR, qpA.state());
        assertEquals(QpState.ERR, qpB.state());
        assertEquals(3, agentA.counter(CmCounter.MADS_SENT), "REQ, RTU, DREQ");
        assertEquals(2, agentB.counters().get(CmCounter.MADS_SENT), "REP, DREP");
        assertFalse(agentA.await(() -> false, 1_000_000), "a condition that never holds times out");
    }
}
