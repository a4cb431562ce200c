package io.rnic.transport;

import io.rnic.cc.DcqcnParameters;
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
import io.rnic.wire.Opcode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * max_dest_rd_atomic: the READs/atomics a responder takes at once. One beyond it is answered with an invalid request
 * NAK (the QP goes to ERR); a requester that keeps to its max_rd_atomic is never refused, because only what it
 * cannot have seen answered counts: responses still queued, and those sent in the duty cycle still under way.
 */
class MaxDestReadAtomicTest extends ArenaScopedTest
{
    private static final int FIRST_PSN = 0x10_0000;

    private static String answer(final int opcode, final int psn, final int syndrome)
    {
        return String.format("%s %06x syndrome=%02x", Opcode.name(opcode), psn, syndrome);
    }

    private static final int ACK = AethFlyweight.ackSyndrome(AethFlyweight.CREDITS_INVALID);
    private static final int NAK_INVALID_REQUEST = AethFlyweight.nakSyndrome(AethFlyweight.NAK_INVALID_REQUEST);

    private static void fetchAdd(final PeerFrames frames, final Connection b, final int psn)
    {
        frames.inject(PeerFrames.fromA(b.qp.qpn(), Opcode.RC_FETCH_ADD, psn)
            .atomicEth(b.mr.address(), b.mr.rKey(), 1, 0).ackRequest(true), 0);
    }

    private static void read(final PeerFrames frames, final Connection b, final int psn, final int length)
    {
        frames.inject(PeerFrames.fromA(b.qp.qpn(), Opcode.RC_RDMA_READ_REQUEST, psn)
            .reth(b.mr.address(), b.mr.rKey(), length).ackRequest(true), 0);
    }

    /** B's side of a pair whose QPs both have max_rd_atomic and max_dest_rd_atomic {@code limit}. */
    private Connection pair(final TwoNodeFabric fabric, final int limit)
    {
        return Connection.pair(fabric, arena, QpType.RC, 8192, PathMtu.MTU_1024, AccessFlags.ALL, limit, limit)[1];
    }

    private static long exceeded(final TwoNodeFabric fabric)
    {
        return fabric.b().engine().counters().get(TransportCounter.READ_ATOMIC_EXCEEDED);
    }

    @Test
    void shouldExecuteOneOfFortyFetchAddsInABurstAgainstALimitOfOneAndNakTheSecond()
    {
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), 1);
        final Connection b = pair(fabric, 1);
        final PeerFrames frames = new PeerFrames(fabric.b(), fabric.bToA());

        for (int i = 0; i < 40; i++)
        {
            fetchAdd(frames, b, FIRST_PSN + i);
        }
        assertEquals(1, b.memory.get(ValueLayout.JAVA_LONG, 0), "executed once");
        assertEquals(List.of(answer(Opcode.RC_ATOMIC_ACKNOWLEDGE, FIRST_PSN, ACK),
            answer(Opcode.RC_ACKNOWLEDGE, FIRST_PSN + 1, NAK_INVALID_REQUEST)), frames.describeAnswers());
        assertEquals(QpState.ERR, b.qp.state());
        assertEquals(1, exceeded(fabric));
    }

    @Test
    void shouldTakeTheNextOnceTheResponseLeftInAnEarlierDutyCycle()
    {
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), 1);
        final Connection b = pair(fabric, 1);
        final PeerFrames frames = new PeerFrames(fabric.b(), fabric.bToA());

        fetchAdd(frames, b, FIRST_PSN);
        fabric.b().engine().doWork(); // the cycle ends: its atomic acknowledgement reaches the wire
        read(frames, b, FIRST_PSN + 1, 3000);
        fabric.b().engine().doWork();
        fetchAdd(frames, b, FIRST_PSN + 4);
        assertEquals(2, b.memory.get(ValueLayout.JAVA_LONG, 0));
        assertEquals(List.of(answer(Opcode.RC_ATOMIC_ACKNOWLEDGE, FIRST_PSN, ACK),
            answer(Opcode.RC_RDMA_READ_RESPONSE_FIRST, FIRST_PSN + 1, ACK),
            "RC_RDMA_READ_RESPONSE_MIDDLE " + String.format("%06x", FIRST_PSN + 2),
            answer(Opcode.RC_RDMA_READ_RESPONSE_LAST, FIRST_PSN + 3, ACK),
            answer(Opcode.RC_ATOMIC_ACKNOWLEDGE, FIRST_PSN + 4, ACK)), frames.describeAnswers());
        assertEquals(QpState.RTS, b.qp.state());
        assertEquals(0, exceeded(fabric));
    }

    /**
     * A port that pushes frames out within the duty cycle (an in-memory ring at once, a full ring on its own): what
     * it pushed may have reached the requester, and the requester may already have answered it in this same receive
     * burst.
     */
    @Test
    void shouldTakeTheNextOnceThePortPushedTheResponseToTheWire()
    {
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), 1);
        final Connection b = pair(fabric, 1);
        final PeerFrames frames = new PeerFrames(fabric.b(), fabric.bToA());

        fetchAdd(frames, b, FIRST_PSN);
        frames.push();
        fetchAdd(frames, b, FIRST_PSN + 1);
        frames.push();
        frames.pushEachFrame(true);
        read(frames, b, FIRST_PSN + 2, 3000);
        fetchAdd(frames, b, FIRST_PSN + 5);
        assertEquals(3, b.memory.get(ValueLayout.JAVA_LONG, 0));
        assertEquals(QpState.RTS, b.qp.state());

        frames.pushEachFrame(false);
        fetchAdd(frames, b, FIRST_PSN + 6); // answered, held by the port
        fetchAdd(frames, b, FIRST_PSN + 7);
        assertEquals(4, b.memory.get(ValueLayout.JAVA_LONG, 0));
        assertEquals(QpState.ERR, b.qp.state());
        assertEquals(1, exceeded(fabric));
    }

    @Test
    void shouldCountAQueuedResponseOnceHoweverOftenItsRequestIsRepeated()
    {
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), 1);
        final Connection b = pair(fabric, 2);
        final PeerFrames frames = new PeerFrames(fabric.b(), fabric.bToA());

        frames.portFull(true); // the responses wait in the QP's queue
        read(frames, b, FIRST_PSN, 2048);
        read(frames, b, FIRST_PSN, 2048); // the requester repeats it: the same READ, still one
        read(frames, b, FIRST_PSN + 1, 2048); // a duplicate of its second packet
        read(frames, b, FIRST_PSN + 2, 64);
        assertEquals(QpState.RTS, b.qp.state());
        assertEquals(0, exceeded(fabric));
        assertEquals(List.of(), frames.describeAnswers());

        read(frames, b, FIRST_PSN + 3, 64); // a third while two wait
        assertEquals(List.of(answer(Opcode.RC_ACKNOWLEDGE, FIRST_PSN + 3, NAK_INVALID_REQUEST)),
            frames.describeAnswers());
        assertEquals(QpState.ERR, b.qp.state());
        assertEquals(1, exceeded(fabric));
    }

    @Test
    void shouldCountAResponseRepeatedInTheSameDutyCycleOnce()
    {
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), 1);
        final Connection b = pair(fabric, 2);
        final PeerFrames frames = new PeerFrames(fabric.b(), fabric.bToA());

        fetchAdd(frames, b, FIRST_PSN);
        fetchAdd(frames, b, FIRST_PSN); // answered again from the replay cache, not executed or counted again
        fetchAdd(frames, b, FIRST_PSN + 1);
        assertEquals(2, b.memory.get(ValueLayout.JAVA_LONG, 0));
        assertEquals(QpState.RTS, b.qp.state());
        fetchAdd(frames, b, FIRST_PSN + 2); // both answers are still in the port's queue: a third is one too many
        assertEquals(QpState.ERR, b.qp.state());
        assertEquals(2, b.memory.get(ValueLayout.JAVA_LONG, 0));
        assertEquals(1, exceeded(fabric));
    }

    /**
     * A requester at its max_rd_atomic against a responder with the same max_dest_rd_atomic, on a link that loses,
     * reorders and duplicates frames: thousands of READs and atomics (with WRITEs between them) and not one refused.
     */
    @ParameterizedTest
    @ValueSource(ints = { 1, 4, 16 })
    void shouldNeverRefuseARequesterThatKeepsToItsLimit(final int limit)
    {
        final LinkConditions lossy = new LinkConditions().loss(0.02).reorder(0.02).duplicate(0.02);
        final TwoNodeFabric fabric = new TwoNodeFabric(lossy, 7 + limit);
        runReadsAndAtomics(fabric, limit);
    }

    /**
     * The same where responses wait in the responder's queue: DCQCN paces them after CNPs (a tenth of the frames
     * is marked CE) at a low line rate, so that the requester times out and repeats READs whose answers are queued.
     */
    @ParameterizedTest
    @ValueSource(ints = { 1, 16 })
    void shouldNeverRefuseARequesterThatKeepsToItsLimitWhileResponsesQueue(final int limit)
    {
        final LinkConditions marking = new LinkConditions().loss(0.01).ceMark(0.1);
        final TwoNodeFabric fabric = new TwoNodeFabric(marking, 11 + limit);
        final DcqcnParameters slow = DcqcnParameters.connectX()
            .with(DcqcnParameters.LINE_RATE_BITS_PER_SEC_PARAM_NAME, "100000000");
        fabric.a().congestionControl(slow);
        fabric.b().congestionControl(slow);
        runReadsAndAtomics(fabric, limit);
        assertTrue(fabric.b().engine().counters().get(TransportCounter.CNP_RECEIVED) > 0, "the responder was slowed");
        assertTrue(fabric.b().engine().counters().get(TransportCounter.DUPLICATE_REQUEST) > 0, "READs were repeated");
    }

    private void runReadsAndAtomics(final TwoNodeFabric fabric, final int limit)
    {
        final Connection[] pair =
            Connection.pair(fabric, arena, QpType.RC, 1 << 16, PathMtu.MTU_1024, AccessFlags.ALL, limit, limit);
        final Connection a = pair[0];
        final Connection b = pair[1];
        final SplittableRandom random = new SplittableRandom(limit);
        final SendWorkRequest wr = new SendWorkRequest();
        final int operations = 3000;
        int posted = 0;
        int completed = 0;
        int adds = 0;
        final long deadlineNs = fabric.clock().nanoTime() + 60 * SECOND_NS;
        while (completed < operations)
        {
            assertTrue(fabric.clock().nanoTime() < deadlineNs, "stuck after " + completed + " completions");
            while (posted < operations && posted - completed < 64)
            {
                wr.reset();
                wr.wrId = posted;
                wr.sendFlags = SendFlags.SIGNALED;
                final int kind = random.nextInt(5);
                if (kind < 2)
                {
                    wr.opcode = WrOpcode.RDMA_READ;
                    wr.sgl.add(a.mr.address() + 8192, 1 + random.nextInt(4096), a.mr.lKey());
                    wr.remoteAddress = b.mr.address() + 8192;
                }
                else if (kind < 4)
                {
                    wr.opcode = WrOpcode.ATOMIC_FETCH_AND_ADD;
                    wr.compareAdd = 1;
                    wr.sgl.add(a.mr.address(), 8, a.mr.lKey());
                    wr.remoteAddress = b.mr.address();
                    adds++;
                }
                else
                {
                    wr.opcode = WrOpcode.RDMA_WRITE;
                    wr.sgl.add(a.mr.address() + 8192, 1 + random.nextInt(4096), a.mr.lKey());
                    wr.remoteAddress = b.mr.address() + 32768;
                }
                wr.rKey = b.mr.rKey();
                assertEquals(QueuePair.POST_OK, a.qp.postSend(wr));
                posted++;
            }
            fabric.step();
            final int n = a.sendCq.poll(a.completions, a.completions.length);
            for (int i = 0; i < n; i++)
            {
                assertEquals(WcStatus.SUCCESS, a.completions[i].status(), "work request " + a.completions[i].wrId() +
                    ": " + fabric.b().engine().counters());
            }
            completed += n;
        }
        assertEquals(0, exceeded(fabric));
        assertEquals(0, fabric.b().engine().counters().get(TransportCounter.INVALID_REQUEST_NAK_SENT));
        assertEquals(adds, b.memory.get(ValueLayout.JAVA_LONG, 0), "every FETCH_ADD executed once");
        assertTrue(fabric.aToB().framesLost() > 0 && fabric.bToA().framesLost() > 0, "the link lost frames");
        assertTrue(fabric.b().engine().counters().get(TransportCounter.DUPLICATE_REQUEST) > 0, "requests repeated");
    }
}
