package io.rnic.transport;

import io.rnic.cc.DcqcnParameters;
import io.rnic.device.ConnectParameters;
import io.rnic.device.QueuePair;
import io.rnic.sim.LinkConditions;
import io.rnic.sim.TwoNodeFabric;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.PathMtu;
import io.rnic.verbs.QpState;
import io.rnic.verbs.QpType;
import io.rnic.verbs.SendFlags;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.WcStatus;
import io.rnic.verbs.WrOpcode;
import io.rnic.wire.AethFlyweight;
import io.rnic.wire.FrameSpec;
import io.rnic.wire.Opcode;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

import static io.rnic.transport.PeerFrames.GID_PREFIX;
import static io.rnic.transport.PeerFrames.IP_STRANGER;
import static io.rnic.transport.PeerFrames.PAYLOAD_BYTE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A connected QP hears its peer only (rxe's {@code check_addr}): requests and responses from any other address, to
 * another of our addresses, or over the other IP version are counted and dropped before they touch memory or
 * complete anything. Each frame refused here is shown to be executed when it comes from the peer.
 */
class PeerAddressTest extends ArenaScopedTest
{
    private static final int FIRST_PSN = 0x10_0000;

    private static FrameSpec writeOnly(final Connection to, final int psn, final int length)
    {
        return PeerFrames.fromA(to.qp.qpn(), Opcode.RC_RDMA_WRITE_ONLY, psn)
            .reth(to.mr.address(), to.mr.rKey(), length)
            .ackRequest(true);
    }

    private static void assertUntouched(final MemorySegment memory)
    {
        final long firstWritten = memory.mismatch(MemorySegment.ofArray(new byte[(int)memory.byteSize()]));
        assertEquals(-1L, firstWritten, "memory was written at offset " + firstWritten);
    }

    private static long mismatches(final TwoNodeFabric fabric, final boolean b)
    {
        return (b ? fabric.b() : fabric.a()).engine().counters().get(TransportCounter.DROPPED_ADDRESS_MISMATCH);
    }

    @Test
    void shouldDropAWriteFromAnAddressOtherThanThePeers()
    {
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), 1);
        final Connection b = Connection.rcPair(fabric, arena, 4096, PathMtu.MTU_1024)[1];
        final PeerFrames frames = new PeerFrames(fabric.b(), fabric.bToA());

        frames.inject(writeOnly(b, FIRST_PSN, 64).ipv4(IP_STRANGER, TwoNodeFabric.IP_B), 64);
        fabric.b().engine().doWork();
        assertUntouched(b.memory);
        assertEquals(1, mismatches(fabric, true));
        assertEquals(FIRST_PSN, b.qp.context().expectedPsn(), "the stranger's PSN was not taken either");
        assertEquals(List.of(), frames.describeAnswers(), "not even acknowledged");

        // another of B's own addresses is not the one the QP was connected with
        fabric.b().engine().port().addIpv4(0x0A00_0003);
        frames.inject(writeOnly(b, FIRST_PSN, 64).ipv4(TwoNodeFabric.IP_A, 0x0A00_0003), 64);
        assertUntouched(b.memory);
        assertEquals(2, mismatches(fabric, true));

        frames.inject(writeOnly(b, FIRST_PSN, 64), 64);
        assertEquals(PAYLOAD_BYTE, b.memory.get(ValueLayout.JAVA_BYTE, 63), "the same frame from the peer is executed");
        assertEquals(FIRST_PSN + 1, b.qp.context().expectedPsn());
        assertEquals(2, mismatches(fabric, true));
    }

    @Test
    void shouldDropAnIpv6FrameForAQpConnectedOverIpv4()
    {
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), 1);
        final Connection b = Connection.rcPair(fabric, arena, 4096, PathMtu.MTU_1024)[1];
        final PeerFrames frames = new PeerFrames(fabric.b(), fabric.bToA());

        // from A's own IPv6 GID to B's: both nodes' addresses, but not the version the QP speaks
        frames.inject(writeOnly(b, FIRST_PSN, 64).ipv6(GID_PREFIX, 0xA, GID_PREFIX, 0xB), 64);
        assertUntouched(b.memory);
        assertEquals(1, mismatches(fabric, true));
        assertEquals(QpState.RTS, b.qp.state());
        assertEquals(FIRST_PSN, b.qp.context().expectedPsn());
    }

    @Test
    void shouldHearOnlyTheIpv6PeerOfAQpConnectedOverIpv6()
    {
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), 1);
        final Connection a = new Connection(fabric.a(), arena, QpType.RC, 4096, AccessFlags.ALL);
        final Connection b = new Connection(fabric.b(), arena, QpType.RC, 4096, AccessFlags.ALL);
        connectOverIpv6(a, b, 0xB, TwoNodeFabric.MAC_B, FIRST_PSN);
        connectOverIpv6(b, a, 0xA, TwoNodeFabric.MAC_A, 0x20_0000);
        final PeerFrames frames = new PeerFrames(fabric.b(), fabric.bToA());

        frames.inject(writeOnly(b, FIRST_PSN, 64).ipv6(GID_PREFIX, 0x99, GID_PREFIX, 0xB), 64);
        frames.inject(writeOnly(b, FIRST_PSN, 64), 64); // IPv4, from A's IPv4 address
        assertUntouched(b.memory);
        assertEquals(2, mismatches(fabric, true));

        // the QPs' own traffic, both ways (the WRITE and its ACK), passes the check
        RcOperationsTest.fill(a, 0, 256, 3);
        final SendWorkRequest write = new SendWorkRequest();
        write.opcode = WrOpcode.RDMA_WRITE;
        write.sendFlags = SendFlags.SIGNALED;
        write.sgl.add(a.mr.address(), 256, a.mr.lKey());
        write.remoteAddress = b.mr.address();
        write.rKey = b.mr.rKey();
        assertEquals(QueuePair.POST_OK, a.qp.postSend(write));
        assertTrue(fabric.runUntil(() -> a.sendCq.poll(a.completions, 1) == 1, SECOND_NS));
        assertEquals(WcStatus.SUCCESS, a.completions[0].status());
        RcOperationsTest.assertBytes(b, 0, 256, 3);
        assertEquals(2, mismatches(fabric, true));
        assertEquals(0, mismatches(fabric, false));
    }

    private static void connectOverIpv6(
        final Connection local, final Connection peer, final long peerGidLow, final long peerMac, final int sqPsn)
    {
        final ConnectParameters parameters = new ConnectParameters()
            .remote(peer.qp.qpn(), sqPsn == FIRST_PSN ? 0x20_0000 : FIRST_PSN)
            .localPsn(sqPsn)
            .pathMtu(PathMtu.MTU_1024)
            .timers(8, 7, 7, 1)
            .readAtomic(16, 16)
            .accessFlags(AccessFlags.ALL);
        parameters.addressVector.destinationGid(GID_PREFIX, peerGidLow).destinationMac(peerMac).sourceGidIndex(1)
            .hopLimit(64);
        parameters.applyTo(local.qp);
    }

    @Test
    void shouldNotCompleteAWorkRequestWithAnAcknowledgeFromAStranger()
    {
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), 1);
        final Connection[] pair = Connection.rcPair(fabric, arena, 4096, PathMtu.MTU_1024);
        final Connection a = pair[0];
        final SendWorkRequest write = new SendWorkRequest();
        write.wrId = 7;
        write.opcode = WrOpcode.RDMA_WRITE;
        write.sendFlags = SendFlags.SIGNALED;
        write.sgl.add(a.mr.address(), 64, a.mr.lKey());
        write.remoteAddress = pair[1].mr.address();
        write.rKey = pair[1].mr.rKey();
        assertEquals(QueuePair.POST_OK, a.qp.postSend(write));
        final PeerFrames frames = new PeerFrames(fabric.a(), fabric.aToB());
        fabric.a().engine().doWork(); // the WRITE leaves, into a link nobody delivers: B never answers
        assertEquals(1, frames.answers().size());

        final FrameSpec ack = PeerFrames.fromB(a.qp.qpn(), Opcode.RC_ACKNOWLEDGE, FIRST_PSN)
            .aeth(AethFlyweight.ackSyndrome(AethFlyweight.CREDITS_INVALID), 1);
        frames.inject(ack.ipv4(IP_STRANGER, TwoNodeFabric.IP_A), 0);
        frames.inject(ack.ipv6(GID_PREFIX, 0xB, GID_PREFIX, 0xA), 0);
        final FrameSpec nak = PeerFrames.fromB(a.qp.qpn(), Opcode.RC_ACKNOWLEDGE, FIRST_PSN)
            .aeth(AethFlyweight.nakSyndrome(AethFlyweight.NAK_REMOTE_ACCESS_ERROR), 1)
            .ipv4(IP_STRANGER, TwoNodeFabric.IP_A);
        frames.inject(nak, 0);
        fabric.a().engine().doWork();
        assertEquals(0, a.sendCq.poll(a.completions, 1), "no completion from a stranger's ACK or NAK");
        assertEquals(QpState.RTS, a.qp.state());
        assertEquals(3, mismatches(fabric, false));

        frames.inject(ack.ipv4(TwoNodeFabric.IP_B, TwoNodeFabric.IP_A), 0);
        assertEquals(1, a.sendCq.poll(a.completions, 1), "the peer's ACK completes it");
        assertEquals(7, a.completions[0].wrId());
        assertEquals(WcStatus.SUCCESS, a.completions[0].status());
    }

    @Test
    void shouldIgnoreACnpFromAStranger()
    {
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), 1);
        fabric.a().congestionControl(DcqcnParameters.connectX());
        final Connection a = Connection.rcPair(fabric, arena, 4096, PathMtu.MTU_1024)[0];
        final PeerFrames frames = new PeerFrames(fabric.a(), fabric.aToB());
        final long lineRate = a.qp.rateBitsPerSec();

        final FrameSpec cnp = PeerFrames.fromB(a.qp.qpn(), Opcode.CNP, 0).fecnBecn(false, true);
        frames.inject(cnp.ipv4(IP_STRANGER, TwoNodeFabric.IP_A), 0);
        assertEquals(lineRate, a.qp.rateBitsPerSec(), "a stranger cannot slow the QP down");
        assertEquals(1, mismatches(fabric, false));

        frames.inject(cnp.ipv4(TwoNodeFabric.IP_B, TwoNodeFabric.IP_A), 0);
        assertEquals(lineRate / 2, a.qp.rateBitsPerSec(), "the peer's CNP cuts the rate");
    }
}
