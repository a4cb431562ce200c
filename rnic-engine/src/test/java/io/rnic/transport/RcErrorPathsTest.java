package io.rnic.transport;

import io.rnic.device.ConnectParameters;
import io.rnic.device.QueuePair;
import io.rnic.device.RnicDevice;
import io.rnic.sim.LinkConditions;
import io.rnic.sim.TwoNodeFabric;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.MemoryRegion;
import io.rnic.verbs.PathMtu;
import io.rnic.verbs.QpAttrMask;
import io.rnic.verbs.QpAttributes;
import io.rnic.verbs.QpState;
import io.rnic.verbs.RecvWorkRequest;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.VerbsException;
import io.rnic.verbs.WcStatus;
import io.rnic.verbs.WorkCompletion;
import io.rnic.verbs.WrOpcode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every error path yields the ibverbs status a user of a hardware RNIC would see, and touches no memory it must not. */
class RcErrorPathsTest
{
    private static final long SECOND_NS = 1_000_000_000L;

    private final Arena arena = Arena.ofShared();

    @AfterEach
    void close()
    {
        arena.close();
    }

    private static List<WorkCompletion> drain(final TwoNodeFabric fabric, final Connection c, final boolean recv,
        final int count)
    {
        final List<WorkCompletion> result = new ArrayList<>();
        final boolean done = fabric.runUntil(() ->
        {
            final int n = (recv ? c.recvCq : c.sendCq).poll(c.completions, c.completions.length);
            for (int i = 0; i < n; i++)
            {
                final WorkCompletion copy = new WorkCompletion();
                result.add(c.completions[i]);
                c.completions[i] = copy;
            }
            return result.size() >= count;
        }, 10 * SECOND_NS);
        assertTrue(done, "only " + result.size() + " of " + count + " completions: " + result);
        return result;
    }

    private static SendWorkRequest write(final Connection from, final long remoteAddress, final int rKey, final int length)
    {
        final SendWorkRequest wr = new SendWorkRequest();
        wr.wrId = 9;
        wr.opcode = WrOpcode.RDMA_WRITE;
        wr.sgl.add(from.mr.address(), length, from.mr.lKey());
        wr.remoteAddress = remoteAddress;
        wr.rKey = rKey;
        return wr;
    }

    private static void assertUntouched(final MemorySegment memory)
    {
        final long firstWritten = memory.mismatch(MemorySegment.ofArray(new byte[(int)memory.byteSize()]));
        assertEquals(-1L, firstWritten, "memory was written at offset " + firstWritten);
    }

    @Test
    void shouldNakAWriteWithAWrongRKeyAsARemoteAccessErrorAndWriteNothing()
    {
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), 1);
        final Connection[] pair = Connection.rcPair(fabric, arena, 8192, PathMtu.MTU_1024);
        RcOperationsTest.fill(pair[0], 0, 4096, 1);
        assertEquals(QueuePair.POST_OK, pair[0].qp.postSend(write(pair[0], pair[1].mr.address(), pair[1].mr.rKey() ^ 0x100, 4096)));
        final WorkCompletion wc = drain(fabric, pair[0], false, 1).get(0);
        assertEquals(WcStatus.REM_ACCESS_ERR, wc.status());
        assertEquals(9, wc.wrId());
        assertEquals(QpState.ERR, pair[0].qp.state());
        assertEquals(QpState.ERR, pair[1].qp.state());
        assertUntouched(pair[1].memory);
        assertEquals(1, fabric.b().engine().counters().get(TransportCounter.REMOTE_ACCESS_NAK_SENT));
    }

    @Test
    void shouldNakAWriteWithTheKeyOfARegionDeregisteredFiftyThousandRegistrationsAgo()
    {
        // the round-robin 16-slot table gave the stale key to a new region after 3 800 registrations on average: in
        // 50 000, with probability 1 - 2e-6, and the WRITE below went into the new region's memory
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), 1);
        final Connection[] pair = Connection.rcPair(fabric, arena, 8192, PathMtu.MTU_1024);
        final RnicDevice device = pair[1].device;
        final MemorySegment target = arena.allocate(4096, 4096);
        final MemoryRegion stale = device.registerMemoryRegion(pair[1].pd, target, AccessFlags.ALL);
        final int staleKey = stale.rKey();
        device.deregisterMemoryRegion(stale);
        MemoryRegion live = null;
        for (int i = 0; i < 50_000; i++)
        {
            live = device.registerMemoryRegion(pair[1].pd, target, AccessFlags.ALL);
            if (device.engine().regions().byKey(staleKey) != null)
            {
                break; // the key is back: the WRITE reaches the new region's memory
            }
            device.deregisterMemoryRegion(live);
            live = null;
        }
        if (live == null)
        {
            live = device.registerMemoryRegion(pair[1].pd, target, AccessFlags.ALL);
        }
        RcOperationsTest.fill(pair[0], 0, 4096, 1);
        assertEquals(QueuePair.POST_OK, pair[0].qp.postSend(write(pair[0], live.address(), staleKey, 4096)));
        assertEquals(WcStatus.REM_ACCESS_ERR, drain(fabric, pair[0], false, 1).get(0).status());
        assertUntouched(target);
        assertEquals(1, fabric.b().engine().counters().get(TransportCounter.REMOTE_ACCESS_NAK_SENT));
    }

    @Test
    void shouldRefuseWritesOutsideTheRegionWithoutTouchingAByte()
    {
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), 1);
        final Connection[] pair = Connection.rcPair(fabric, arena, 8192, PathMtu.MTU_1024);
        // a guard region registered right after: an overflowing write must not reach it either
        RcOperationsTest.fill(pair[0], 0, 8192, 1);
        assertEquals(QueuePair.POST_OK, pair[0].qp.postSend(write(pair[0], pair[1].mr.address() + 4097, pair[1].mr.rKey(), 4096)));
        assertEquals(WcStatus.REM_ACCESS_ERR, drain(fabric, pair[0], false, 1).get(0).status());
        assertUntouched(pair[1].memory);
    }

    @Test
    void shouldRefuseRemoteAccessTheRegionOrQpDoesNotGrant()
    {
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), 1);
        final Connection[] pair = Connection.rcPair(fabric, arena, 8192, PathMtu.MTU_1024);
        final MemorySegment readOnly = arena.allocate(4096, 4096);
        final MemoryRegion readOnlyMr = fabric.b().registerMemoryRegion(pair[1].pd, readOnly, AccessFlags.REMOTE_READ);
        assertEquals(QueuePair.POST_OK, pair[0].qp.postSend(write(pair[0], readOnlyMr.address(), readOnlyMr.rKey(), 64)));
        assertEquals(WcStatus.REM_ACCESS_ERR, drain(fabric, pair[0], false, 1).get(0).status());
        assertUntouched(readOnly);

        // a region of another protection domain
        final TwoNodeFabric fabric2 = new TwoNodeFabric(new LinkConditions(), 2);
        final Connection[] pair2 = Connection.rcPair(fabric2, arena, 8192, PathMtu.MTU_1024);
        final MemorySegment foreign = arena.allocate(4096, 4096);
        final MemoryRegion foreignMr = fabric2.b().registerMemoryRegion(fabric2.b().allocPd(), foreign, AccessFlags.ALL);
        final SendWorkRequest read = new SendWorkRequest();
        read.opcode = WrOpcode.RDMA_READ;
        read.sgl.add(pair2[0].mr.address(), 64, pair2[0].mr.lKey());
        read.remoteAddress = foreignMr.address();
        read.rKey = foreignMr.rKey();
        assertEquals(QueuePair.POST_OK, pair2[0].qp.postSend(read));
        assertEquals(WcStatus.REM_ACCESS_ERR, drain(fabric2, pair2[0], false, 1).get(0).status());
    }

    @Test
    void shouldNakMisalignedAtomicsAsInvalidRequests()
    {
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), 1);
        final Connection[] pair = Connection.rcPair(fabric, arena, 4096, PathMtu.MTU_1024);
        final SendWorkRequest add = new SendWorkRequest();
        add.opcode = WrOpcode.ATOMIC_FETCH_AND_ADD;
        add.compareAdd = 1;
        add.sgl.add(pair[0].mr.address(), 8, pair[0].mr.lKey());
        add.remoteAddress = pair[1].mr.address() + 4;
        add.rKey = pair[1].mr.rKey();
        assertEquals(QueuePair.POST_OK, pair[0].qp.postSend(add));
        assertEquals(WcStatus.REM_INV_REQ_ERR, drain(fabric, pair[0], false, 1).get(0).status());
        assertUntouched(pair[1].memory);
    }

    @Test
    void shouldFailASendLargerThanTheReceiveBufferOnBothSides()
    {
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), 1);
        final Connection[] pair = Connection.rcPair(fabric, arena, 8192, PathMtu.MTU_1024);
        final RecvWorkRequest recv = new RecvWorkRequest();
        recv.wrId = 3;
        recv.sgl.add(pair[1].mr.address(), 100, pair[1].mr.lKey());
        assertEquals(QueuePair.POST_OK, pair[1].qp.postRecv(recv));
        final SendWorkRequest send = new SendWorkRequest();
        send.opcode = WrOpcode.SEND;
        send.sgl.add(pair[0].mr.address(), 101, pair[0].mr.lKey());
        assertEquals(QueuePair.POST_OK, pair[0].qp.postSend(send));
        assertEquals(WcStatus.REM_INV_REQ_ERR, drain(fabric, pair[0], false, 1).get(0).status());
        final WorkCompletion received = drain(fabric, pair[1], true, 1).get(0);
        assertEquals(WcStatus.LOC_LEN_ERR, received.status());
        assertEquals(3, received.wrId());
    }

    @Test
    void shouldRetryOnRnrUntilAReceiveIsPostedAndGiveUpWhenRnrRetryIsZero()
    {
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), 1);
        final Connection[] pair = Connection.rcPair(fabric, arena, 8192, PathMtu.MTU_1024);
        final SendWorkRequest send = new SendWorkRequest();
        send.wrId = 1;
        send.opcode = WrOpcode.SEND;
        send.sgl.add(pair[0].mr.address(), 64, pair[0].mr.lKey());
        assertEquals(QueuePair.POST_OK, pair[0].qp.postSend(send));
        // rnr_retry 7 = forever: let it be refused a few times, then post the receive
        fabric.runUntil(() -> fabric.b().engine().counters().get(TransportCounter.RNR_NAK_SENT) >= 3, SECOND_NS);
        final RecvWorkRequest recv = new RecvWorkRequest();
        recv.sgl.add(pair[1].mr.address(), 64, pair[1].mr.lKey());
        assertEquals(QueuePair.POST_OK, pair[1].qp.postRecv(recv));
        assertEquals(WcStatus.SUCCESS, drain(fabric, pair[0], false, 1).get(0).status());
        assertTrue(fabric.a().engine().counters().get(TransportCounter.RNR_NAK_RECEIVED) >= 3);

        final QpAttributes attr = new QpAttributes();
        final TwoNodeFabric fabric2 = new TwoNodeFabric(new LinkConditions(), 2);
        final Connection[] pair2 = Connection.rcPair(fabric2, arena, 8192, PathMtu.MTU_1024);
        attr.state = QpState.RTS;
        attr.currentState = QpState.RTS;
        // rnr_retry is not modifiable in RTS: rebuild the QP through RESET
        final Connection requester = pair2[0];
        resetAndConnect(requester, pair2[1], 0);
        resetAndConnect(pair2[1], requester, 7);
        send.sgl.clear().add(requester.mr.address(), 64, requester.mr.lKey());
        assertEquals(QueuePair.POST_OK, requester.qp.postSend(send));
        final long start = fabric2.clock().nanoTime();
        assertEquals(WcStatus.RNR_RETRY_EXC_ERR, drain(fabric2, requester, false, 1).get(0).status());
        assertEquals(QpState.ERR, requester.qp.state());
        assertTrue(fabric2.clock().nanoTime() - start < SECOND_NS);
    }

    private static void resetAndConnect(final Connection c, final Connection peer, final int rnrRetry)
    {
        final boolean toB = peer.device.engine().port().mac() == TwoNodeFabric.MAC_B;
        final ConnectParameters parameters = new ConnectParameters()
            .remote(peer.qp.qpn(), 0x500)
            .localPsn(0x500)
            .timers(8, 3, rnrRetry, 1);
        parameters.addressVector.destinationIpv4(toB ? TwoNodeFabric.IP_B : TwoNodeFabric.IP_A)
            .destinationMac(toB ? TwoNodeFabric.MAC_B : TwoNodeFabric.MAC_A).sourceGidIndex(0);
        parameters.applyTo(c.qp); // from any state: through RESET
    }

    @Test
    void shouldGiveUpAfterRetryCountTimeoutsOnADeadLinkAndFlushTheRest()
    {
        final LinkConditions dead = new LinkConditions().loss(1.0);
        final TwoNodeFabric fabric = new TwoNodeFabric(dead, new LinkConditions(), 1);
        final Connection[] pair = Connection.rcPair(fabric, arena, 8192, PathMtu.MTU_1024);
        resetAndConnect(pair[0], pair[1], 7); // retry_cnt 3, timeout 8 (4.096 us x 256 = 1.05 ms)
        final long start = fabric.clock().nanoTime();
        for (int i = 0; i < 3; i++)
        {
            final SendWorkRequest wr = write(pair[0], pair[1].mr.address(), pair[1].mr.rKey(), 64);
            wr.wrId = i;
            assertEquals(QueuePair.POST_OK, pair[0].qp.postSend(wr));
        }
        final List<WorkCompletion> wcs = drain(fabric, pair[0], false, 3);
        final long elapsedNs = fabric.clock().nanoTime() - start;
        assertEquals(WcStatus.RETRY_EXC_ERR, wcs.get(0).status());
        assertEquals(0, wcs.get(0).wrId());
        assertEquals(WcStatus.WR_FLUSH_ERR, wcs.get(1).status());
        assertEquals(WcStatus.WR_FLUSH_ERR, wcs.get(2).status());
        assertEquals(QpState.ERR, pair[0].qp.state());
        // first try + 3 retries, each after a local ACK timeout of 4.096 us x 2^8
        final long timeoutNs = Timeouts.localAckTimeoutNs(8);
        assertTrue(elapsedNs >= 4 * timeoutNs && elapsedNs < 5 * timeoutNs + 1_000_000, "elapsed " + elapsedNs);
        assertEquals(4, fabric.a().engine().counters().get(TransportCounter.LOCAL_ACK_TIMEOUT));
        assertEquals(1, fabric.a().engine().counters().get(TransportCounter.RETRY_EXCEEDED));
    }

    @Test
    void shouldReportABadLKeyAsALocalProtectionErrorAndFlushTheFollowingRequests()
    {
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), 1);
        final Connection[] pair = Connection.rcPair(fabric, arena, 8192, PathMtu.MTU_1024);
        final SendWorkRequest bad = write(pair[0], pair[1].mr.address(), pair[1].mr.rKey(), 64);
        bad.sgl.clear().add(pair[0].mr.address(), 64, pair[0].mr.lKey() + 0x100);
        bad.wrId = 1;
        assertEquals(QueuePair.POST_OK, pair[0].qp.postSend(bad));
        final SendWorkRequest next = write(pair[0], pair[1].mr.address(), pair[1].mr.rKey(), 64);
        next.wrId = 2;
        assertEquals(QueuePair.POST_OK, pair[0].qp.postSend(next));
        final List<WorkCompletion> wcs = drain(fabric, pair[0], false, 2);
        assertEquals(WcStatus.LOC_PROT_ERR, wcs.get(0).status());
        assertEquals(WcStatus.WR_FLUSH_ERR, wcs.get(1).status());
        assertEquals(2, wcs.get(1).wrId());

        // posting in ERR is allowed and completes with a flush error
        assertEquals(QueuePair.POST_OK, pair[0].qp.postSend(next));
        assertEquals(WcStatus.WR_FLUSH_ERR, drain(fabric, pair[0], false, 1).get(0).status());
    }

    @Test
    void shouldFlushPostedReceivesWhenTheQpIsMovedToError()
    {
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), 1);
        final Connection[] pair = Connection.rcPair(fabric, arena, 8192, PathMtu.MTU_1024);
        final RecvWorkRequest recv = new RecvWorkRequest();
        for (int i = 0; i < 5; i++)
        {
            recv.wrId = 100 + i;
            recv.sgl.clear().add(pair[1].mr.address(), 64, pair[1].mr.lKey());
            assertEquals(QueuePair.POST_OK, pair[1].qp.postRecv(recv));
        }
        final QpAttributes attr = new QpAttributes();
        attr.state = QpState.ERR;
        pair[1].qp.modify(attr, QpAttrMask.STATE);
        final List<WorkCompletion> wcs = drain(fabric, pair[1], true, 5);
        for (int i = 0; i < 5; i++)
        {
            assertEquals(WcStatus.WR_FLUSH_ERR, wcs.get(i).status());
            assertEquals(100 + i, wcs.get(i).wrId());
        }
    }

    @Test
    void shouldRefusePostsTheStateDoesNotAllowAndQueueOverflow()
    {
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), 1);
        final Connection[] pair = Connection.rcPair(fabric, arena, 8192, PathMtu.MTU_1024);
        final QpAttributes attr = new QpAttributes();
        attr.state = QpState.RESET;
        pair[0].qp.modify(attr, QpAttrMask.STATE);
        final SendWorkRequest wr = write(pair[0], pair[1].mr.address(), pair[1].mr.rKey(), 8);
        assertEquals(QueuePair.POST_INVALID, pair[0].qp.postSend(wr));
        assertEquals(QueuePair.POST_INVALID, pair[0].qp.postRecv(new RecvWorkRequest()));
        wr.opcode = 42;
        resetAndConnect(pair[0], pair[1], 7);
        assertEquals(QueuePair.POST_INVALID, pair[0].qp.postSend(wr));
        wr.opcode = WrOpcode.RDMA_WRITE;
        int posted = 0;
        while (pair[0].qp.postSend(wr) == QueuePair.POST_OK)
        {
            posted++;
        }
        assertEquals(1024, posted);
        assertEquals(QueuePair.POST_QUEUE_FULL, pair[0].qp.postSend(wr));
    }

    @Test
    void shouldExplainIllegalTransitionsAndAttributes()
    {
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), 1);
        final Connection[] pair = Connection.rcPair(fabric, arena, 8192, PathMtu.MTU_1024);
        final QpAttributes attr = new QpAttributes();
        attr.state = QpState.INIT;
        final VerbsException illegal = assertThrows(VerbsException.class,
            () -> pair[0].qp.modify(attr, QpAttrMask.STATE | QpAttrMask.PKEY_INDEX | QpAttrMask.PORT |
                QpAttrMask.ACCESS_FLAGS));
        assertTrue(illegal.getMessage().contains("RTS -> INIT is not allowed"), illegal.getMessage());
        assertEquals(QpState.RTS, pair[0].qp.state());

        attr.state = QpState.RESET;
        pair[0].qp.modify(attr, QpAttrMask.STATE);
        attr.state = QpState.INIT;
        pair[0].qp.modify(attr, QpAttrMask.STATE | QpAttrMask.PKEY_INDEX | QpAttrMask.PORT | QpAttrMask.ACCESS_FLAGS);
        attr.state = QpState.RTR;
        attr.pathMtu = PathMtu.MTU_1024;
        attr.destQpNumber = 5;
        attr.addressVector.destinationGid(0xFD00_0000_0000_0000L, 0xB).sourceGidIndex(0);
        final VerbsException mismatch = assertThrows(VerbsException.class, () -> pair[0].qp.modify(attr,
            QpAttrMask.STATE | QpAttrMask.AV | QpAttrMask.PATH_MTU | QpAttrMask.DEST_QPN | QpAttrMask.RQ_PSN |
            QpAttrMask.MAX_DEST_RD_ATOMIC | QpAttrMask.MIN_RNR_TIMER));
        assertTrue(mismatch.getMessage().contains("source GID index 0 is IPv4 but the destination GID is IPv6"),
            mismatch.getMessage());
        assertEquals(QpState.INIT, pair[0].qp.state());
    }
}
