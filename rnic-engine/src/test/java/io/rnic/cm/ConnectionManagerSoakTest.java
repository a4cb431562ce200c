package io.rnic.cm;

import io.rnic.device.EngineQueuePair;
import io.rnic.device.QueuePair;
import io.rnic.device.RnicDevice;
import io.rnic.sim.LinkConditions;
import io.rnic.sim.TwoNodeFabric;
import io.rnic.transport.LocalPort;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.MemoryRegion;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.QpInitAttributes;
import io.rnic.verbs.QpType;
import io.rnic.verbs.RecvWorkRequest;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.WcStatus;
import io.rnic.verbs.WorkCompletion;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Connect / SEND / disconnect / release, over and over, between two connection managers on the simulated fabric:
 * what the manager holds stays bounded (connections in their timewait, their QPs) and so does the heap, and the time
 * a connection takes does not grow with the number served (printed per 500, not asserted: it is wall time on a
 * shared machine). {@value #CYCLES_DEFAULT} cycles (a few seconds); {@code -Drnic.cm.soak.cycles=N} for another count.
 */
class ConnectionManagerSoakTest
{
    static final String CYCLES_PROP_NAME = "rnic.cm.soak.cycles";
    static final int CYCLES_DEFAULT = 10_000;
    private static final int PORT = 7174;
    private static final long SECOND_NS = 1_000_000_000L;
    private static final long IP_A_GID = 0x0000_FFFF_0000_0000L | TwoNodeFabric.IP_A;
    private static final long IP_B_GID = 0x0000_FFFF_0000_0000L | TwoNodeFabric.IP_B;
    /** Short, so that the steady state (connections in timewait as many as close within it) comes early. */
    private static final long TIMEWAIT_NS = 200_000;
    /** What the heap may grow between cycle 1 000 and the last after a GC: noise, not a connection's worth × 1 000s. */
    private static final long HEAP_SLACK_BYTES = 8L << 20;
    private static final int MAX_HELD_CONNECTIONS = 64;

    private static ConnectionManager manager(final TwoNodeFabric fabric, final RnicDevice device, final long seed)
    {
        final boolean isA = device == fabric.a();
        final LocalPort port = new LocalPort(isA ? TwoNodeFabric.MAC_A : TwoNodeFabric.MAC_B).ethernetMtu(1500);
        port.addIpv4(isA ? TwoNodeFabric.IP_A : TwoNodeFabric.IP_B);
        return new ConnectionManager(device, port, 0,
            (high, low) -> low == IP_A_GID ? TwoNodeFabric.MAC_A : TwoNodeFabric.MAC_B, seed)
            .timeouts(12, 3).timewaitNs(TIMEWAIT_NS);
    }

    private static long usedHeapAfterGc()
    {
        for (int i = 0; i < 3; i++)
        {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    /** One side's resources that outlive the connections: a PD, one CQ and a registered buffer. */
    private static final class Side
    {
        final RnicDevice device;
        final ProtectionDomain pd;
        final CompletionQueue cq;
        final MemoryRegion mr;

        Side(final RnicDevice device, final Arena arena)
        {
            this.device = device;
            pd = device.allocPd();
            cq = device.createCq(16);
            final MemorySegment memory = arena.allocate(4096, 4096);
            mr = device.registerMemoryRegion(pd, memory, AccessFlags.LOCAL_WRITE);
        }

        EngineQueuePair newQp()
        {
            return device.createQp(new QpInitAttributes().type(QpType.RC).pd(pd).cqs(cq, cq).capacity(4, 4));
        }
    }

    @Test
    void shouldHoldABoundedNumberOfConnectionsAndAFlatHeapOverThousandsOfConnections()
    {
        final int cycles = Integer.getInteger(CYCLES_PROP_NAME, CYCLES_DEFAULT);
        try (Arena arena = Arena.ofShared())
        {
            final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), 1);
            final ConnectionManager cmA = manager(fabric, fabric.a(), 1);
            final ConnectionManager cmB = manager(fabric, fabric.b(), 2);
            final BooleanSupplier[] until = new BooleanSupplier[1];
            final BooleanSupplier pollBoth = () ->
            {
                cmA.poll(fabric.clock().nanoTime());
                cmB.poll(fabric.clock().nanoTime());
                return until[0].getAsBoolean();
            };
            cmB.listen(PORT);
            final Side a = new Side(fabric.a(), arena);
            final Side b = new Side(fabric.b(), arena);
            final WorkCompletion[] wcs = { new WorkCompletion() };
            final SendWorkRequest send = new SendWorkRequest();
            send.sgl.add(a.mr.address(), 64, a.mr.lKey());
            final RecvWorkRequest recv = new RecvWorkRequest();
            recv.sgl.add(b.mr.address(), 4096, b.mr.lKey());
            final CmConnection[] passive = new CmConnection[1];
            final int[] completions = new int[2];
            long heapAt1000 = -1;
            long startNs = System.nanoTime();
            for (int cycle = 1; cycle <= cycles; cycle++)
            {
                final EngineQueuePair qpA = a.newQp();
                final EngineQueuePair qpB = b.newQp();
                final CmConnection active = cmA.connect(qpA, 0, IP_B_GID, PORT, 1, 1, fabric.clock().nanoTime());
                passive[0] = null;
                until[0] = () -> (passive[0] = cmB.pollConnectRequest()) != null;
                assertTrue(fabric.runUntil(pollBoth, SECOND_NS), "REQ of cycle " + cycle);
                ConnectionManager.toInit(qpB);
                assertEquals(QueuePair.POST_OK, qpB.postRecv(recv));
                cmB.accept(passive[0], qpB, 1, 1, fabric.clock().nanoTime());
                until[0] = () -> active.isEstablished() && passive[0].isEstablished();
                assertTrue(fabric.runUntil(pollBoth, SECOND_NS), "established, cycle " + cycle);

                assertEquals(QueuePair.POST_OK, qpA.postSend(send));
                completions[0] = 0;
                completions[1] = 0;
                until[0] = () ->
                {
                    completions[0] += pollSuccess(a.cq, wcs);
                    completions[1] += pollSuccess(b.cq, wcs);
                    return completions[0] == 1 && completions[1] == 1;
                };
                assertTrue(fabric.runUntil(pollBoth, SECOND_NS), "SEND of cycle " + cycle);

                cmA.release(active, fabric.clock().nanoTime()); // the DREQ
                until[0] = () -> active.isClosed() && passive[0].isClosed();
                assertTrue(fabric.runUntil(pollBoth, SECOND_NS), "DREQ / DREP of cycle " + cycle);
                cmB.release(passive[0], fabric.clock().nanoTime());

                assertTrue(cmA.connectionCount() <= MAX_HELD_CONNECTIONS && cmB.connectionCount() <= MAX_HELD_CONNECTIONS,
                    "connections held at cycle " + cycle + ": " + cmA.connectionCount() + " / " +
                    cmB.connectionCount());
                if (cycle % 500 == 0)
                {
                    System.out.printf("cycle %d: %.3f s per 500 connections, held %d / %d, QPs %d / %d%n", cycle,
                        (System.nanoTime() - startNs) / 1e9, cmA.connectionCount(), cmB.connectionCount(),
                        fabric.a().engine().qps().size(), fabric.b().engine().qps().size());
                    if (cycle % 1000 == 0)
                    {
                        final long heap = usedHeapAfterGc();
                        System.out.printf("cycle %d: heap after GC %.1f MB%n", cycle, heap / 1e6);
                        if (cycle == 1000)
                        {
                            heapAt1000 = heap;
                        }
                        else
                        {
                            assertTrue(heap - heapAt1000 < HEAP_SLACK_BYTES, "heap grew from " + heapAt1000 +
                                " B at cycle 1000 to " + heap + " B at cycle " + cycle);
                        }
                    }
                    startNs = System.nanoTime();
                }
            }
            until[0] = () -> cmA.timewaitCount() == 0 && cmB.timewaitCount() == 0;
            assertTrue(fabric.runUntil(pollBoth, SECOND_NS));
            assertEquals(0, cmA.connectionCount());
            assertEquals(0, cmB.connectionCount());
            assertEquals(cycles, cmA.counter(CmCounter.TIMEWAITS_ENDED));
            assertEquals(cycles, cmB.counter(CmCounter.TIMEWAITS_ENDED));
            assertEquals(0, cmA.counter(CmCounter.RETRANSMISSIONS) + cmB.counter(CmCounter.RETRANSMISSIONS));
            assertEquals(1, fabric.a().engine().qps().size(), "the GSI QP only: every released QP destroyed");
            assertEquals(1, fabric.b().engine().qps().size(), "the GSI QP only: every released QP destroyed");
            assertFalse(cycles >= 2000 && heapAt1000 < 0);
            cmA.close();
            cmB.close();
        }
    }

    private static int pollSuccess(final CompletionQueue cq, final WorkCompletion[] wcs)
    {
        final int n = cq.poll(wcs, 1);
        if (n == 1)
        {
            assertEquals(WcStatus.SUCCESS, wcs[0].status());
        }
        return n;
    }
}
