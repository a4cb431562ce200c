package io.rnic.transport;

import io.rnic.sim.LinkConditions;
import io.rnic.sim.TwoNodeFabric;
import io.rnic.verbs.PathMtu;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.WcStatus;
import io.rnic.verbs.WorkCompletion;
import io.rnic.wire.Opcode;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * When the local ACK timer starts. A JVM builds its first packets in code it has not run before (the Vector API's
 * ICRC set-up: a first WRITE of {@code write-lat} left 90 to 160 ms after the duty cycle read the clock, on a veth
 * between two loaded cores), so the packet can leave long after the cycle's clock reading. Counted from that
 * reading, the timeout (14: 67 ms, the tools' and rdma-core's) expired before the peer could answer, and a clean
 * link showed {@code local_ack_timeout_err 1} and the first WRITE sent again. Here A's first request takes
 * {@link #SLOW_SEND_NS} of virtual time to hand to the link, which then carries each frame in {@link #DELAY_NS}.
 */
class LocalAckTimerTest extends ArenaScopedTest
{
    private static final int TIMEOUT_CODE = 14;
    private static final long TIMEOUT_NS = Timeouts.localAckTimeoutNs(TIMEOUT_CODE);
    private static final long SLOW_SEND_NS = 50_000_000L;
    private static final long DELAY_NS = 10_000_000L;

    @Test
    void shouldStartTheTimerWhenThePacketLeavesNotWhenTheDutyCycleReadTheClock()
    {
        // the ACK is back 2 x 10 ms after the packet left: within the timeout, though 70 ms after the clock reading
        assertTrue(SLOW_SEND_NS + 2 * DELAY_NS > TIMEOUT_NS && 2 * DELAY_NS < TIMEOUT_NS);
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions().delayNs(DELAY_NS), 1);
        final Connection[] pair = connect(fabric);

        assertEquals(WcStatus.SUCCESS, writeOnce(fabric, pair[0], pair[1]));

        final TransportCounters a = fabric.a().engine().counters();
        assertEquals(0, a.get(TransportCounter.LOCAL_ACK_TIMEOUT), "local ACK timeouts on a clean link");
        assertEquals(0, a.get(TransportCounter.RETRANSMITTED_PACKETS), "retransmissions on a clean link");
        assertEquals(0, a.get(TransportCounter.COMPLETER_RETRY), "retries on a clean link");
        assertEquals(0, fabric.b().engine().counters().get(TransportCounter.DUPLICATE_REQUEST));
    }

    @Test
    void shouldStillTimeOutWhenTheAckTakesLongerThanTheTimeoutAfterTheSlowSend()
    {
        final long delayNs = TIMEOUT_NS / 2 + 1_000_000L; // the ACK is back 1 timeout + 2 ms after the packet left
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions().delayNs(delayNs), 1);
        final Connection[] pair = connect(fabric);

        assertEquals(WcStatus.SUCCESS, writeOnce(fabric, pair[0], pair[1]));

        final TransportCounters a = fabric.a().engine().counters();
        assertEquals(1, a.get(TransportCounter.LOCAL_ACK_TIMEOUT));
        assertEquals(1, a.get(TransportCounter.RETRANSMITTED_PACKETS));
        assertEquals(1, a.get(TransportCounter.COMPLETER_RETRY), "rxe's completer_retry_err: one go-back-N retry");
        final TransportCounters b = fabric.b().engine().counters();
        assertTrue(fabric.runUntil(() -> b.get(TransportCounter.DUPLICATE_REQUEST) == 1, 1_000_000_000L),
            "B received the WRITE twice");
    }

    @Test
    void shouldRestartTheTimerOnProgressFromTheTimeTheAckIsHandledNotFromAnOlderDutyCycle()
    {
        // frames are handled before the next duty cycle reads the clock: here the engine thread of A is "descheduled"
        // for longer than the timeout between its duty cycle and the ACK of its first WRITE, whose second WRITE's
        // ACK is right behind. Restarted from the old reading, the timer expired at once and resent the second WRITE.
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions().delayNs(0), 1); // the ACK waits in A's ring
        final Connection[] pair = Connection.rcPair(fabric, arena, 1 << 16, PathMtu.MTU_1024);
        pair[0].qp.context().timeoutCode = TIMEOUT_CODE;
        final boolean[] descheduled = { false };
        fabric.b().engine().sink((buffer, offset, length) ->
        {
            if (!descheduled[0] && (buffer.getByte(offset + 14 + 20 + 8) & 0xFF) == Opcode.RC_ACKNOWLEDGE)
            {
                descheduled[0] = true; // B's duty cycle ran after A's: the clock moves on before A sees the ACK
                fabric.clock().advanceNs(TIMEOUT_NS + SLOW_SEND_NS);
            }
            fabric.bToA().send(buffer, offset, length);
        });
        final SendWorkRequest wr = pair[0].signalledWriteTo(pair[1], 64);
        assertEquals(0, pair[0].qp.postSend(wr));
        fabric.step(); // the first WRITE leaves A and reaches B
        assertEquals(0, pair[0].qp.postSend(wr));
        final int[] completed = { 0 };
        assertTrue(fabric.runUntil(() ->
        {
            completed[0] += pair[0].sendCq.poll(pair[0].completions, 2);
            return completed[0] == 2;
        }, 1_000_000_000L), "both WRITEs completed");

        assertTrue(descheduled[0]);
        final TransportCounters a = fabric.a().engine().counters();
        assertEquals(0, a.get(TransportCounter.LOCAL_ACK_TIMEOUT), "local ACK timeouts on a clean link");
        assertEquals(0, a.get(TransportCounter.RETRANSMITTED_PACKETS), "retransmissions on a clean link");
    }

    /** An RC pair with the tools' ACK timeout; A's first request frame is slow to leave (the clock moves on). */
    private Connection[] connect(final TwoNodeFabric fabric)
    {
        final Connection[] pair = Connection.rcPair(fabric, arena, 1 << 16, PathMtu.MTU_1024);
        pair[0].qp.context().timeoutCode = TIMEOUT_CODE;
        final boolean[] slowSendDone = { false };
        fabric.a().engine().sink((buffer, offset, length) ->
        {
            if (!slowSendDone[0] && (buffer.getByte(offset + 14 + 20 + 8) & 0xFF) == Opcode.RC_RDMA_WRITE_ONLY)
            {
                slowSendDone[0] = true;
                fabric.clock().advanceNs(SLOW_SEND_NS);
            }
            fabric.aToB().send(buffer, offset, length);
        });
        return pair;
    }

    /** One signalled 64-byte WRITE from A to B; returns its completion's status. */
    private static WcStatus writeOnce(final TwoNodeFabric fabric, final Connection a, final Connection b)
    {
        assertEquals(0, a.qp.postSend(a.signalledWriteTo(b, 64)));
        final WorkCompletion[] completion = { null };
        assertTrue(fabric.runUntil(() ->
        {
            if (a.sendCq.poll(a.completions, 1) == 1)
            {
                completion[0] = a.completions[0];
            }
            return completion[0] != null;
        }, 1_000_000_000L), "the WRITE completed");
        return completion[0].status();
    }
}
