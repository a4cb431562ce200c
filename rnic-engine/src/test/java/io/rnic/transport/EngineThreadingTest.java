package io.rnic.transport;

import io.rnic.device.EngineQueuePair;
import io.rnic.device.QueuePair;
import io.rnic.device.RnicDevice;
import io.rnic.sim.LinkConditions;
import io.rnic.sim.TwoNodeFabric;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.QpAttrMask;
import io.rnic.verbs.QpAttributes;
import io.rnic.verbs.QpInitAttributes;
import io.rnic.verbs.QpState;
import io.rnic.verbs.VerbsException;
import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The engine thread owns the QPs; other threads create, modify and destroy them through commands and lock-free
 * tables, while the engine keeps running its duty cycle.
 */
class EngineThreadingTest
{
    @Test
    void shouldApplyControlCommandsOnTheEngineThreadWhileItRuns() throws Exception
    {
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), 1);
        final RnicDevice device = fabric.a();
        final RnicEngine engine = device.engine();
        final AtomicBoolean running = new AtomicBoolean(true);
        final AtomicLong cycles = new AtomicLong();
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final AtomicInteger lastQpn = new AtomicInteger(QpTable.FIRST_QPN);
        final Thread engineThread = new Thread(() ->
        {
            try
            {
                while (running.get())
                {
                    engine.doWork();
                    // the engine reads the QP table on every frame: look up QPNs while the control plane churns
                    final int around = lastQpn.get();
                    for (int qpn = around - 35; qpn < around + 35; qpn++)
                    {
                        final QpContext qp = engine.qps().get(qpn);
                        if (qp != null && qp.qpn() != qpn)
                        {
                            throw new AssertionError("QPN " + qpn + " maps to " + qp.qpn());
                        }
                    }
                    cycles.incrementAndGet();
                    Thread.yield();
                }
            }
            catch (final Throwable t)
            {
                failure.set(t);
            }
        }, "engine");
        engine.engineThread(engineThread);
        engineThread.start();
        try
        {
            final ProtectionDomain pd = device.allocPd();
            final CompletionQueue cq = device.createCq(16);
            for (int round = 0; round < 200; round++)
            {
                final EngineQueuePair qp = device.createQp(new QpInitAttributes().pd(pd).cqs(cq, cq).capacity(4, 4));
                assertTrue(qp.qpn() >= QpTable.FIRST_QPN);
                lastQpn.set(qp.qpn());
                final QpAttributes attr = new QpAttributes();
                attr.state = QpState.INIT;
                attr.accessFlags = AccessFlags.REMOTE_WRITE;
                qp.modify(attr, QpAttrMask.STATE | QpAttrMask.PKEY_INDEX | QpAttrMask.PORT | QpAttrMask.ACCESS_FLAGS);
                assertEquals(QpState.INIT, qp.state());
                attr.state = QpState.RTS;
                assertThrows(VerbsException.class, () -> qp.modify(attr, QpAttrMask.STATE));
                device.destroyQp(qp);
                assertNull(engine.qps().get(qp.qpn()), "a destroyed QP is still in the table");
            }
        }
        finally
        {
            running.set(false);
            engineThread.join(10_000);
        }
        assertNull(failure.get());
        assertTrue(cycles.get() > 0);
    }

    @Test
    void shouldNumberQpsRoundRobinWithoutReusingADestroyedQpsNumber()
    {
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), 1);
        final ProtectionDomain pd = fabric.a().allocPd();
        final CompletionQueue cq = fabric.a().createCq(4);
        final EngineQueuePair first = fabric.a().createQp(new QpInitAttributes().pd(pd).cqs(cq, cq).capacity(1, 1));
        final EngineQueuePair second = fabric.a().createQp(new QpInitAttributes().pd(pd).cqs(cq, cq).capacity(1, 1));
        assertEquals(next(first.qpn()), second.qpn());
        fabric.a().destroyQp(first);
        final EngineQueuePair third = fabric.a().createQp(new QpInitAttributes().pd(pd).cqs(cq, cq).capacity(1, 1));
        assertEquals(next(second.qpn()), third.qpn(), "the destroyed QP's number is not given again at once");
        for (final QueuePair qp : new EngineQueuePair[]{ first, second, third })
        {
            assertTrue(qp.qpn() >= QpTable.FIRST_QPN && qp.qpn() <= QpTable.MAX_QPN, "QPN " + qp.qpn());
        }
    }

    private static int next(final int qpn)
    {
        return qpn == QpTable.MAX_QPN ? QpTable.FIRST_QPN : qpn + 1;
    }
}
