package io.rnic.transport;

import io.rnic.device.QueuePair;
import io.rnic.sim.LinkConditions;
import io.rnic.sim.TwoNodeFabric;
import io.rnic.verbs.PathMtu;
import io.rnic.verbs.QpAttrMask;
import io.rnic.verbs.QpAttributes;
import io.rnic.verbs.QpState;
import io.rnic.verbs.RecvWorkRequest;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.WcStatus;
import io.rnic.verbs.WorkCompletion;
import io.rnic.verbs.WrOpcode;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The engine visits the QPs whose doorbell rang or that a frame, a timer or a command gave work: no post may be
 * missed, whichever thread makes it and whenever the engine looks.
 */
class DoorbellTest
{
    private static final int POSTERS = 4;
    private static final int WRITES_PER_POSTER = 5_000;
    private static final int OUTSTANDING = 64;

    @Test
    void shouldSendEveryWorkRequestPostedFromOtherThreadsWhileTheEngineRuns() throws Exception
    {
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions().delayNs(1_000), 3);
        try (Arena arena = Arena.ofShared())
        {
            final Connection[] requesters = new Connection[POSTERS];
            final SendWorkRequest[] writes = new SendWorkRequest[POSTERS];
            for (int i = 0; i < POSTERS; i++)
            {
                final Connection[] pair = Connection.rcPair(fabric, arena, 4096, PathMtu.MTU_1024);
                requesters[i] = pair[0];
                writes[i] = new SendWorkRequest();
                writes[i].opcode = WrOpcode.RDMA_WRITE;
                writes[i].sgl.add(pair[0].mr.address(), 64, pair[0].mr.lKey());
                writes[i].remoteAddress = pair[1].mr.address();
                writes[i].rKey = pair[1].mr.rKey();
            }
            final AtomicBoolean running = new AtomicBoolean(true);
            final AtomicReference<Throwable> failure = new AtomicReference<>();
            final Thread engineThread = new Thread(() ->
            {
                while (running.get())
                {
                    fabric.step();
                }
            }, "engine");
            fabric.a().engine().engineThread(engineThread);
            fabric.b().engine().engineThread(engineThread);
            engineThread.start();
            final Thread[] posters = new Thread[POSTERS];
            try
            {
                for (int i = 0; i < POSTERS; i++)
                {
                    final Connection requester = requesters[i];
                    final SendWorkRequest wr = writes[i];
                    posters[i] = new Thread(() -> post(requester, wr, running, failure), "poster-" + i);
                    posters[i].start();
                }
                for (final Thread poster : posters)
                {
                    poster.join(TimeUnit.MINUTES.toMillis(2));
                    assertTrue(!poster.isAlive(), poster.getName() + " still waits for completions: a lost doorbell");
                }
            }
            finally
            {
                running.set(false);
                engineThread.join(10_000);
            }
            assertNull(failure.get());
        }
    }

    /** Posts WRITEs, at most {@link #OUTSTANDING} at a time, until all completed; waits on completions only. */
    private static void post(
        final Connection requester,
        final SendWorkRequest wr,
        final AtomicBoolean running,
        final AtomicReference<Throwable> failure)
    {
        try
        {
            int completed = 0;
            int posted = 0;
            while (completed < WRITES_PER_POSTER && running.get())
            {
                final int polled = requester.sendCq.poll(requester.completions, requester.completions.length);
                for (int i = 0; i < polled; i++)
                {
                    final WorkCompletion wc = requester.completions[i];
                    if (wc.status() != WcStatus.SUCCESS)
                    {
                        throw new AssertionError("completion " + wc);
                    }
                }
                completed += polled;
                while (posted < WRITES_PER_POSTER && posted - completed < OUTSTANDING)
                {
                    assertEquals(QueuePair.POST_OK, requester.qp.postSend(wr));
                    posted++;
                }
                Thread.onSpinWait();
            }
        }
        catch (final Throwable t)
        {
            failure.compareAndSet(null, t);
        }
    }

    @Test
    void shouldFlushAReceivePostedToAnIdleQpInError()
    {
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), 5);
        try (Arena arena = Arena.ofConfined())
        {
            final Connection a = Connection.rcPair(fabric, arena, 4096, PathMtu.MTU_1024)[0];
            final QpAttributes attr = new QpAttributes();
            attr.state = QpState.ERR;
            a.qp.modify(attr, QpAttrMask.STATE);
            final RnicEngine engine = fabric.a().engine();
            engine.doWork();
            engine.doWork();
            assertEquals(0, engine.activeQpCount(), "nothing to flush: the QP is not visited");

            final RecvWorkRequest recv = new RecvWorkRequest();
            recv.wrId = 42;
            recv.sgl.add(a.mr);
            assertEquals(QueuePair.POST_OK, a.qp.postRecv(recv));
            assertEquals(1, engine.doWork(), "the receive is flushed in the next cycle");
            assertEquals(1, a.recvCq.poll(a.completions, 1));
            assertEquals(42, a.completions[0].wrId());
            assertEquals(WcStatus.WR_FLUSH_ERR, a.completions[0].status());
            assertEquals(0, engine.activeQpCount());
        }
    }
}
