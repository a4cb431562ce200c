package io.rnic.transport;

import io.rnic.sim.LinkConditions;
import io.rnic.sim.TwoNodeFabric;
import io.rnic.verbs.PathMtu;
import io.rnic.verbs.WcStatus;
import io.rnic.wire.DropReason;
import io.rnic.wire.InboundValidator;
import io.rnic.wire.Opcode;
import io.rnic.wire.RocePacket;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The responder answers a duplicate WRITE or SEND packet with an ACK even when the packet asked for none. */
class DuplicateRequestTest extends ArenaScopedTest
{
    @Test
    void shouldAcknowledgeADuplicateMiddlePacketWithoutAckRequest()
    {
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), 1);
        final Connection[] pair = Connection.rcPair(fabric, arena, 1 << 20, PathMtu.MTU_1024);
        final Connection a = pair[0];
        final Connection b = pair[1];
        final List<UnsafeBuffer> fromA = new ArrayList<>();
        fabric.a().engine().sink((buffer, offset, length) ->
        {
            final UnsafeBuffer copy = new UnsafeBuffer(new byte[length]);
            copy.putBytes(0, buffer, offset, length);
            fromA.add(copy);
            fabric.aToB().send(buffer, offset, length);
        });

        assertEquals(0, a.qp.postSend(a.signalledWriteTo(b, 3000)));
        assertTrue(fabric.runUntil(() -> a.sendCq.poll(a.completions, 1) == 1, 10_000_000L));
        assertEquals(WcStatus.SUCCESS, a.completions[0].status());

        final InboundValidator validator = new InboundValidator();
        final RocePacket packet = new RocePacket();
        UnsafeBuffer middle = null;
        for (final UnsafeBuffer frame : fromA)
        {
            assertEquals(DropReason.NONE, validator.validate(frame, 0, frame.capacity(), packet));
            if (packet.opcode() == Opcode.RC_RDMA_WRITE_MIDDLE)
            {
                middle = frame;
                assertFalse(packet.ackRequest(), "a MIDDLE packet asks for no ACK");
            }
        }
        assertTrue(middle != null, "the 3000-byte write was FIRST, MIDDLE, LAST");

        final TransportCounters counters = fabric.b().engine().counters();
        final long acksBefore = counters.get(TransportCounter.ACKS_SENT);
        fabric.b().engine().onFrame(middle, 0, middle.capacity());
        fabric.b().engine().doWork();
        assertEquals(1, counters.get(TransportCounter.DUPLICATE_REQUEST));
        assertEquals(acksBefore + 1, counters.get(TransportCounter.ACKS_SENT), "the duplicate was acknowledged");
    }
}
