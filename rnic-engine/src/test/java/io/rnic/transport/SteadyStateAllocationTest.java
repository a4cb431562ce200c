package io.rnic.transport;

import io.rnic.testing.SteadyStateAllocation;

import io.rnic.cc.DcqcnParameters;
import io.rnic.device.QueuePair;
import io.rnic.sim.LinkConditions;
import io.rnic.sim.TwoNodeFabric;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.AsyncEvent;
import io.rnic.verbs.PathMtu;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.QpType;
import io.rnic.verbs.RecvWorkRequest;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.SharedReceiveQueue;
import io.rnic.verbs.SrqAttrMask;
import io.rnic.verbs.SrqAttributes;
import io.rnic.verbs.WcStatus;
import io.rnic.verbs.WrOpcode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.lang.foreign.Arena;
import java.util.function.IntSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The engine's steady state allocates nothing: posting, transmitting, receiving, placing, acknowledging, completing
 * and polling, for each operation, measured with the thread's allocated-bytes counter (both engines, the
 * simulated wire and the application run on this thread).
 */
class SteadyStateAllocationTest
{
    private final Arena arena = Arena.ofShared();

    @AfterEach
    void close()
    {
        arena.close();
    }

    @ParameterizedTest(name = "{0} {1} B")
    @CsvSource({ "RDMA_WRITE, 64", "RDMA_WRITE, 4096", "RDMA_WRITE, 65536", "SEND, 64", "SEND, 10000",
        "RDMA_READ, 64", "RDMA_READ, 65536", "ATOMIC_FETCH_AND_ADD, 8" })
    void shouldNotAllocatePerOperation(final String operation, final int size)
    {
        assertNoAllocation(new TwoNodeFabric(new LinkConditions(), 3), operation, size);
    }

    /**
     * With DCQCN on both sides and 5 % of the data marked CE on the way: ECT marking, CNPs, rate cuts and
     * recovery, and the shaper holding the requester back all run, and allocate nothing either.
     */
    @ParameterizedTest(name = "DCQCN {0} {1} B")
    @CsvSource({ "RDMA_WRITE, 65536", "SEND, 10000", "RDMA_READ, 65536" })
    void shouldNotAllocatePerOperationWithCongestionControl(final String operation, final int size)
    {
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions().ceMark(0.05), new LinkConditions(), 3);
        final DcqcnParameters parameters = DcqcnParameters.connectX()
            .with(DcqcnParameters.LINE_RATE_BITS_PER_SEC_PARAM_NAME, "10000000000");
        fabric.a().congestionControl(parameters);
        fabric.b().congestionControl(parameters);
        assertNoAllocation(fabric, operation, size);
        final TransportCounters b = fabric.b().engine().counters();
        assertTrue(b.get(TransportCounter.CNP_SENT) > 0, "CNPs were sent: " + b);
        assertTrue(fabric.a().engine().counters().get(TransportCounter.CNP_RECEIVED) > 0);
    }

    /**
     * SENDs received through a shared receive queue whose limit is armed before each one and fires on each (the WQE
     * taken from the SRQ, the limit event raised on the device's queue and polled by the application).
     */
    @ParameterizedTest(name = "SRQ SEND {0} B")
    @CsvSource({ "64", "10000" })
    void shouldNotAllocatePerSendThroughASharedReceiveQueue(final int size)
    {
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), 3);
        final ProtectionDomain pd = fabric.b().allocPd();
        final SharedReceiveQueue srq = fabric.b().createSrq(pd, new SrqAttributes().maxWr(16).maxSge(1));
        final Connection a = new Connection(fabric.a(), arena, QpType.RC, 1 << 20, AccessFlags.ALL);
        final Connection b = new Connection(fabric.b(), arena, QpType.RC, 1 << 20, AccessFlags.ALL, pd, srq);
        a.connect(b, TwoNodeFabric.IP_B, TwoNodeFabric.MAC_B, PathMtu.MTU_4096, 0x10_0000, AccessFlags.ALL);
        b.connect(a, TwoNodeFabric.IP_A, TwoNodeFabric.MAC_A, PathMtu.MTU_4096, 0x20_0000, AccessFlags.ALL);
        final SrqAttributes limit = new SrqAttributes().srqLimit(1);
        final RecvWorkRequest recv = new RecvWorkRequest();
        recv.sgl.add(b.mr.address(), size, b.mr.lKey());
        final AsyncEvent event = new AsyncEvent();
        final long[] events = new long[1];
        assertNoAllocation(fabric, new Connection[]{ a, b }, "SEND", size, () ->
        {
            srq.modify(limit, SrqAttrMask.LIMIT);
            return srq.postRecv(recv) == 0 ? QueuePair.POST_OK : QueuePair.POST_INVALID;
        }, () ->
        {
            while (fabric.b().pollAsyncEvent(event))
            {
                events[0]++;
            }
        });
        assertTrue(events[0] >= 2_000, events[0] + " limit events");
    }

    private void assertNoAllocation(final TwoNodeFabric fabric, final String operation, final int size)
    {
        final Connection[] pair = Connection.rcPair(fabric, arena, 1 << 20, PathMtu.MTU_4096);
        final RecvWorkRequest recv = new RecvWorkRequest();
        recv.sgl.add(pair[1].mr.address(), size, pair[1].mr.lKey());
        assertNoAllocation(fabric, pair, operation, size, () -> pair[1].qp.postRecv(recv), () -> { });
    }

    private void assertNoAllocation(
        final TwoNodeFabric fabric,
        final Connection[] pair,
        final String operation,
        final int size,
        final IntSupplier postRecv,
        final Runnable afterEach)
    {
        final SendWorkRequest wr = new SendWorkRequest();
        wr.opcode = switch (operation)
        {
            case "RDMA_WRITE" -> WrOpcode.RDMA_WRITE;
            case "SEND" -> WrOpcode.SEND;
            case "RDMA_READ" -> WrOpcode.RDMA_READ;
            default -> WrOpcode.ATOMIC_FETCH_AND_ADD;
        };
        wr.sgl.add(pair[0].mr.address(), size, pair[0].mr.lKey());
        wr.remoteAddress = pair[1].mr.address();
        wr.rKey = pair[1].mr.rKey();
        wr.compareAdd = 1;
        final boolean send = wr.opcode == WrOpcode.SEND;

        final long[] failures = new long[1];
        final Runnable operations = () ->
        {
            for (int i = 0; i < 2_000; i++)
            {
                if (send && postRecv.getAsInt() != QueuePair.POST_OK)
                {
                    failures[0]++;
                }
                if (pair[0].qp.postSend(wr) != QueuePair.POST_OK)
                {
                    failures[0]++;
                }
                int polled = 0;
                int steps = 0;
                while (polled == 0 && steps++ < 100_000)
                {
                    fabric.step();
                    polled = pair[0].sendCq.poll(pair[0].completions, 1);
                }
                if (polled != 1 || pair[0].completions[0].status() != WcStatus.SUCCESS)
                {
                    failures[0]++;
                }
                if (send && pair[1].recvCq.poll(pair[1].completions, 1) != 1)
                {
                    failures[0]++;
                }
                afterEach.run();
            }
        };
        final long allocated = SteadyStateAllocation.leastBytes(operations, 4096, 30);
        assertEquals(0, failures[0], "operations that failed");
        System.out.println(operation + " " + size + " B: " + allocated + " bytes allocated over 2000 operations");
        assertTrue(allocated < 4096, "2000 " + operation + " of " + size + " B allocated " + allocated + " bytes");
    }
}
