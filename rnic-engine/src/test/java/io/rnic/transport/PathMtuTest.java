package io.rnic.transport;

import io.rnic.device.QueuePair;
import io.rnic.sim.LinkConditions;
import io.rnic.sim.TwoNodeFabric;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.PathMtu;
import io.rnic.verbs.QpState;
import io.rnic.verbs.QpType;
import io.rnic.verbs.RecvWorkRequest;
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

import static io.rnic.transport.PeerFrames.PAYLOAD_BYTE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * The path MTU is the law of a connection (rxe's {@code check_length}): no packet carries more, FIRST and MIDDLE
 * packets carry exactly that much, a LAST at least a byte. An RC request that breaks it is answered with an invalid
 * request NAK and the QP goes to ERR before a byte lands; UC drops the message, UD the datagram, the completer the
 * READ response.
 */
class PathMtuTest extends ArenaScopedTest
{
    private static final int FIRST_PSN = 0x10_0000;

    /** The fabric of the test, set by {@link #responder}. */
    private TwoNodeFabric fabric;
    /** Frames injected into B as from A, and B's answers, set by {@link #responder}. */
    private PeerFrames frames;

    /**
     * B's side of a pair of {@code type} QPs over a path of {@code mtu}, with a receive for its whole region posted
     * when {@code withReceive}; {@link #fabric} and {@link #frames} are set for it.
     */
    private Connection responder(final QpType type, final PathMtu mtu, final boolean withReceive)
    {
        fabric = new TwoNodeFabric(new LinkConditions(), 1);
        final Connection b = Connection.pair(fabric, arena, type, 8192, mtu, AccessFlags.ALL)[1];
        if (withReceive)
        {
            final RecvWorkRequest recv = new RecvWorkRequest();
            recv.sgl.add(b.mr.address(), 8192, b.mr.lKey());
            assertEquals(QueuePair.POST_OK, b.qp.postRecv(recv));
        }
        frames = new PeerFrames(fabric.b(), fabric.bToA());
        return b;
    }

    /** B's receive, which never got the data, is flushed once B's QP is in ERR. */
    private void assertReceiveFlushed(final Connection b, final String message)
    {
        fabric.b().engine().doWork();
        assertEquals(1, b.recvCq.poll(b.completions, 2));
        assertEquals(WcStatus.WR_FLUSH_ERR, b.completions[0].status(), message);
    }

    private static String invalidRequestNak(final int psn)
    {
        return String.format("RC_ACKNOWLEDGE %06x syndrome=%02x", psn,
            AethFlyweight.nakSyndrome(AethFlyweight.NAK_INVALID_REQUEST));
    }

    private static void assertUntouched(final MemorySegment memory, final long from)
    {
        final MemorySegment rest = memory.asSlice(from);
        final long firstWritten = rest.mismatch(MemorySegment.ofArray(new byte[(int)rest.byteSize()]));
        assertEquals(-1L, firstWritten, "memory was written at offset " + (from + firstWritten));
    }

    private static long lengthErrors(final TwoNodeFabric fabric)
    {
        return fabric.b().engine().counters().get(TransportCounter.PACKET_LENGTH_ERROR);
    }

    private static void assertRefused(final TwoNodeFabric fabric, final Connection b, final PeerFrames frames,
        final String nak)
    {
        assertEquals(List.of(nak), frames.describeAnswers());
        assertEquals(QpState.ERR, b.qp.state());
        assertEquals(1, lengthErrors(fabric));
        assertEquals(1, fabric.b().engine().counters().get(TransportCounter.INVALID_REQUEST_NAK_SENT));
    }

    @Test
    void shouldNakAWriteOnlyLargerThanThePathMtu()
    {
        final Connection b = responder(QpType.RC, PathMtu.MTU_256, false);

        frames.inject(PeerFrames.fromA(b.qp.qpn(), Opcode.RC_RDMA_WRITE_ONLY, FIRST_PSN)
            .reth(b.mr.address(), b.mr.rKey(), 4000).ackRequest(true), 4000);
        assertUntouched(b.memory, 0);
        assertRefused(fabric, b, frames, invalidRequestNak(FIRST_PSN));
    }

    @Test
    void shouldNakASendOnlyLargerThanThePathMtu()
    {
        final Connection b = responder(QpType.RC, PathMtu.MTU_256, true);

        frames.inject(PeerFrames.fromA(b.qp.qpn(), Opcode.RC_SEND_ONLY, FIRST_PSN).ackRequest(true), 3000);
        assertUntouched(b.memory, 0);
        assertRefused(fabric, b, frames, invalidRequestNak(FIRST_PSN));
        assertReceiveFlushed(b, "the receive never got the data");
    }

    @Test
    void shouldNakAFirstPacketShorterThanThePathMtu()
    {
        final Connection b = responder(QpType.RC, PathMtu.MTU_256, false);

        frames.inject(PeerFrames.fromA(b.qp.qpn(), Opcode.RC_RDMA_WRITE_FIRST, FIRST_PSN)
            .reth(b.mr.address(), b.mr.rKey(), 512), 100);
        assertUntouched(b.memory, 0);
        assertRefused(fabric, b, frames, invalidRequestNak(FIRST_PSN));
    }

    @Test
    void shouldNakAMiddlePacketShorterThanThePathMtu()
    {
        final Connection b = responder(QpType.RC, PathMtu.MTU_256, false);

        frames.inject(PeerFrames.fromA(b.qp.qpn(), Opcode.RC_RDMA_WRITE_FIRST, FIRST_PSN)
            .reth(b.mr.address(), b.mr.rKey(), 1024), 256);
        assertEquals(PAYLOAD_BYTE, b.memory.get(ValueLayout.JAVA_BYTE, 255), "a full FIRST packet lands");
        frames.inject(PeerFrames.fromA(b.qp.qpn(), Opcode.RC_RDMA_WRITE_MIDDLE, FIRST_PSN + 1), 100);
        assertUntouched(b.memory, 256);
        assertRefused(fabric, b, frames, invalidRequestNak(FIRST_PSN + 1));
    }

    @Test
    void shouldNakAnEmptyLastPacket()
    {
        final Connection b = responder(QpType.RC, PathMtu.MTU_256, true);

        frames.inject(PeerFrames.fromA(b.qp.qpn(), Opcode.RC_SEND_FIRST, FIRST_PSN), 256);
        frames.inject(PeerFrames.fromA(b.qp.qpn(), Opcode.RC_SEND_LAST, FIRST_PSN + 1).ackRequest(true), 0);
        assertRefused(fabric, b, frames, invalidRequestNak(FIRST_PSN + 1));
        assertReceiveFlushed(b, "no message completed");
    }

    @Test
    void shouldDropAUcMessageWithAShortMiddlePacketAndTakeTheNext()
    {
        final Connection b = responder(QpType.UC, PathMtu.MTU_256, false);

        frames.inject(PeerFrames.fromA(b.qp.qpn(), Opcode.TRANSPORT_UC | Opcode.RDMA_WRITE_FIRST, FIRST_PSN)
            .reth(b.mr.address(), b.mr.rKey(), 612), 256);
        frames.inject(PeerFrames.fromA(b.qp.qpn(), Opcode.TRANSPORT_UC | Opcode.RDMA_WRITE_MIDDLE, FIRST_PSN + 1), 100);
        frames.inject(PeerFrames.fromA(b.qp.qpn(), Opcode.TRANSPORT_UC | Opcode.RDMA_WRITE_LAST, FIRST_PSN + 2), 256);
        assertUntouched(b.memory, 256);
        assertEquals(1, lengthErrors(fabric));
        assertEquals(QpState.RTS, b.qp.state(), "UC answers nothing and goes on");

        // the next message is whole and lands
        frames.inject(PeerFrames.fromA(b.qp.qpn(), Opcode.TRANSPORT_UC | Opcode.RDMA_WRITE_ONLY, FIRST_PSN + 3)
            .reth(b.mr.address() + 4096, b.mr.rKey(), 256), 256);
        assertEquals(PAYLOAD_BYTE, b.memory.get(ValueLayout.JAVA_BYTE, 4096 + 255));
        assertEquals(List.of(), frames.describeAnswers());
    }

    @Test
    void shouldDropADatagramLargerThanTheMtu()
    {
        final Connection b = responder(QpType.UD, PathMtu.MTU_1024, true);
        final FrameSpec datagram = PeerFrames.fromA(b.qp.qpn(), Opcode.UD_SEND_ONLY, 0).deth(0x11111111L, 0x42);

        frames.inject(datagram, 1025);
        assertEquals(0, b.recvCq.poll(b.completions, 1));
        assertUntouched(b.memory, 0);
        assertEquals(1, lengthErrors(fabric));

        frames.inject(datagram, 1024);
        assertEquals(1, b.recvCq.poll(b.completions, 1));
        assertEquals(WcStatus.SUCCESS, b.completions[0].status());
        assertEquals(UdResponder.GRH_BYTES + 1024, b.completions[0].byteLength());
    }

    @Test
    void shouldDropAReadResponseLargerThanThePathMtu()
    {
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), 1);
        final Connection a = Connection.rcPair(fabric, arena, 8192, PathMtu.MTU_1024)[0];
        final SendWorkRequest read = new SendWorkRequest();
        read.opcode = WrOpcode.RDMA_READ;
        read.sendFlags = SendFlags.SIGNALED;
        read.sgl.add(a.mr.address(), 2000, a.mr.lKey());
        read.remoteAddress = 0x1000;
        read.rKey = 1;
        assertEquals(QueuePair.POST_OK, a.qp.postSend(read));
        final PeerFrames frames = new PeerFrames(fabric.a(), fabric.aToB());
        fabric.a().engine().doWork(); // the READ leaves, into a link nobody delivers: the responses are ours
        final int psn = 0x10_0000;
        final int ack = AethFlyweight.ackSyndrome(AethFlyweight.CREDITS_INVALID);

        frames.inject(PeerFrames.fromB(a.qp.qpn(), Opcode.RC_RDMA_READ_RESPONSE_ONLY, psn).aeth(ack, 1), 2000);
        assertEquals(0, a.sendCq.poll(a.completions, 1), "2000 bytes in one packet of a 1024-byte path");
        assertUntouched(a.memory, 0);
        frames.inject(PeerFrames.fromB(a.qp.qpn(), Opcode.RC_RDMA_READ_RESPONSE_FIRST, psn).aeth(ack, 1), 1000);
        assertUntouched(a.memory, 0);
        assertEquals(2, fabric.a().engine().counters().get(TransportCounter.PACKET_LENGTH_ERROR));
        assertEquals(QpState.RTS, a.qp.state());

        frames.inject(PeerFrames.fromB(a.qp.qpn(), Opcode.RC_RDMA_READ_RESPONSE_FIRST, psn).aeth(ack, 1), 1024);
        frames.inject(PeerFrames.fromB(a.qp.qpn(), Opcode.RC_RDMA_READ_RESPONSE_LAST, psn + 1).aeth(ack, 1), 976);
        assertEquals(1, a.sendCq.poll(a.completions, 1));
        assertEquals(WcStatus.SUCCESS, a.completions[0].status());
        assertEquals(PAYLOAD_BYTE, a.memory.get(ValueLayout.JAVA_BYTE, 1999));
        assertFalse(a.memory.get(ValueLayout.JAVA_BYTE, 2000) == PAYLOAD_BYTE);
    }
}
