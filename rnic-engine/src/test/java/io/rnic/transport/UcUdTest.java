package io.rnic.transport;

import io.rnic.device.QueuePair;
import io.rnic.sim.LinkConditions;
import io.rnic.sim.TwoNodeFabric;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.PathMtu;
import io.rnic.verbs.QpState;
import io.rnic.verbs.QpType;
import io.rnic.verbs.RecvWorkRequest;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.WcOpcode;
import io.rnic.verbs.WcStatus;
import io.rnic.verbs.WorkCompletion;
import io.rnic.verbs.WrOpcode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** UC: no acknowledgements, a gap drops the rest of its message. UD: DETH, Q_Key, the 40-byte GRH area. */
class UcUdTest
{
    private static final long SECOND_NS = 1_000_000_000L;
    private final Arena arena = Arena.ofShared();

    @AfterEach
    void close()
    {
        arena.close();
    }

    private static List<WorkCompletion> poll(final Connection c, final boolean recv)
    {
        final List<WorkCompletion> result = new ArrayList<>();
        int n;
        while ((n = (recv ? c.recvCq : c.sendCq).poll(c.completions, c.completions.length)) > 0)
        {
            for (int i = 0; i < n; i++)
            {
                result.add(c.completions[i]);
                c.completions[i] = new WorkCompletion();
            }
        }
        return result;
    }

    @Test
    void shouldCompleteUcSendsAtOnceAndDeliverWholeMessagesOnly()
    {
        // 10% loss from A: multi-packet messages with a hole must not be delivered.
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions().loss(0.1), new LinkConditions(), 5);
        final Connection[] pair = Connection.pair(fabric, arena, QpType.UC, 1 << 20, PathMtu.MTU_1024,
            AccessFlags.REMOTE_WRITE);
        final int messages = 200;
        final RecvWorkRequest recv = new RecvWorkRequest();
        for (int i = 0; i < messages; i++)
        {
            recv.wrId = i;
            recv.sgl.clear().add(pair[1].mr.address() + (i % 16) * 65536L, 65536, pair[1].mr.lKey());
            assertEquals(QueuePair.POST_OK, pair[1].qp.postRecv(recv));
        }
        final SendWorkRequest send = new SendWorkRequest();
        for (int i = 0; i < messages; i++)
        {
            final int length = 1 + (i * 997) % 8000;
            RcOperationsTest.fill(pair[0], 0, length, i);
            send.wrId = i;
            send.opcode = WrOpcode.SEND_WITH_IMM;
            send.immediateOrInvalidateRKey = i;
            send.sgl.clear().add(pair[0].mr.address(), length, pair[0].mr.lKey());
            assertEquals(QueuePair.POST_OK, pair[0].qp.postSend(send));
            fabric.runUntil(() -> pair[0].qp.context().sqOldest == pair[0].qp.context().sq.producerPosition(), SECOND_NS);
            // the receiver sees this message whole, or not at all
            fabric.runUntil(() -> fabric.aToB().isEmpty(), SECOND_NS);
            for (final WorkCompletion wc : poll(pair[1], true))
            {
                assertEquals(WcStatus.SUCCESS, wc.status());
                assertEquals(length, wc.byteLength(), "message " + i);
                assertEquals(i, wc.immediateData());
                RcOperationsTest.assertBytes(pair[1], (wc.wrId() % 16) * 65536L, length, i);
            }
        }
        final List<WorkCompletion> sent = poll(pair[0], false);
        assertEquals(messages, sent.size(), "UC completes every send once it is on the wire");
        assertTrue(sent.stream().allMatch(wc -> wc.status() == WcStatus.SUCCESS));
        assertTrue(fabric.b().engine().counters().get(TransportCounter.DROPPED_UC_MESSAGE) > 0);
        assertEquals(0, fabric.b().engine().counters().get(TransportCounter.ACKS_SENT));
    }

    /**
     * A UC SEND that finds no receive WQE drops its message and leaves the QP as it was; one that overflows the WQE
     * completes it with LOC_LEN_ERR and errors the QP, with nothing left to drop. Neither is answered.
     */
    @Test
    void shouldDropAUcSendWithoutReceiveAndFailOneLargerThanTheReceiveBuffer()
    {
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), 1);
        final Connection[] pair = Connection.pair(fabric, arena, QpType.UC, 1 << 16, PathMtu.MTU_1024,
            AccessFlags.REMOTE_WRITE);
        final TransportCounters counters = fabric.b().engine().counters();
        final SendWorkRequest send = new SendWorkRequest();
        send.opcode = WrOpcode.SEND;
        send.sgl.add(pair[0].mr.address(), 101, pair[0].mr.lKey());
        assertEquals(QueuePair.POST_OK, pair[0].qp.postSend(send));
        assertTrue(fabric.runUntil(() -> fabric.aToB().framesIn() == 1 && fabric.aToB().isEmpty(), SECOND_NS));
        fabric.step();
        assertEquals(1, counters.get(TransportCounter.DROPPED_UC_MESSAGE), "no receive WQE: the message is dropped");
        assertEquals(QpState.RTS, pair[1].qp.state());

        final RecvWorkRequest recv = new RecvWorkRequest();
        recv.wrId = 7;
        recv.sgl.add(pair[1].mr.address(), 100, pair[1].mr.lKey());
        assertEquals(QueuePair.POST_OK, pair[1].qp.postRecv(recv));
        assertEquals(QueuePair.POST_OK, pair[0].qp.postSend(send));
        final List<WorkCompletion> received = new ArrayList<>();
        assertTrue(fabric.runUntil(() -> received.addAll(poll(pair[1], true)) || !received.isEmpty(), SECOND_NS));
        assertEquals(WcStatus.LOC_LEN_ERR, received.get(0).status());
        assertEquals(7, received.get(0).wrId());
        assertEquals(QpState.ERR, pair[1].qp.state());
        assertEquals(1, counters.get(TransportCounter.DROPPED_UC_MESSAGE), "a failed receive is not also a drop");
        assertEquals(1, counters.get(TransportCounter.LOCAL_LENGTH_ERROR));
        assertEquals(0, fabric.bToA().framesIn(), "UC sends nothing back");
    }

    @Test
    void shouldWriteOverUcWithoutAcknowledgements()
    {
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), 1);
        final Connection[] pair = Connection.pair(fabric, arena, QpType.UC, 1 << 16, PathMtu.MTU_1024,
            AccessFlags.REMOTE_WRITE);
        RcOperationsTest.fill(pair[0], 0, 5000, 9);
        final SendWorkRequest write = new SendWorkRequest();
        write.opcode = WrOpcode.RDMA_WRITE;
        write.sgl.add(pair[0].mr.address(), 5000, pair[0].mr.lKey());
        write.remoteAddress = pair[1].mr.address() + 100;
        write.rKey = pair[1].mr.rKey();
        assertEquals(QueuePair.POST_OK, pair[0].qp.postSend(write));
        fabric.runUntil(() -> fabric.aToB().isEmpty() && fabric.aToB().framesIn() > 0, SECOND_NS);
        fabric.step();
        RcOperationsTest.assertBytes(pair[1], 100, 5000, 9);
        assertEquals(WcStatus.SUCCESS, poll(pair[0], false).get(0).status());
        assertEquals(0, fabric.bToA().framesIn(), "UC sends nothing back");

        write.opcode = WrOpcode.RDMA_READ; // UC has no READ
        assertEquals(QueuePair.POST_OK, pair[0].qp.postSend(write));
        fabric.step();
        assertEquals(WcStatus.LOC_QP_OP_ERR, poll(pair[0], false).get(0).status());
    }

    @Test
    void shouldDeliverUdDatagramsWithTheIpHeaderInTheGrhAreaAndCheckTheQKey()
    {
        for (final boolean ipv6 : new boolean[]{ false, true })
        {
            final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), 1);
            final Connection[] pair = Connection.pair(fabric, arena, QpType.UD, 8192, PathMtu.MTU_1024, 0);
            final RecvWorkRequest recv = new RecvWorkRequest();
            recv.wrId = 11;
            recv.sgl.add(pair[1].mr.address(), 40 + 1024, pair[1].mr.lKey());
            assertEquals(QueuePair.POST_OK, pair[1].qp.postRecv(recv));
            assertEquals(QueuePair.POST_OK, pair[1].qp.postRecv(recv));

            RcOperationsTest.fill(pair[0], 0, 1000, 5);
            final SendWorkRequest send = new SendWorkRequest();
            send.opcode = WrOpcode.SEND_WITH_IMM;
            send.immediateOrInvalidateRKey = 0xCAFE;
            send.sgl.add(pair[0].mr.address(), 1000, pair[0].mr.lKey());
            send.udRemoteQpn = pair[1].qp.qpn();
            send.udRemoteQkey = 0x11111111;
            addressToB(send, ipv6);
            assertEquals(QueuePair.POST_OK, pair[0].qp.postSend(send));
            send.udRemoteQkey = 0x22222222; // wrong Q_Key: silently dropped
            assertEquals(QueuePair.POST_OK, pair[0].qp.postSend(send));
            assertTrue(fabric.runUntil(() -> fabric.b().engine().counters().get(TransportCounter.DROPPED_QKEY) == 1,
                SECOND_NS));

            final List<WorkCompletion> received = poll(pair[1], true);
            assertEquals(1, received.size());
            final WorkCompletion wc = received.get(0);
            assertEquals(WcStatus.SUCCESS, wc.status());
            assertEquals(WcOpcode.RECV, wc.opcode());
            assertEquals(40 + 1000, wc.byteLength());
            assertEquals(pair[0].qp.qpn(), wc.sourceQp());
            assertEquals(0xCAFE, wc.immediateData());
            assertTrue(wc.hasFlag(WorkCompletion.GRH));
            assertEquals(ipv6 ? WorkCompletion.NETWORK_HDR_IPV6 : WorkCompletion.NETWORK_HDR_IPV4, wc.networkHeaderType());
            if (ipv6)
            {
                assertEquals(6, (pair[1].memory.get(ValueLayout.JAVA_BYTE, 0) & 0xF0) >> 4);
            }
            else
            {
                assertEquals(0x45, pair[1].memory.get(ValueLayout.JAVA_BYTE, 20) & 0xFF, "IPv4 header at offset 20");
                assertEquals(TwoNodeFabric.IP_A, Integer.reverseBytes(pair[1].memory.get(ValueLayout.JAVA_INT, 20 + 12)));
            }
            RcOperationsTest.assertBytes(pair[1], 40, 1000, 5);
            assertEquals(2, poll(pair[0], false).size(), "UD sends complete on the wire");
        }
    }

    @Test
    void shouldRejectUdMessagesLargerThanTheMtu()
    {
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), 1);
        final Connection[] pair = Connection.pair(fabric, arena, QpType.UD, 8192, PathMtu.MTU_1024, 0);
        final SendWorkRequest send = new SendWorkRequest();
        send.opcode = WrOpcode.SEND;
        send.sgl.add(pair[0].mr.address(), 1025, pair[0].mr.lKey());
        send.udRemoteQpn = pair[1].qp.qpn();
        send.udAddress.destinationIpv4(TwoNodeFabric.IP_B).destinationMac(TwoNodeFabric.MAC_B);
        assertEquals(QueuePair.POST_OK, pair[0].qp.postSend(send));
        fabric.step();
        assertEquals(WcStatus.LOC_LEN_ERR, poll(pair[0], false).get(0).status());
    }

    @Test
    void shouldCarryUdDatagramsUpToThePortsMtu()
    {
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), 1);
        fabric.a().engine().port().ethernetMtu(9000); // IB MTU 4096, as on a jumbo-frame link
        fabric.b().engine().port().ethernetMtu(9000);
        final Connection[] pair = Connection.pair(fabric, arena, QpType.UD, 16384, PathMtu.MTU_1024, 0);
        final RecvWorkRequest recv = new RecvWorkRequest();
        recv.sgl.add(pair[1].mr.address(), 40 + 4096, pair[1].mr.lKey());
        assertEquals(QueuePair.POST_OK, pair[1].qp.postRecv(recv));

        RcOperationsTest.fill(pair[0], 0, 4096, 9);
        final SendWorkRequest send = new SendWorkRequest();
        send.opcode = WrOpcode.SEND;
        send.sgl.add(pair[0].mr.address(), 4096, pair[0].mr.lKey());
        send.udRemoteQpn = pair[1].qp.qpn();
        send.udRemoteQkey = 0x11111111;
        addressToB(send, false);
        assertEquals(QueuePair.POST_OK, pair[0].qp.postSend(send));
        fabric.runUntil(() -> false, 100_000_000L);
        final List<WorkCompletion> received = poll(pair[1], true);
        assertEquals(1, received.size());
        assertEquals(WcStatus.SUCCESS, received.get(0).status());
        assertEquals(40 + 4096, received.get(0).byteLength());
        RcOperationsTest.assertBytes(pair[1], 40, 4096, 9);
        assertEquals(WcStatus.SUCCESS, poll(pair[0], false).get(0).status());

        send.sgl.clear();
        send.sgl.add(pair[0].mr.address(), 4097, pair[0].mr.lKey()); // one byte past the port's IB MTU
        assertEquals(QueuePair.POST_OK, pair[0].qp.postSend(send));
        fabric.step();
        assertEquals(WcStatus.LOC_LEN_ERR, poll(pair[0], false).get(0).status());
    }

    /** A UD send's address: B over IPv6 (fd00::b, our GID 1) or IPv4 (our GID 0). */
    static void addressToB(final SendWorkRequest send, final boolean ipv6)
    {
        if (ipv6)
        {
            send.udAddress.destinationGid(0xFD00_0000_0000_0000L, 0xB).sourceGidIndex(1)
                .destinationMac(TwoNodeFabric.MAC_B);
        }
        else
        {
            send.udAddress.destinationIpv4(TwoNodeFabric.IP_B).sourceGidIndex(0).destinationMac(TwoNodeFabric.MAC_B);
        }
    }
}
