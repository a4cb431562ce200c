package io.rnic.transport;

import io.rnic.sim.LinkConditions;
import io.rnic.sim.TwoNodeFabric;
import io.rnic.verbs.PathMtu;
import io.rnic.verbs.SendFlags;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.WcStatus;
import io.rnic.verbs.WrOpcode;
import io.rnic.wire.DropReason;
import io.rnic.wire.InboundValidator;
import io.rnic.wire.Opcode;
import io.rnic.wire.RocePacket;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Go-back-N against late ACKs at a WQE boundary. The case, found under load on a veth: a local ACK timeout rewinds
 * the requester; in one duty cycle it resends, within its budget, exactly the WQEs before a large one that it had
 * partly sent; then the ACK for those earlier packets of the large WQE arrives. The requester must resume inside
 * the large WQE, after the acknowledged PSNs. (It stayed at the WQE's first PSN, behind the acknowledged point: the
 * window check read that as a full window, nothing was outstanding, no timer ran, and the QP stalled for good.)
 */
class GoBackNResumeTest
{
    private static final int SMALL_WQES = RnicEngine.SEND_BUDGET_PER_QP; // one packet each: one duty cycle's budget
    private static final int LARGE_BYTES = 256 * 1024;                  // 256 packets at MTU 1024
    private static final int WINDOW = 128;                              // the large WQE's first 64 packets go

    private final Arena arena = Arena.ofShared();

    @AfterEach
    void close()
    {
        arena.close();
    }

    @Test
    void shouldResumeInsideAPartlySentWqeWhenALateAckCoversPartOfIt()
    {
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), 1);
        final Connection[] pair = Connection.rcPair(fabric, arena, 1 << 20, PathMtu.MTU_1024);
        final Connection a = pair[0];
        final Connection b = pair[1];
        a.qp.context().windowPackets = WINDOW;

        // B's responses are held back until the test lets them go
        final List<UnsafeBuffer> held = new ArrayList<>();
        final boolean[] holding = { true };
        fabric.b().engine().sink((buffer, offset, length) ->
        {
            if (holding[0])
            {
                final UnsafeBuffer copy = new UnsafeBuffer(new byte[length]);
                copy.putBytes(0, buffer, offset, length);
                held.add(copy);
            }
            else
            {
                fabric.bToA().send(buffer, offset, length);
            }
        });

        final SendWorkRequest wr = new SendWorkRequest();
        wr.opcode = WrOpcode.RDMA_WRITE;
        wr.rKey = b.mr.rKey();
        for (int i = 0; i < SMALL_WQES; i++)
        {
            wr.wrId = i;
            wr.sendFlags = SendFlags.SIGNALED;
            wr.sgl.clear();
            wr.sgl.add(a.mr.address() + 64L * i, 64, a.mr.lKey());
            wr.remoteAddress = b.mr.address() + 64L * i;
            assertEquals(0, a.qp.postSend(wr));
        }
        wr.wrId = SMALL_WQES;
        wr.sgl.clear();
        wr.sgl.add(a.mr.address() + 8192, LARGE_BYTES, a.mr.lKey());
        wr.remoteAddress = b.mr.address() + 8192;
        assertEquals(0, a.qp.postSend(wr));

        final TransportCounters counters = fabric.a().engine().counters();
        // the first 128 PSNs go out and reach B; its ACKs are held, so A's local ACK timeout fires and go-back-N
        // resends the 64 small WQEs in the cycle of the timeout
        assertTrue(fabric.runUntil(() -> counters.get(TransportCounter.LOCAL_ACK_TIMEOUT) == 1, 100_000_000L),
            "a local ACK timeout");
        final QpContext qp = a.qp.context();
        assertEquals((long)SMALL_WQES, qp.sqNext, "the requester resent the small WQEs and stopped at the large one: " +
            qp.describe());
        assertTrue(!qp.reqWqeStarted, qp.describe());

        // now B's latest ACK arrives: it covers the large WQE's first packets
        final InboundValidator validator = new InboundValidator();
        final RocePacket packet = new RocePacket();
        UnsafeBuffer latest = null;
        int latestPsn = -1;
        for (final UnsafeBuffer frame : held)
        {
            assertEquals(DropReason.NONE, validator.validate(frame, 0, frame.capacity(), packet));
            if (packet.opcode() == Opcode.RC_ACKNOWLEDGE && (latest == null || Psn.isAfter(packet.psn(), latestPsn)))
            {
                latest = frame;
                latestPsn = packet.psn();
            }
        }
        assertTrue(latest != null && Psn.distance(0x10_0000, latestPsn) >= SMALL_WQES,
            "B acknowledged packets of the large WQE (latest ACK PSN " + Integer.toHexString(latestPsn) + ")");
        fabric.a().engine().onFrame(latest, 0, latest.capacity());
        holding[0] = false;

        final int[] completed = { 0 };
        final boolean done = fabric.runUntil(() ->
        {
            final int n = a.sendCq.poll(a.completions, a.completions.length);
            for (int i = 0; i < n; i++)
            {
                assertEquals(WcStatus.SUCCESS, a.completions[i].status(), a.completions[i].toString());
            }
            completed[0] += n;
            return completed[0] == SMALL_WQES + 1;
        }, 1_000_000_000L);
        assertTrue(done, "every WQE completes; stuck at " + qp.describe());
        assertEquals(-1, b.memory.asSlice(8192, LARGE_BYTES).mismatch(a.memory.asSlice(8192, LARGE_BYTES)));
    }
}
