package io.rnic.transport;

import io.rnic.device.QueuePair;
import io.rnic.device.RnicDevice;
import io.rnic.sim.LinkConditions;
import io.rnic.sim.VirtualClock;
import io.rnic.sim.TwoNodeFabric;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.AsyncEvent;
import io.rnic.verbs.EngineSharedReceiveQueue;
import io.rnic.verbs.Errno;
import io.rnic.verbs.PathMtu;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.QpAttrMask;
import io.rnic.verbs.QpAttributes;
import io.rnic.verbs.QpInitAttributes;
import io.rnic.verbs.QpState;
import io.rnic.verbs.QpType;
import io.rnic.verbs.RecvWorkRequest;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.SharedReceiveQueue;
import io.rnic.verbs.SrqAttrMask;
import io.rnic.verbs.SrqAttributes;
import io.rnic.verbs.WcOpcode;
import io.rnic.verbs.WcStatus;
import io.rnic.verbs.WorkCompletion;
import io.rnic.verbs.WrOpcode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static io.rnic.transport.SrqVerbsChecks.assertErrno;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Shared receive queues as ibverbs has them: the verbs' errors with ibverbs' errno, QPs of one SRQ taking its
 * receive WQEs in arrival order (RC and UD), the limit event and its arming, RNR NAKs from an empty SRQ, and the
 * Last WQE Reached event of a QP of an SRQ in the error state.
 */
class SharedReceiveQueueTest
{
    private static final long SECOND_NS = 1_000_000_000L;
    /** Where the receive WQEs of the SRQ point in B's region: one slot per WQE. */
    private static final int SLOT_BYTES = 8192;

    private final Arena arena = Arena.ofShared();
    private final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), 7);

    @AfterEach
    void close()
    {
        arena.close();
    }

    @Test
    void shouldRefuseWhatIbverbsRefusesWithItsErrno()
    {
        final RnicDevice device = fabric.b();
        final ProtectionDomain pd = device.allocPd();
        assertErrno(Errno.EINVAL, () -> device.createSrq(pd, new SrqAttributes().maxWr(0)));
        assertErrno(Errno.EINVAL, () -> device.createSrq(pd, new SrqAttributes().maxWr(SharedReceiveQueue.MAX_SRQ_WR + 1)));
        assertErrno(Errno.EINVAL, () -> device.createSrq(pd, new SrqAttributes().maxSge(0)));
        assertErrno(Errno.EINVAL, () -> device.createSrq(pd, new SrqAttributes().maxSge(1000)));
        assertErrno(Errno.EINVAL, () -> device.createSrq(pd, new SrqAttributes().maxWr(8).srqLimit(9)));
        assertErrno(Errno.EINVAL, () -> device.createSrq(null, new SrqAttributes()));

        final EngineSharedReceiveQueue srq = device.createSrq(pd, new SrqAttributes().maxWr(4).maxSge(2).srqLimit(1));
        SrqVerbsChecks.checkQueryModifyAndPost(srq);
        final RecvWorkRequest recv = new RecvWorkRequest();
        recv.sgl.add(0x1000, 8, 1);

        final QpInitAttributes init = new QpInitAttributes().pd(pd)
            .cqs(device.createCq(16), device.createCq(16)).srq(srq);
        assertErrno(Errno.EINVAL, () -> device.createQp(new QpInitAttributes().type(QpType.UC).pd(pd)
            .cqs(init.sendCq, init.recvCq).srq(srq)));
        assertErrno(Errno.EINVAL, () -> device.createQp(new QpInitAttributes().pd(device.allocPd())
            .cqs(init.sendCq, init.recvCq).srq(srq)));
        final QueuePair qp = device.createQp(init);
        assertEquals(1, srq.attachedQps());
        final QpAttributes toInit = new QpAttributes();
        toInit.state = QpState.INIT;
        qp.modify(toInit, QpAttrMask.STATE | QpAttrMask.PKEY_INDEX | QpAttrMask.PORT | QpAttrMask.ACCESS_FLAGS);
        assertEquals(QueuePair.POST_INVALID, qp.postRecv(recv), "a QP of an SRQ has no receive queue of its own");
        assertEquals(Errno.EINVAL, QueuePair.POST_INVALID);

        assertErrno(Errno.EBUSY, () -> device.destroySrq(srq));
        device.destroyQp(qp);
        assertEquals(0, srq.attachedQps());
        device.destroySrq(srq);
        assertEquals(Errno.EINVAL, srq.postRecv(recv), "a destroyed SRQ");
        assertErrno(Errno.EINVAL, () -> srq.modify(new SrqAttributes().srqLimit(1), SrqAttrMask.LIMIT));
        assertErrno(Errno.EINVAL, () -> device.createQp(init));
    }

    /**
     * On a device of several engines every QP of an SRQ goes to the SRQ's engine, its only consumer, whatever the
     * round robin of the other QPs; a QP without an SRQ still goes round.
     */
    @Test
    void shouldPutEveryQpOfAnSrqOnTheSrqsEngine()
    {
        final RnicDevice device = new RnicDevice(new LocalPort(0x02_00_00_00_00_01L), new VirtualClock(0), 3);
        final ProtectionDomain pd = device.allocPd();
        final io.rnic.verbs.CompletionQueue cq = device.createCq(16);
        final EngineSharedReceiveQueue[] srqs = new EngineSharedReceiveQueue[3];
        final Set<Integer> shards = new HashSet<>();
        for (int s = 0; s < srqs.length; s++)
        {
            srqs[s] = device.createSrq(pd, new SrqAttributes());
            shards.add(srqs[s].shard());
            for (int i = 0; i < 4; i++)
            {
                final QueuePair qp = device.createQp(new QpInitAttributes().pd(pd).cqs(cq, cq).srq(srqs[s]));
                assertSame(device.engines()[srqs[s].shard()], device.engineFor(qp.qpn()), "QP " + i + " of SRQ " + s);
                final QueuePair plain = device.createQp(new QpInitAttributes().pd(pd).cqs(cq, cq));
                shards.add(plain.qpn() % 3);
            }
        }
        assertEquals(3, shards.size(), "SRQs and other QPs spread over the engines");
    }

    @Test
    void shouldShareOneSrqBetweenTwoRcQpsByteExactWithTheConsumingQpsNumber()
    {
        final ProtectionDomain pd = fabric.b().allocPd();
        final EngineSharedReceiveQueue srq = fabric.b().createSrq(pd, new SrqAttributes().maxWr(64).maxSge(1));
        final Connection[] requesters = new Connection[2];
        final Connection[] responders = new Connection[2];
        for (int k = 0; k < 2; k++)
        {
            requesters[k] = new Connection(fabric.a(), arena, QpType.RC, 1 << 20, AccessFlags.ALL);
            responders[k] = new Connection(fabric.b(), arena, QpType.RC, 64 * SLOT_BYTES, AccessFlags.ALL, pd, srq);
            requesters[k].connect(responders[k], TwoNodeFabric.IP_B, TwoNodeFabric.MAC_B, PathMtu.MTU_1024, 0x10_0000,
                AccessFlags.ALL);
            responders[k].connect(requesters[k], TwoNodeFabric.IP_A, TwoNodeFabric.MAC_A, PathMtu.MTU_1024, 0x20_0000,
                AccessFlags.ALL);
        }
        final Connection memory = responders[0]; // every WQE points into this one region of the SRQ's PD
        final int messages = 24;
        final RecvWorkRequest recv = new RecvWorkRequest();
        for (int i = 0; i < 2 * messages; i++)
        {
            recv.wrId = i;
            recv.sgl.clear().add(memory.mr.address() + (long)i * SLOT_BYTES, SLOT_BYTES, memory.mr.lKey());
            assertEquals(0, srq.postRecv(recv));
        }
        // both requesters send at once, multi-packet messages whose packets interleave on the wire
        final SendWorkRequest send = new SendWorkRequest();
        for (int m = 0; m < messages; m++)
        {
            for (int k = 0; k < 2; k++)
            {
                final int length = 1 + (m * 1637 + k * 911) % SLOT_BYTES;
                RcOperationsTest.fill(requesters[k], (long)m * SLOT_BYTES, length, seed(k, m));
                send.wrId = m;
                send.opcode = WrOpcode.SEND_WITH_IMM;
                send.immediateOrInvalidateRKey = k << 16 | m;
                send.sgl.clear().add(requesters[k].mr.address() + (long)m * SLOT_BYTES, length,
                    requesters[k].mr.lKey());
                assertEquals(QueuePair.POST_OK, requesters[k].qp.postSend(send));
            }
        }
        final List<WorkCompletion> received = new ArrayList<>();
        assertTrue(fabric.runUntil(() ->
        {
            for (final Connection responder : responders)
            {
                received.addAll(poll(responder, true));
            }
            return received.size() == 2 * messages;
        }, SECOND_NS), received.size() + " receives");

        final Set<Long> wqesUsed = new HashSet<>();
        final int[] nextMessage = new int[2];
        int interleaved = 0;
        int previousQp = -1;
        for (final WorkCompletion wc : received)
        {
            assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
            final int k = wc.immediateData() >>> 16;
            final int m = wc.immediateData() & 0xFFFF;
            assertEquals(responders[k].qp.qpn(), wc.qpNumber(), "wc.qp_num is the QP that consumed the WQE");
            assertEquals(nextMessage[k]++, m, "each QP's messages complete in order");
            assertTrue(wqesUsed.add(wc.wrId()), "a WQE used twice");
            final int length = 1 + (m * 1637 + k * 911) % SLOT_BYTES;
            assertEquals(length, wc.byteLength());
            RcOperationsTest.assertBytes(memory, wc.wrId() * SLOT_BYTES, length, seed(k, m));
            interleaved += previousQp != -1 && previousQp != k ? 1 : 0;
            previousQp = k;
        }
        assertTrue(interleaved > 0, "both QPs drew on the SRQ in turn");
        assertEquals(0, srq.postedCount());
        assertEquals(0, fabric.b().engine().counters().get(TransportCounter.RNR_NAK_SENT));
    }

    @Test
    void shouldDeliverUdDatagramsFromAnSrqAndDropThemWhenItIsEmpty()
    {
        final ProtectionDomain pd = fabric.b().allocPd();
        final EngineSharedReceiveQueue srq = fabric.b().createSrq(pd, new SrqAttributes().maxWr(8).maxSge(1));
        final Connection sender = new Connection(fabric.a(), arena, QpType.UD, 8192, AccessFlags.ALL);
        final Connection receiver = new Connection(fabric.b(), arena, QpType.UD, 8192, AccessFlags.ALL, pd, srq);
        sender.connect(receiver, TwoNodeFabric.IP_B, TwoNodeFabric.MAC_B, PathMtu.MTU_1024, 0x10_0000, 0);
        receiver.connect(sender, TwoNodeFabric.IP_A, TwoNodeFabric.MAC_A, PathMtu.MTU_1024, 0x20_0000, 0);
        final RecvWorkRequest recv = new RecvWorkRequest();
        for (int i = 0; i < 2; i++)
        {
            recv.wrId = 100 + i;
            recv.sgl.clear().add(receiver.mr.address() + i * 2048L, 40 + 1024, receiver.mr.lKey());
            assertEquals(0, srq.postRecv(recv));
        }
        final SendWorkRequest send = new SendWorkRequest();
        send.opcode = WrOpcode.SEND;
        send.udRemoteQpn = receiver.qp.qpn();
        send.udRemoteQkey = 0x11111111;
        UcUdTest.addressToB(send, false);
        for (int i = 0; i < 3; i++)
        {
            RcOperationsTest.fill(sender, i * 1024L, 500 + i, 40 + i);
            send.sgl.clear().add(sender.mr.address() + i * 1024L, 500 + i, sender.mr.lKey());
            assertEquals(QueuePair.POST_OK, sender.qp.postSend(send));
        }
        assertTrue(fabric.runUntil(() ->
            fabric.b().engine().counters().get(TransportCounter.DROPPED_NO_RECEIVE_WQE_UD) == 1, SECOND_NS));
        final List<WorkCompletion> received = poll(receiver, true);
        assertEquals(2, received.size());
        // a datagram larger than the WQE it takes completes that WQE in error, on the QP that took it
        recv.wrId = 200;
        recv.sgl.clear().add(receiver.mr.address(), 40 + 100, receiver.mr.lKey());
        assertEquals(0, srq.postRecv(recv));
        send.sgl.clear().add(sender.mr.address(), 101, sender.mr.lKey());
        assertEquals(QueuePair.POST_OK, sender.qp.postSend(send));
        final List<WorkCompletion> tooLong = new ArrayList<>();
        assertTrue(fabric.runUntil(() -> tooLong.addAll(poll(receiver, true)), SECOND_NS));
        assertEquals(WcStatus.LOC_LEN_ERR, tooLong.get(0).status());
        assertEquals(200, tooLong.get(0).wrId());
        assertEquals(receiver.qp.qpn(), tooLong.get(0).qpNumber());
        assertEquals(0, srq.postedCount());
        for (int i = 0; i < 2; i++)
        {
            final WorkCompletion wc = received.get(i);
            assertEquals(WcStatus.SUCCESS, wc.status());
            assertEquals(100 + i, wc.wrId());
            assertEquals(receiver.qp.qpn(), wc.qpNumber());
            assertEquals(sender.qp.qpn(), wc.sourceQp());
            assertEquals(40 + 500 + i, wc.byteLength());
            RcOperationsTest.assertBytes(receiver, i * 2048L + 40, 500 + i, 40 + i);
        }
    }

    @Test
    void shouldRaiseTheLimitEventOnceThenStayDisarmedUntilModifyArmsItAgain()
    {
        final Connection[] pair = srqRcPair(new SrqAttributes().maxWr(16).maxSge(1));
        final EngineSharedReceiveQueue srq = pair[1].qp.context().srq();
        final AsyncEvent event = new AsyncEvent();
        assertFalse(fabric.b().pollAsyncEvent(event));
        srq.modify(new SrqAttributes().srqLimit(3), SrqAttrMask.LIMIT);
        postReceives(pair[1], srq, 5);

        sendAndAwait(pair, 2); // 3 left: not below the limit
        assertFalse(fabric.b().pollAsyncEvent(event));
        assertEquals(3, srq.query(new SrqAttributes()).srqLimit);

        sendAndAwait(pair, 1); // 2 left: below 3
        assertTrue(fabric.b().pollAsyncEvent(event));
        assertEquals(AsyncEvent.SRQ_LIMIT_REACHED, event.eventType);
        assertSame(srq, event.srq);
        assertEquals(0, srq.query(new SrqAttributes()).srqLimit, "the limit disarms when it fires");

        sendAndAwait(pair, 2); // 0 left: disarmed, no second event
        assertFalse(fabric.b().pollAsyncEvent(event));

        postReceives(pair[1], srq, 4);
        srq.modify(new SrqAttributes().srqLimit(4), SrqAttrMask.LIMIT);
        sendAndAwait(pair, 1); // 3 left: below the limit armed again
        assertTrue(fabric.b().pollAsyncEvent(event));
        assertEquals(AsyncEvent.SRQ_LIMIT_REACHED, event.eventType);
        assertFalse(fabric.b().pollAsyncEvent(event));
        assertEquals(0, fabric.a().asyncEvents().droppedEvents() + fabric.b().asyncEvents().droppedEvents());
    }

    @Test
    void shouldRnrNakASendWhileTheSrqIsEmptyAndCompleteItOnceAReceiveIsPosted()
    {
        final Connection[] pair = srqRcPair(new SrqAttributes().maxWr(16).maxSge(1));
        final EngineSharedReceiveQueue srq = pair[1].qp.context().srq();
        RcOperationsTest.fill(pair[0], 0, 3000, 7);
        final SendWorkRequest send = new SendWorkRequest();
        send.wrId = 1;
        send.opcode = WrOpcode.SEND;
        send.sendFlags = io.rnic.verbs.SendFlags.SIGNALED;
        send.sgl.add(pair[0].mr.address(), 3000, pair[0].mr.lKey());
        assertEquals(QueuePair.POST_OK, pair[0].qp.postSend(send));
        // rnr_retry 7 = forever: refused a few times, as an empty receive queue would
        assertTrue(fabric.runUntil(
            () -> fabric.a().engine().counters().get(TransportCounter.RNR_NAK_RECEIVED) >= 3, SECOND_NS));
        assertTrue(fabric.b().engine().counters().get(TransportCounter.RNR_NAK_SENT) >= 3);
        assertTrue(poll(pair[0], false).isEmpty());
        postReceives(pair[1], srq, 1);
        final List<WorkCompletion> sent = new ArrayList<>();
        assertTrue(fabric.runUntil(() -> sent.addAll(poll(pair[0], false)) && !sent.isEmpty(), SECOND_NS),
            pair[0].qp.describe() + " / " + pair[1].qp.describe() + " " + fabric.b().engine().counters());
        assertEquals(WcStatus.SUCCESS, sent.get(0).status());
        final WorkCompletion received = poll(pair[1], true).get(0);
        assertEquals(WcStatus.SUCCESS, received.status());
        assertEquals(3000, received.byteLength());
        RcOperationsTest.assertBytes(pair[1], 0, 3000, 7);
        assertEquals(QpState.RTS, pair[1].qp.state());
    }

    @Test
    void shouldRaiseLastWqeReachedOnceWhenAQpOfAnSrqGoesToErrorAndLeaveTheSrqsWqesToTheOthers()
    {
        final Connection[] pair = srqRcPair(new SrqAttributes().maxWr(16).maxSge(1));
        final EngineSharedReceiveQueue srq = pair[1].qp.context().srq();
        final Connection other = new Connection(fabric.b(), arena, QpType.RC, 8192, AccessFlags.ALL, pair[1].pd, srq);
        postReceives(pair[1], srq, 4);
        sendAndAwait(pair, 1);

        final QpAttributes toError = new QpAttributes();
        toError.state = QpState.ERR;
        pair[1].qp.modify(toError, QpAttrMask.STATE);
        fabric.runUntil(() -> false, 1_000_000L);
        final AsyncEvent event = new AsyncEvent();
        assertTrue(fabric.b().pollAsyncEvent(event));
        assertEquals(AsyncEvent.QP_LAST_WQE_REACHED, event.eventType);
        assertEquals(pair[1].qp.qpn(), event.qpNum);
        assertNull(event.srq);
        assertFalse(fabric.b().pollAsyncEvent(event), "raised once");
        assertTrue(poll(pair[1], true).isEmpty(), "no WQE of the SRQ is flushed by a QP that did not take it");
        assertEquals(3, srq.postedCount());
        assertEquals(QpState.ERR, pair[1].qp.state());
        assertErrno(Errno.EBUSY, () -> fabric.b().destroySrq(srq));
        fabric.b().destroyQp(pair[1].qp);
        fabric.b().destroyQp(other.qp);
        fabric.b().destroySrq(srq);
    }

    @Test
    void shouldFlushTheWqeAQpOfAnSrqHoldsMidMessageWhenItGoesToError()
    {
        final Connection[] pair = srqRcPair(new SrqAttributes().maxWr(16).maxSge(1));
        final EngineSharedReceiveQueue srq = pair[1].qp.context().srq();
        postReceives(pair[1], srq, 2);
        // only the first packet of a 3-packet SEND reaches B: its QP holds the SRQ's first WQE, mid-message
        final int[] frames = new int[1];
        fabric.a().engine().sink((frame, offset, length) ->
        {
            if (frames[0]++ == 0)
            {
                fabric.aToB().send(frame, offset, length);
            }
        });
        final SendWorkRequest send = new SendWorkRequest();
        send.opcode = WrOpcode.SEND;
        send.sgl.add(pair[0].mr.address(), 3000, pair[0].mr.lKey());
        assertEquals(QueuePair.POST_OK, pair[0].qp.postSend(send));
        assertTrue(fabric.runUntil(() -> pair[1].qp.context().recvInProgress, SECOND_NS));
        assertEquals(1, srq.postedCount(), "the QP took one WQE");

        final QpAttributes toError = new QpAttributes();
        toError.state = QpState.ERR;
        pair[1].qp.modify(toError, QpAttrMask.STATE);
        final List<WorkCompletion> flushed = poll(pair[1], true);
        assertEquals(1, flushed.size());
        assertEquals(WcStatus.WR_FLUSH_ERR, flushed.get(0).status());
        assertEquals(0, flushed.get(0).wrId(), "the WQE it held");
        assertEquals(pair[1].qp.qpn(), flushed.get(0).qpNumber());
        final AsyncEvent event = new AsyncEvent();
        assertTrue(fabric.b().pollAsyncEvent(event));
        assertEquals(AsyncEvent.QP_LAST_WQE_REACHED, event.eventType);
        assertEquals(1, srq.postedCount(), "the SRQ's other WQE is not the QP's to flush");
    }

    private static int seed(final int qp, final int message)
    {
        return qp * 101 + message * 7;
    }

    /** An RC pair whose responder (B) takes its receives from a new SRQ. */
    private Connection[] srqRcPair(final SrqAttributes attributes)
    {
        final ProtectionDomain pd = fabric.b().allocPd();
        final EngineSharedReceiveQueue srq = fabric.b().createSrq(pd, attributes);
        final Connection a = new Connection(fabric.a(), arena, QpType.RC, 1 << 16, AccessFlags.ALL);
        final Connection b = new Connection(fabric.b(), arena, QpType.RC, 1 << 16, AccessFlags.ALL, pd, srq);
        a.connect(b, TwoNodeFabric.IP_B, TwoNodeFabric.MAC_B, PathMtu.MTU_1024, 0x10_0000, AccessFlags.ALL);
        b.connect(a, TwoNodeFabric.IP_A, TwoNodeFabric.MAC_A, PathMtu.MTU_1024, 0x20_0000, AccessFlags.ALL);
        return new Connection[]{ a, b };
    }

    private static void postReceives(final Connection into, final EngineSharedReceiveQueue srq, final int count)
    {
        final RecvWorkRequest recv = new RecvWorkRequest();
        for (int i = 0; i < count; i++)
        {
            recv.wrId = i;
            recv.sgl.clear().add(into.mr.address(), 4096, into.mr.lKey());
            assertEquals(0, srq.postRecv(recv));
        }
    }

    /** {@code count} 64-byte SENDs from A to B, each received before the next. */
    private void sendAndAwait(final Connection[] pair, final int count)
    {
        final SendWorkRequest send = new SendWorkRequest();
        send.opcode = WrOpcode.SEND;
        send.sgl.add(pair[0].mr.address(), 64, pair[0].mr.lKey());
        for (int i = 0; i < count; i++)
        {
            assertEquals(QueuePair.POST_OK, pair[0].qp.postSend(send));
            final List<WorkCompletion> received = new ArrayList<>();
            assertTrue(fabric.runUntil(() -> received.addAll(poll(pair[1], true)), SECOND_NS));
            assertEquals(WcStatus.SUCCESS, received.get(0).status());
            assertEquals(WcOpcode.RECV, received.get(0).opcode());
        }
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
}
