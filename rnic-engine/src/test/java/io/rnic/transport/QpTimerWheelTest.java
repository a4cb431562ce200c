package io.rnic.transport;

import io.rnic.verbs.QpType;
import io.rnic.verbs.WorkRequestRing;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class QpTimerWheelTest
{
    private static QpContext qp(final int qpn)
    {
        return new QpContext(qpn, QpType.RC, null, null, null,
            WorkRequestRing.allocate(WorkRequestRing.SEND, 4, 1, false), null, false);
    }

    @Test
    void shouldFireEachEntryOnceAtOrAfterItsDeadlineAndNeverBefore()
    {
        final long start = 1_000_000_000L;
        final QpTimerWheel wheel = new QpTimerWheel(start, 1024, 64); // a 65 µs revolution: most entries lap it
        final SplittableRandom random = new SplittableRandom(7);
        final List<QpContext> qps = new ArrayList<>();
        for (int i = 0; i < 500; i++)
        {
            final QpContext qp = qp(i + 2);
            wheel.schedule(qp, start + random.nextLong(1, 2_000_000));
            qps.add(qp);
        }
        final long[] firedAt = new long[502];
        long now = start;
        while (wheel.size() > 0)
        {
            now += random.nextLong(1, 3_000); // irregular duty cycles
            final long at = now;
            wheel.poll(now, qp ->
            {
                assertEquals(0, firedAt[qp.qpn], "fired once");
                assertTrue(qp.timerDeadlineNs <= at, "not before its deadline");
                firedAt[qp.qpn] = at;
            });
        }
        for (final QpContext qp : qps)
        {
            assertTrue(firedAt[qp.qpn] - qp.timerDeadlineNs < 3_000 + 1024, "fired within a poll and a tick of it");
        }
    }

    @Test
    void shouldMoveAndCancelEntries()
    {
        final QpTimerWheel wheel = new QpTimerWheel(0, 1024, 4096);
        final QpContext a = qp(2);
        final QpContext b = qp(3);
        wheel.schedule(a, 10_000);
        wheel.schedule(b, 10_000);
        wheel.schedule(a, 50_000); // moved later
        wheel.cancel(b);
        final List<Integer> fired = new ArrayList<>();
        assertEquals(0, wheel.poll(20_000, qp -> fired.add(qp.qpn)));
        assertEquals(1, wheel.poll(60_000, qp -> fired.add(qp.qpn)));
        assertEquals(List.of(2), fired);
        assertEquals(0, wheel.size());
    }

    @Test
    void shouldCatchUpWhenTheClockJumpsManyRevolutions()
    {
        final QpTimerWheel wheel = new QpTimerWheel(0, 1024, 16);
        final QpContext a = qp(2);
        final QpContext b = qp(3);
        wheel.schedule(a, 5_000);
        wheel.schedule(b, 3_000_000_000L);
        final List<Integer> fired = new ArrayList<>();
        wheel.poll(2_000_000_000L, qp -> fired.add(qp.qpn)); // a virtual clock leaping 2 s
        assertEquals(List.of(2), fired);
        wheel.poll(3_000_000_000L, qp -> fired.add(qp.qpn));
        assertEquals(List.of(2, 3), fired);
    }
}
