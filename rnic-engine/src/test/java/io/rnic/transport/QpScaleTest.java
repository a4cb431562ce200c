package io.rnic.transport;

import io.rnic.device.ConnectParameters;
import io.rnic.device.EngineQueuePair;
import io.rnic.device.QueuePair;
import io.rnic.device.RnicDevice;
import io.rnic.sim.LinkConditions;
import io.rnic.sim.TwoNodeFabric;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.MemoryRegion;
import io.rnic.verbs.PathMtu;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.QpInitAttributes;
import io.rnic.verbs.ScatterGatherList;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.WrOpcode;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.ThreadMXBean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** An engine with 100 000 QPs: creating and destroying them, what each one holds, what idle ones cost. */
class QpScaleTest
{
    private static final int MANY_QPS = 100_000;

    private final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions().delayNs(0), 7);
    private final RnicDevice device = fabric.a();
    private final ProtectionDomain pd = device.allocPd();
    private final CompletionQueue cq = device.createCq(16);

    @Test
    void shouldCreateAndDestroy100000RcQps()
    {
        final EngineQueuePair[] qps = new EngineQueuePair[MANY_QPS];
        final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        final long startCpuNs = threads.getCurrentThreadCpuTime();
        final long startNs = System.nanoTime();
        for (int i = 0; i < MANY_QPS; i++)
        {
            qps[i] = device.createQp(new QpInitAttributes().pd(pd).cqs(cq, cq).capacity(4, 4));
        }
        final long createdNs = System.nanoTime();
        final long createdCpuNs = threads.getCurrentThreadCpuTime();
        for (final QueuePair qp : qps)
        {
            device.destroyQp(qp);
        }
        final long destroyedNs = System.nanoTime();
        final long destroyedCpuNs = threads.getCurrentThreadCpuTime();
        System.out.printf("%d RC QPs (4/4): created in %.2f s (%.2f s CPU), destroyed in %.2f s (%.2f s CPU)%n",
            MANY_QPS, (createdNs - startNs) / 1e9, (createdCpuNs - startCpuNs) / 1e9, (destroyedNs - createdNs) / 1e9,
            (destroyedCpuNs - createdCpuNs) / 1e9);
        for (final QueuePair qp : qps)
        {
            assertNull(device.engine().qps().get(qp.qpn()));
        }
    }

    @Test
    void shouldVisitNoIdleQpAndSendAPostOnOneOfThemInTheNextCycle()
    {
        final EngineQueuePair[] qps = new EngineQueuePair[MANY_QPS];
        final ConnectParameters parameters = new ConnectParameters().pathMtu(PathMtu.MTU_1024);
        parameters.addressVector.destinationIpv4(TwoNodeFabric.IP_B).destinationMac(TwoNodeFabric.MAC_B);
        for (int i = 0; i < MANY_QPS; i++)
        {
            qps[i] = device.createQp(new QpInitAttributes().pd(pd).cqs(cq, cq).capacity(4, 4));
            parameters.remote(0x100 + i, i).applyTo(qps[i]);
        }
        final RnicEngine engine = device.engine();
        engine.doWork();
        final long visitedBefore = engine.qpsVisited;
        for (int i = 0; i < 10; i++)
        {
            assertEquals(0, engine.doWork(), "an idle engine does no work");
        }
        assertEquals(visitedBefore, engine.qpsVisited, "idle QPs visited");
        assertEquals(0, engine.activeQpCount());

        try (Arena arena = Arena.ofConfined())
        {
            final MemoryRegion region = device.registerMemoryRegion(pd, arena.allocate(64), AccessFlags.LOCAL_WRITE);
            final SendWorkRequest wr = new SendWorkRequest();
            wr.opcode = WrOpcode.RDMA_WRITE;
            wr.sgl.add(region.address(), 64, region.lKey());
            wr.remoteAddress = 0x1000;
            wr.rKey = 0x1234;
            final long sentBefore = engine.counters().get(TransportCounter.PACKETS_SENT);
            assertEquals(QueuePair.POST_OK, qps[MANY_QPS / 2].postSend(wr));

            assertEquals(1, engine.doWork(), "the posted WRITE is sent in the next cycle");
            assertEquals(sentBefore + 1, engine.counters().get(TransportCounter.PACKETS_SENT));
            assertEquals(visitedBefore + 1, engine.qpsVisited, "only the QP posted to is visited");
            assertEquals(0, engine.activeQpCount(), "nothing left to send: the QP leaves the active list");
            engine.doWork();
            assertEquals(visitedBefore + 1, engine.qpsVisited);
        }
    }

    @Test
    void shouldKeepAQpWithMoreThanItsBudgetActiveUntilItHasSentEverything()
    {
        final EngineQueuePair qp = device.createQp(new QpInitAttributes().pd(pd).cqs(cq, cq).capacity(256, 4));
        final ConnectParameters parameters = new ConnectParameters().pathMtu(PathMtu.MTU_1024).remote(0x100, 0);
        parameters.addressVector.destinationIpv4(TwoNodeFabric.IP_B).destinationMac(TwoNodeFabric.MAC_B);
        parameters.applyTo(qp);
        final RnicEngine engine = device.engine();
        try (Arena arena = Arena.ofConfined())
        {
            final MemoryRegion region = device.registerMemoryRegion(pd, arena.allocate(64), AccessFlags.LOCAL_WRITE);
            final SendWorkRequest wr = new SendWorkRequest();
            wr.opcode = WrOpcode.RDMA_WRITE;
            wr.sendFlags = 0;
            wr.sgl.add(region.address(), 64, region.lKey());
            wr.rKey = 0x1234;
            final int posted = 2 * RnicEngine.SEND_BUDGET_PER_QP + 10;
            for (int i = 0; i < posted; i++)
            {
                assertEquals(QueuePair.POST_OK, qp.postSend(wr));
            }
            assertEquals(RnicEngine.SEND_BUDGET_PER_QP, engine.doWork());
            assertEquals(1, engine.activeQpCount(), "more to send: the QP stays active without another post");
            assertEquals(RnicEngine.SEND_BUDGET_PER_QP, engine.doWork());
            assertEquals(10, engine.doWork());
            assertEquals(0, engine.activeQpCount());
            assertEquals(posted, engine.counters().get(TransportCounter.PACKETS_SENT));
        }
    }

    @Test
    void shouldHoldHeapInProportionToQueueDepthsAndScatterGatherEntries()
    {
        final long small = retainedBytesPerQp(4, ScatterGatherList.MAX_SGE, 2_000);
        final long smallOneSge = retainedBytesPerQp(4, 1, 2_000);
        final long standard = retainedBytesPerQp(128, ScatterGatherList.MAX_SGE, 2_000);
        final long standardOneSge = retainedBytesPerQp(128, 1, 2_000);
        final long deep = retainedBytesPerQp(1024, ScatterGatherList.MAX_SGE, 500);
        System.out.printf("heap per RC QP (send/recv depth, SGEs): 4/4,16: %d B; 4/4,1: %d B; 128/128,16: %d B; " +
            "128/128,1: %d B; 1024/1024,16: %d B%n", small, smallOneSge, standard, standardOneSge, deep);

        final double perWr = (standard - small) / 124.0;
        final double perWrOneSge = (standardOneSge - smallOneSge) / 124.0;
        final double fixed = small - 4 * perWr;
        assertTrue(Math.abs(deep - (fixed + 1024 * perWr)) < 0.1 * deep,
            "a 1024-deep QP holds " + deep + " B, not " + (fixed + 1024 * perWr) + " (linear in depth)");
        assertTrue(perWrOneSge < 0.5 * perWr, "a work request slot of 1 SGE holds " + perWrOneSge + " B, of 16: " +
            perWr + " B (slots sized to the QP's max SGE)");
        assertTrue(fixed < 4_096, "what a QP holds whatever its depths: " + fixed + " B");
    }

    /** Heap in use after a GC with {@code count} QPs of this depth, less before, per QP. */
    private long retainedBytesPerQp(final int depth, final int maxSge, final int count)
    {
        final EngineQueuePair[] qps = new EngineQueuePair[count];
        final long before = usedHeapAfterGc();
        for (int i = 0; i < count; i++)
        {
            qps[i] = device.createQp(
                new QpInitAttributes().pd(pd).cqs(cq, cq).capacity(depth, depth).maxSge(maxSge, maxSge));
        }
        final long after = usedHeapAfterGc();
        for (final QueuePair qp : qps)
        {
            device.destroyQp(qp);
        }
        assertEquals(count, qps.length);
        return (after - before) / count;
    }

    private static long usedHeapAfterGc()
    {
        final MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        for (int i = 0; i < 3; i++)
        {
            System.gc();
        }
        return memory.getHeapMemoryUsage().getUsed();
    }
}
