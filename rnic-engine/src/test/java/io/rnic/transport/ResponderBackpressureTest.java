package io.rnic.transport;

import io.rnic.device.QueuePair;
import io.rnic.sim.LinkConditions;
import io.rnic.sim.TwoNodeFabric;
import io.rnic.verbs.PathMtu;
import io.rnic.verbs.SendFlags;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.WcStatus;
import io.rnic.verbs.WrOpcode;
import io.rnic.wire.Opcode;
import org.agrona.DirectBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The responder's side of a full port: READ responses and atomic acknowledgements wait for transmit room instead of
 * being lost, leave in PSN order across duty cycles, and what follows them (the ACK of a later WRITE, the next
 * READ) waits behind them.
 */
class ResponderBackpressureTest
{
    private final Arena arena = Arena.ofShared();

    @AfterEach
    void close()
    {
        arena.close();
    }

    /** B's transmit path: room for {@code credits} frames per duty cycle, as a small NIC queue drained each cycle. */
    private static final class RoomLimitedSink implements PacketSink
    {
        private final PacketSink link;
        int credits;
        int responsesBeyondRoom;
        final List<Integer> responsePsns = new ArrayList<>();

        RoomLimitedSink(final PacketSink link)
        {
            this.link = link;
        }

        @Override
        public boolean hasRoom()
        {
            return credits > 0;
        }

        @Override
        public void send(final DirectBuffer frame, final int offset, final int length)
        {
            final int bth = offset + 14 + 20 + 8;
            final int opcode = frame.getByte(bth) & 0xFF;
            if (opcode != Opcode.RC_ACKNOWLEDGE)
            {
                if (credits <= 0)
                {
                    responsesBeyondRoom++;
                }
                responsePsns.add(((frame.getByte(bth + 9) & 0xFF) << 16) | ((frame.getByte(bth + 10) & 0xFF) << 8) |
                    (frame.getByte(bth + 11) & 0xFF));
            }
            credits--;
            link.send(frame, offset, length);
        }
    }

    private record Done(long wrId, WcStatus status)
    {
    }

    /**
     * Posts a signaled work request from A at offset {@code offset} of both sides' buffers (an atomic: its 8 bytes
     * from A's {@code offset}, at B's offset 500 000, adding {@code add}).
     */
    private static SendWorkRequest post(
        final Connection[] pair, final long wrId, final int opcode, final long offset, final int length,
        final long add)
    {
        final SendWorkRequest wr = new SendWorkRequest();
        wr.wrId = wrId;
        wr.opcode = opcode;
        wr.sendFlags = SendFlags.SIGNALED;
        wr.compareAdd = add;
        wr.sgl.add(pair[0].mr.address() + offset, length, pair[0].mr.lKey());
        wr.remoteAddress = pair[1].mr.address() + (opcode == WrOpcode.ATOMIC_FETCH_AND_ADD ? 500_000 : offset);
        wr.rKey = pair[1].mr.rKey();
        assertEquals(QueuePair.POST_OK, pair[0].qp.postSend(wr));
        return wr;
    }

    /** Steps with room for 3 of B's frames per duty cycle until A has {@code count} completions (or 1 s passed). */
    private static List<Done> runWithRoom(
        final TwoNodeFabric fabric, final Connection[] pair, final RoomLimitedSink sink, final int count)
    {
        final List<Done> completed = new ArrayList<>();
        final long deadlineNs = fabric.clock().nanoTime() + 1_000_000_000L;
        while (completed.size() < count && fabric.clock().nanoTime() < deadlineNs)
        {
            sink.credits = 3;
            fabric.step();
            final int n = pair[0].sendCq.poll(pair[0].completions, pair[0].completions.length);
            for (int i = 0; i < n; i++)
            {
                completed.add(new Done(pair[0].completions[i].wrId(), pair[0].completions[i].status()));
            }
        }
        return completed;
    }

    @Test
    void shouldWaitForTransmitRoomAndAnswerInPsnOrder()
    {
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), 3);
        final Connection[] pair = Connection.rcPair(fabric, arena, 1 << 20, PathMtu.MTU_1024);
        final RoomLimitedSink sink = new RoomLimitedSink(fabric.bToA());
        fabric.b().engine().sink(sink);
        RcOperationsTest.fill(pair[1], 0, 65536, 11);
        RcOperationsTest.fill(pair[1], 300_000, 5000, 12);
        RcOperationsTest.fill(pair[0], 400_000, 1000, 13);
        pair[1].memory.set(ValueLayout.JAVA_LONG, 500_000, 40L);

        post(pair, 1, WrOpcode.RDMA_READ, 0, 65536, 0);
        post(pair, 2, WrOpcode.RDMA_WRITE, 400_000, 1000, 0);
        post(pair, 3, WrOpcode.ATOMIC_FETCH_AND_ADD, 200_000, 8, 2);
        post(pair, 4, WrOpcode.RDMA_READ, 300_000, 5000, 0);
        final List<Done> completed = runWithRoom(fabric, pair, sink, 4);

        assertEquals(4, completed.size(), "every work request completed");
        for (int i = 0; i < 4; i++)
        {
            assertEquals(WcStatus.SUCCESS, completed.get(i).status(), "wr " + completed.get(i).wrId());
            assertEquals(i + 1, completed.get(i).wrId(), "completions in order");
        }
        RcOperationsTest.assertBytes(pair[0], 0, 65536, 11);
        RcOperationsTest.assertBytes(pair[0], 300_000, 5000, 12);
        RcOperationsTest.assertBytes(pair[1], 400_000, 1000, 13);
        assertEquals(40L, pair[0].memory.get(ValueLayout.JAVA_LONG, 200_000), "the atomic's original value");
        assertEquals(42L, pair[1].memory.get(ValueLayout.JAVA_LONG, 500_000));

        assertEquals(0, sink.responsesBeyondRoom, "no response was pushed into a full port");
        assertEquals(64 + 1 + 5, sink.responsePsns.size(), "64 + 5 READ responses and one atomic ACK, each once");
        for (int i = 1; i < sink.responsePsns.size(); i++)
        {
            final int previous = sink.responsePsns.get(i - 1);
            final int psn = sink.responsePsns.get(i);
            assertTrue(psn == Psn.next(previous) || psn == Psn.add(previous, 2),
                "responses in PSN order (the WRITE's PSN between them has no response of its own): " + previous +
                " then " + psn);
        }
        final TransportCounters b = fabric.b().engine().counters();
        final TransportCounters a = fabric.a().engine().counters();
        assertTrue(b.get(TransportCounter.TX_QUEUE_FULL) > 0, "the responder waited for room");
        assertEquals(0, a.get(TransportCounter.RETRANSMITTED_PACKETS), "nothing was lost, nothing resent");
        assertEquals(0, a.get(TransportCounter.LOCAL_ACK_TIMEOUT));
    }

    /** A's transmit path losing the first frame with one opcode, once. */
    private static final class DropFirstSink implements PacketSink
    {
        private final PacketSink link;
        private final int opcode;
        boolean dropped;

        DropFirstSink(final PacketSink link, final int opcode)
        {
            this.link = link;
            this.opcode = opcode;
        }

        @Override
        public void send(final DirectBuffer frame, final int offset, final int length)
        {
            if (!dropped && (frame.getByte(offset + 14 + 20 + 8) & 0xFF) == opcode)
            {
                dropped = true;
                return;
            }
            link.send(frame, offset, length);
        }
    }

    /**
     * A WRITE behind a READ loses its first packet while the READ's responses are still queued: the sequence NAK
     * waits behind them (sent before them it would make the requester resend the READ too), then goes at once —
     * the requester recovers without waiting for its ACK timeout.
     */
    @Test
    void shouldSendTheSequenceNakAfterTheQueuedResponses()
    {
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), 5);
        final Connection[] pair = Connection.rcPair(fabric, arena, 1 << 20, PathMtu.MTU_1024);
        final RoomLimitedSink sink = new RoomLimitedSink(fabric.bToA());
        fabric.b().engine().sink(sink);
        final DropFirstSink lossy = new DropFirstSink(fabric.aToB(), Opcode.RC_RDMA_WRITE_FIRST);
        fabric.a().engine().sink(lossy);
        RcOperationsTest.fill(pair[1], 0, 65536, 21);
        RcOperationsTest.fill(pair[0], 400_000, 3000, 22);

        post(pair, 1, WrOpcode.RDMA_READ, 0, 65536, 0);
        post(pair, 2, WrOpcode.RDMA_WRITE, 400_000, 3000, 0);
        final List<Done> completed = runWithRoom(fabric, pair, sink, 2);
        assertTrue(lossy.dropped);
        assertEquals(List.of(new Done(1, WcStatus.SUCCESS), new Done(2, WcStatus.SUCCESS)), completed);
        RcOperationsTest.assertBytes(pair[0], 0, 65536, 21);
        RcOperationsTest.assertBytes(pair[1], 400_000, 3000, 22);
        assertEquals(0, sink.responsesBeyondRoom);
        final TransportCounters a = fabric.a().engine().counters();
        final TransportCounters b = fabric.b().engine().counters();
        assertEquals(1, b.get(TransportCounter.SEQ_NAK_SENT), "one NAK, after the responses");
        assertEquals(1, a.get(TransportCounter.SEQ_NAK_RECEIVED));
        assertEquals(0, a.get(TransportCounter.LOCAL_ACK_TIMEOUT), "recovered by the NAK, not by a timeout");
        assertEquals(64, sink.responsePsns.size(), "the READ answered once: its responses were not overtaken");
    }
}
