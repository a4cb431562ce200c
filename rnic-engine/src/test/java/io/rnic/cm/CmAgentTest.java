package io.rnic.cm;

import io.rnic.device.EngineQueuePair;
import io.rnic.device.QueuePair;
import io.rnic.device.RnicDevice;
import io.rnic.sim.LinkConditions;
import io.rnic.sim.TwoNodeFabric;
import io.rnic.transport.LocalPort;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.QpInitAttributes;
import io.rnic.verbs.QpState;
import io.rnic.verbs.QpType;
import io.rnic.verbs.RecvWorkRequest;
import io.rnic.verbs.WcStatus;
import io.rnic.verbs.WorkCompletion;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
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
    private final CompletionQueue cqB = fabric.b().createCq(16);
    private final EngineQueuePair qpA = rcQp(fabric.a(), fabric.a().createCq(16));
    private final EngineQueuePair qpB = rcQp(fabric.b(), cqB);
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean running = true;
    private volatile boolean enginesRunning = true;

    private ConnectionManager manager(final RnicDevice device, final long seed)
    {
        final boolean isA = device == fabric.a();
        final LocalPort port = new LocalPort(isA ? TwoNodeFabric.MAC_A : TwoNodeFabric.MAC_B).ethernetMtu(1500);
        port.addIpv4(isA ? TwoNodeFabric.IP_A : TwoNodeFabric.IP_B);
        return new ConnectionManager(device, port, 0,
            (high, low) -> low == IP_A_GID ? TwoNodeFabric.MAC_A : TwoNodeFabric.MAC_B, seed);
    }

    private static EngineQueuePair rcQp(final RnicDevice device, final CompletionQueue cq)
    {
        return device.createQp(new QpInitAttributes().type(QpType.RC).pd(device.allocPd()).cqs(cq, cq)
            .capacity(4, 4));
    }

    /**
     * Starts what an endpoint's engine thread does: the applications (the agents), then the engines (here with the
     * fabric's links); or, {@code apart}, the agents on a thread of their own, as on an endpoint whose QPs live on
     * another shard's engine thread: then the CM's QP transitions are commands to that thread.
     */
    private void start(final boolean apart)
    {
        final Runnable agents = () ->
        {
            agentA.doWork();
            agentB.doWork();
        };
        final Runnable engines = () ->
        {
            fabric.a().engine().engineThread(Thread.currentThread());
            fabric.b().engine().engineThread(Thread.currentThread());
            while (running && enginesRunning)
            {
                if (!apart)
                {
                    agents.run();
                }
                fabric.step();
            }
            fabric.a().engine().engineThread(null);
            fabric.b().engine().engineThread(null);
        };
        threads.add(new Thread(engines, "cm-agent-test-engine"));
        if (apart)
        {
            threads.add(new Thread(() ->
            {
                while (running)
                {
                    agents.run();
                }
            }, "cm-agent-test-cm"));
        }
        threads.forEach(Thread::start);
    }

    @AfterEach
    void stop() throws InterruptedException
    {
        running = false;
        for (final Thread thread : threads)
        {
            thread.join();
        }
        cmA.close();
        cmB.close();
    }

    private CmConnection[] establish()
    {
        agentB.listen(PORT);
        final CmConnection active = agentA.connect(qpA, 0, IP_B_GID, PORT, 1, 1);
        final CmConnection passive = agentB.awaitConnectRequest(WAIT_NS);
        agentB.accept(passive, qpB, 1, 1);
        assertTrue(agentA.await(active::isEstablished, WAIT_NS));
        assertTrue(agentB.await(passive::isEstablished, WAIT_NS));
        return new CmConnection[]{ active, passive };
    }

    @Test
    void shouldConnectAndDisconnectThroughCommandsWhileTheEngineThreadOwnsTheManagers()
    {
        start(false);
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

    /**
     * The peer's DREQ moves the QP to the error state, which flushes a posted receive; the application polling its CQ
     * on its own thread must find the connection closed when it sees that flush (rping's server takes a flushed last
     * SEND for the end it is only then). Here the QPs live on another thread than the CM (as on an endpoint whose QP
     * is on another shard's engine), and the test's thread is that engine: it looks at the connection right after the
     * duty cycle that flushed, before the CM's thread is back from the QP's transition. So the connection must be
     * closed before the transition, not after.
     */
    @Test
    void shouldCloseTheConnectionBeforeItsQpFlushesWhatIsPosted() throws InterruptedException
    {
        start(true);
        final CmConnection[] connected = establish();
        final RecvWorkRequest recv = new RecvWorkRequest();
        recv.wrId = 42;
        assertEquals(QueuePair.POST_OK, qpB.postRecv(recv));
        enginesRunning = false;
        threads.get(0).join();

        fabric.a().engine().engineThread(Thread.currentThread());
        fabric.b().engine().engineThread(Thread.currentThread());
        final WorkCompletion[] wcs = { new WorkCompletion() };
        boolean closed = false;
        try
        {
            final Thread application = new Thread(() -> agentA.disconnect(connected[0]), "cm-agent-test-disconnect");
            threads.add(application);
            application.start();
            final long deadlineNs = System.nanoTime() + WAIT_NS;
            while (System.nanoTime() - deadlineNs < 0)
            {
                fabric.step();
                if (cqB.poll(wcs, 1) == 1)
                {
                    closed = connected[1].isClosed();
                    break;
                }
            }
        }
        finally
        {
            fabric.a().engine().engineThread(null);
            fabric.b().engine().engineThread(null);
        }
        assertEquals(WcStatus.WR_FLUSH_ERR, wcs[0].status());
        assertEquals(42, wcs[0].wrId());
        assertTrue(closed, "closed when its QP flushed: " + connected[1].state());
    }
}
