package io.rnic.transport;

import io.rnic.device.QueuePair;
import io.rnic.sim.LinkConditions;
import io.rnic.sim.TwoNodeFabric;
import io.rnic.verbs.PathMtu;
import io.rnic.verbs.QpState;
import io.rnic.verbs.RecvWorkRequest;
import io.rnic.verbs.SendFlags;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.WcOpcode;
import io.rnic.verbs.WcStatus;
import io.rnic.verbs.WorkCompletion;
import io.rnic.verbs.WrOpcode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Each RC operation between two engines on a clean simulated link: byte-exact memory and the right completions. */
class RcOperationsTest
{

    private final Arena arena = Arena.ofShared();
    private final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), 1);

    @AfterEach
    void close()
    {
        arena.close();
    }

    static void fill(final Connection c, final long offset, final int length, final int seed)
    {
        for (int i = 0; i < length; i++)
        {
            c.memory.set(ValueLayout.JAVA_BYTE, offset + i, (byte)(i * 31 + seed));
        }
    }

    static void assertBytes(final Connection c, final long offset, final int length, final int seed)
    {
        for (int i = 0; i < length; i++)
        {
            final byte expected = (byte)(i * 31 + seed);
            final byte actual = c.memory.get(ValueLayout.JAVA_BYTE, offset + i);
            if (expected != actual)
            {
                throw new AssertionError("byte " + i + " at offset " + offset + ": expected " + expected + " got " + actual);
            }
        }
    }

    private WorkCompletion awaitCompletion(final Connection c, final boolean recv)
    {
        return c.awaitCompletion(fabric, recv);
    }

    private static SendWorkRequest write(final Connection from, final Connection to, final long offset, final int length)
    {
        final SendWorkRequest wr = new SendWorkRequest();
        wr.wrId = 1;
        wr.opcode = WrOpcode.RDMA_WRITE;
        wr.sgl.add(from.mr.address() + offset, length, from.mr.lKey());
        wr.remoteAddress = to.mr.address() + offset;
        wr.rKey = to.mr.rKey();
        return wr;
    }

    @Test
    void shouldWriteMultiPacketMessagesByteExact()
    {
        final Connection[] pair = Connection.rcPair(fabric, arena, 1 << 20, PathMtu.MTU_1024);
        for (final int length : new int[]{ 0, 1, 1023, 1024, 1025, 4096, 100_000 })
        {
            fill(pair[0], 0, length, length);
            final SendWorkRequest wr = write(pair[0], pair[1], 0, length);
            wr.wrId = length;
            assertEquals(QueuePair.POST_OK, pair[0].qp.postSend(wr));
            final WorkCompletion wc = awaitCompletion(pair[0], false);
            assertEquals(WcStatus.SUCCESS, wc.status(), "length " + length);
            assertEquals(WcOpcode.RDMA_WRITE, wc.opcode());
            assertEquals(length, wc.wrId());
            assertBytes(pair[1], 0, length, length);
        }
    }

    @Test
    void shouldReadMultiPacketMessagesByteExact()
    {
        final Connection[] pair = Connection.rcPair(fabric, arena, 1 << 20, PathMtu.MTU_4096);
        for (final int length : new int[]{ 0, 8, 4096, 4097, 300_000 })
        {
            fill(pair[1], 4096, length, 7 + length);
            final SendWorkRequest wr = new SendWorkRequest();
            wr.wrId = length;
            wr.opcode = WrOpcode.RDMA_READ;
            wr.sgl.add(pair[0].mr.address() + 8192, length, pair[0].mr.lKey());
            wr.remoteAddress = pair[1].mr.address() + 4096;
            wr.rKey = pair[1].mr.rKey();
            assertEquals(QueuePair.POST_OK, pair[0].qp.postSend(wr));
            final WorkCompletion wc = awaitCompletion(pair[0], false);
            assertEquals(WcStatus.SUCCESS, wc.status());
            assertEquals(WcOpcode.RDMA_READ, wc.opcode());
            assertEquals(length, wc.byteLength());
            assertBytes(pair[0], 8192, length, 7 + length);
        }
    }

    @Test
    void shouldSendWithImmediateIntoAReceiveAcrossScatterEntries()
    {
        final Connection[] pair = Connection.rcPair(fabric, arena, 1 << 20, PathMtu.MTU_1024);
        final RecvWorkRequest recv = new RecvWorkRequest();
        recv.wrId = 77;
        recv.sgl.add(pair[1].mr.address() + 100, 3000, pair[1].mr.lKey())
            .add(pair[1].mr.address() + 50_000, 10_000, pair[1].mr.lKey());
        assertEquals(QueuePair.POST_OK, pair[1].qp.postRecv(recv));

        fill(pair[0], 0, 5000, 3);
        final SendWorkRequest send = new SendWorkRequest();
        send.wrId = 5;
        send.opcode = WrOpcode.SEND_WITH_IMM;
        send.immediateOrInvalidateRKey = 0x12345678;
        send.sendFlags = SendFlags.SIGNALED | SendFlags.SOLICITED;
        send.sgl.add(pair[0].mr.address(), 5000, pair[0].mr.lKey());
        assertEquals(QueuePair.POST_OK, pair[0].qp.postSend(send));

        final WorkCompletion received = awaitCompletion(pair[1], true);
        assertEquals(WcStatus.SUCCESS, received.status());
        assertEquals(WcOpcode.RECV, received.opcode());
        assertEquals(77, received.wrId());
        assertEquals(5000, received.byteLength());
        assertTrue(received.hasFlag(WorkCompletion.WITH_IMM));
        assertEquals(0x12345678, received.immediateData());
        for (int i = 0; i < 5000; i++)
        {
            final long at = i < 3000 ? 100 + i : 50_000 + i - 3000;
            assertEquals((byte)(i * 31 + 3), pair[1].memory.get(ValueLayout.JAVA_BYTE, at), "byte " + i);
        }
        final WorkCompletion sent = awaitCompletion(pair[0], false);
        assertEquals(WcStatus.SUCCESS, sent.status());
        assertEquals(WcOpcode.SEND, sent.opcode());
    }

    @Test
    void shouldCountSendsAndReceivesAsRxeDoesButNotWrites()
    {
        final Connection[] pair = Connection.rcPair(fabric, arena, 1 << 16, PathMtu.MTU_1024);
        final RecvWorkRequest recv = new RecvWorkRequest();
        recv.wrId = 1;
        recv.sgl.add(pair[1].mr.address(), 4096, pair[1].mr.lKey());
        assertEquals(QueuePair.POST_OK, pair[1].qp.postRecv(recv));
        final SendWorkRequest send = new SendWorkRequest();
        send.wrId = 2;
        send.opcode = WrOpcode.SEND;
        send.sgl.add(pair[0].mr.address(), 100, pair[0].mr.lKey());
        assertEquals(QueuePair.POST_OK, pair[0].qp.postSend(send)); // unsignalled: counted all the same
        final SendWorkRequest write = write(pair[0], pair[1], 8192, 3000);
        write.sendFlags = SendFlags.SIGNALED;
        assertEquals(QueuePair.POST_OK, pair[0].qp.postSend(write));

        assertEquals(WcStatus.SUCCESS, awaitCompletion(pair[1], true).status());
        assertEquals(WcStatus.SUCCESS, awaitCompletion(pair[0], false).status());

        final TransportCounters a = fabric.a().engine().counters();
        final TransportCounters b = fabric.b().engine().counters();
        assertEquals(1, a.get(TransportCounter.RDMA_SENDS));
        assertEquals(0, a.get(TransportCounter.RDMA_RECVS));
        assertEquals(0, b.get(TransportCounter.RDMA_SENDS));
        assertEquals(1, b.get(TransportCounter.RDMA_RECVS));
        assertEquals("rdma_sends", TransportCounter.RDMA_SENDS.label());
        assertEquals("rdma_recvs", TransportCounter.RDMA_RECVS.label());
    }

    @Test
    void shouldRunCompareSwapAndFetchAddExactlyOnce()
    {
        final Connection[] pair = Connection.rcPair(fabric, arena, 4096, PathMtu.MTU_1024);
        pair[1].memory.set(ValueLayout.JAVA_LONG, 64, 100L);

        final SendWorkRequest add = new SendWorkRequest();
        add.opcode = WrOpcode.ATOMIC_FETCH_AND_ADD;
        add.compareAdd = 23;
        add.sgl.add(pair[0].mr.address(), 8, pair[0].mr.lKey());
        add.remoteAddress = pair[1].mr.address() + 64;
        add.rKey = pair[1].mr.rKey();
        assertEquals(QueuePair.POST_OK, pair[0].qp.postSend(add));
        assertEquals(WcStatus.SUCCESS, awaitCompletion(pair[0], false).status());
        assertEquals(100L, pair[0].memory.get(ValueLayout.JAVA_LONG, 0));
        assertEquals(123L, pair[1].memory.get(ValueLayout.JAVA_LONG, 64));

        final SendWorkRequest cas = new SendWorkRequest();
        cas.opcode = WrOpcode.ATOMIC_CMP_AND_SWP;
        cas.compareAdd = 123;
        cas.swap = -5;
        cas.sgl.add(pair[0].mr.address() + 8, 8, pair[0].mr.lKey());
        cas.remoteAddress = pair[1].mr.address() + 64;
        cas.rKey = pair[1].mr.rKey();
        assertEquals(QueuePair.POST_OK, pair[0].qp.postSend(cas));
        final WorkCompletion wc = awaitCompletion(pair[0], false);
        assertEquals(WcStatus.SUCCESS, wc.status());
        assertEquals(WcOpcode.COMP_SWAP, wc.opcode());
        assertEquals(123L, pair[0].memory.get(ValueLayout.JAVA_LONG, 8));
        assertEquals(-5L, pair[1].memory.get(ValueLayout.JAVA_LONG, 64));

        // a failing compare leaves memory alone and returns what is there
        assertEquals(QueuePair.POST_OK, pair[0].qp.postSend(cas));
        assertEquals(WcStatus.SUCCESS, awaitCompletion(pair[0], false).status());
        assertEquals(-5L, pair[0].memory.get(ValueLayout.JAVA_LONG, 8));
        assertEquals(-5L, pair[1].memory.get(ValueLayout.JAVA_LONG, 64));
        assertEquals(QpState.RTS, pair[0].qp.state());
    }
}
