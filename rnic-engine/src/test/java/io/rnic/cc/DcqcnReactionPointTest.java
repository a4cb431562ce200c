package io.rnic.cc;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Expected values are computed here from the formulas (Zhu et al. 2015), not read back from the class: the closed
 * forms for consecutive CNPs and alpha decay, and each step of the recovery written out.
 */
class DcqcnReactionPointTest
{
    private static final DcqcnParameters PAPER = DcqcnParameters.paper();
    private static final long K = 55_000;
    private static final long T = 55_000;
    private static final double G = 1.0 / 256;
    private static final long LINE = 40_000_000_000L;

    @Test
    void shouldStartAtLineRateWithAlphaOneAndNoTimer()
    {
        final DcqcnReactionPoint rp = new DcqcnReactionPoint(PAPER);
        rp.advance(1_000_000_000L);
        rp.onBytesSent(50_000_000, 1_000_000_000L);
        assertEquals(LINE, rp.rateBitsPerSec());
        assertEquals(LINE, rp.targetRateBitsPerSec());
        assertEquals(1.0, rp.alpha());
        assertEquals(0, rp.cnpsReceived());
        assertEquals(0, rp.byteCounterEvents(), "bytes at line rate are not counted");
        assertFalse(rp.isRecovering());
        assertEquals(Long.MAX_VALUE, rp.nextRateIncreaseNs());
    }

    @Test
    void shouldCutRateOnCnp()
    {
        final DcqcnReactionPoint rp = new DcqcnReactionPoint(PAPER);
        rp.onCnp(1_000);
        assertEquals(LINE / 2, rp.rateBitsPerSec(), "Rc·(1 - α/2) with α = 1");
        assertEquals(LINE, rp.targetRateBitsPerSec(), "Rt = the old Rc");
        assertEquals(1.0, rp.alpha(), "(1 - g)·1 + g");
        assertEquals(1, rp.cnpsReceived());
        assertTrue(rp.isRecovering());
        assertEquals(1_000 + T, rp.nextRateIncreaseNs());
    }

    @Test
    void shouldFollowClosedFormOverConsecutiveCnps()
    {
        // no increase during the test: only the CNPs and the alpha decay act
        final DcqcnReactionPoint rp = new DcqcnReactionPoint(PAPER.with("rateIncreasePeriodNs", "10000000000"));
        rp.onCnp(0);
        final int decayPeriods = 40;
        final long t1 = decayPeriods * K;
        rp.advance(t1);
        final double alpha0 = Math.pow(1 - G, decayPeriods);
        assertEquals(alpha0, rp.alpha(), 1e-12);

        final long rate0 = rp.rateBitsPerSec();
        assertEquals(LINE / 2, rate0);
        final int n = 12;
        long rateBeforeLast = 0;
        for (int i = 0; i < n; i++)
        {
            rateBeforeLast = rp.rateBitsPerSec();
            rp.onCnp(t1);
        }
        // α_i = 1 - (1 - α_0)(1 - g)^i, Rc_n = Rc_0 · Π_{i<n} (1 - α_i/2); each step truncates to whole bits/s
        double product = 1.0;
        for (int i = 0; i < n; i++)
        {
            product *= 1 - (1 - (1 - alpha0) * Math.pow(1 - G, i)) / 2;
        }
        assertEquals(rate0 * product, rp.rateBitsPerSec(), n + 1.0);
        assertEquals(1 - (1 - alpha0) * Math.pow(1 - G, n), rp.alpha(), 1e-12);
        assertEquals(rateBeforeLast, rp.targetRateBitsPerSec(), "Rt = Rc before the last CNP");
        assertEquals(n + 1, rp.cnpsReceived());
    }

    @Test
    void shouldDecayAlphaOncePerPeriodWithoutCnp()
    {
        final DcqcnReactionPoint rp = new DcqcnReactionPoint(PAPER);
        final long t0 = 5_000;
        rp.onCnp(t0);
        for (int k = 1; k <= 200; k++)
        {
            rp.advance(t0 + k * K - 1);
            assertEquals(Math.pow(1 - G, k - 1), rp.alpha(), 1e-12, "before period " + k);
            rp.advance(t0 + k * K);
            assertEquals(Math.pow(1 - G, k), rp.alpha(), 1e-12, "at period " + k);
        }

        final DcqcnReactionPoint jumped = new DcqcnReactionPoint(PAPER);
        jumped.onCnp(t0);
        jumped.advance(t0 + 1000 * K + K / 2);
        assertEquals(Math.pow(1 - G, 1000), jumped.alpha(), 1e-12);
        jumped.onCnp(t0 + 1000 * K + K / 2);
        assertEquals((1 - G) * Math.pow(1 - G, 1000) + G, jumped.alpha(), 1e-12);
    }

    @Test
    void shouldRecoverByFastRecoveryThenAdditiveThenHyperIncrease()
    {
        final long b = 1_000_000;
        final DcqcnReactionPoint rp = new DcqcnReactionPoint(PAPER.with("byteCounterBytes", Long.toString(b)));
        for (int i = 0; i < 4; i++)
        {
            rp.onCnp(0); // α stays 1: 40G → 20G → 10G → 5G → 2.5G
        }
        assertEquals(2_500_000_000L, rp.rateBitsPerSec());
        assertEquals(5_000_000_000L, rp.targetRateBitsPerSec());

        // F = 5 timer events of fast recovery: Rc = (Rt + Rc)/2, Rt unchanged
        final long[] fastRecovery = { 3_750_000_000L, 4_375_000_000L, 4_687_500_000L, 4_843_750_000L, 4_921_875_000L };
        for (int i = 1; i <= 5; i++)
        {
            rp.advance(i * T);
            assertEquals(fastRecovery[i - 1], rp.rateBitsPerSec(), "fast recovery " + i);
            assertEquals(5_000_000_000L, rp.targetRateBitsPerSec());
        }
        // timer events 6..8 (Ti > F, BCi = 0): additive, Rt += 40 Mb/s, Rc = (Rt + Rc)/2
        final long[][] additive = {
            { 5_040_000_000L, 4_980_937_500L }, { 5_080_000_000L, 5_030_468_750L }, { 5_120_000_000L, 5_075_234_375L } };
        for (int i = 6; i <= 8; i++)
        {
            rp.advance(i * T);
            assertEquals(additive[i - 6][0], rp.targetRateBitsPerSec(), "additive " + i);
            assertEquals(additive[i - 6][1], rp.rateBitsPerSec(), "additive " + i);
        }
        assertEquals(8, rp.timerEvents());

        // byte events (B each) between timer events: BCi = 1..5 additive (min(Ti, BCi) ≤ F), BCi = 6 hyper
        long rt = additive[2][0];
        long rc = additive[2][1];
        for (int bci = 1; bci <= 7; bci++)
        {
            rp.onBytesSent((int)b / 2, 8 * T + bci * 10);
            rp.onBytesSent((int)b / 2, 8 * T + bci * 10 + 5);
            rt += bci <= 5 ? 40_000_000L : 200_000_000L;
            rc = rc + (rt - rc + 1) / 2;
            assertEquals(bci, rp.byteCounterEvents());
            assertEquals(rt, rp.targetRateBitsPerSec(), "byte event " + bci);
            assertEquals(rc, rp.rateBitsPerSec(), "byte event " + bci);
        }
        // the next timer event: Ti = 9, BCi = 7, both past F: hyper
        rp.advance(9 * T);
        rt += 200_000_000L;
        rc = rc + (rt - rc + 1) / 2;
        assertEquals(rt, rp.targetRateBitsPerSec());
        assertEquals(rc, rp.rateBitsPerSec());
    }

    @Test
    void shouldTakeOneFastRecoveryStepWithConnectXDefaults()
    {
        final DcqcnReactionPoint rp = new DcqcnReactionPoint(DcqcnParameters.connectX());
        rp.onCnp(0);
        rp.onCnp(0);
        rp.onCnp(0);
        assertEquals(12_500_000_000L, rp.rateBitsPerSec(), "α = 1019/1024 + 5/1024·1 = 1: halved three times");
        assertEquals(25_000_000_000L, rp.targetRateBitsPerSec());
        rp.advance(300_000);
        assertEquals(18_750_000_000L, rp.rateBitsPerSec(), "F = 1: one fast recovery step");
        rp.advance(600_000);
        assertEquals(25_005_000_000L, rp.targetRateBitsPerSec(), "then additive: Rt += 5 Mb/s");
        assertEquals(21_877_500_000L, rp.rateBitsPerSec());
        rp.onBytesSent(32_767, 600_001);
        assertEquals(25_010_000_000L, rp.targetRateBitsPerSec(), "Ti = 2, BCi = 1: additive");
        assertEquals(23_443_750_000L, rp.rateBitsPerSec());
        rp.onBytesSent(32_767, 600_002);
        assertEquals(25_060_000_000L, rp.targetRateBitsPerSec(), "Ti = 2, BCi = 2: hyper, Rt += 50 Mb/s");
        assertEquals(24_251_875_000L, rp.rateBitsPerSec());
    }

    @Test
    void shouldNotCutBelowTheMinimumRate()
    {
        final DcqcnReactionPoint rp = new DcqcnReactionPoint(PAPER);
        for (int i = 0; i < 30; i++)
        {
            rp.onCnp(0);
            assertTrue(rp.rateBitsPerSec() >= 10_000_000L);
        }
        assertEquals(10_000_000L, rp.rateBitsPerSec());
        assertEquals(10_000_000L, rp.targetRateBitsPerSec(), "Rt = Rc, already at the floor");
    }

    @Test
    void shouldKeepTheMinimumDecreaseFactor()
    {
        final DcqcnReactionPoint rp = new DcqcnReactionPoint(PAPER.with("minDecreasePercent", "75"));
        rp.onCnp(0);
        assertEquals(30_000_000_000L, rp.rateBitsPerSec(), "α = 1 would halve; 75 % of Rc is kept");
        rp.onCnp(0);
        assertEquals(22_500_000_000L, rp.rateBitsPerSec());
    }

    @Test
    void shouldCapRatesAtLineRateAndThenStopTheTimer()
    {
        final DcqcnReactionPoint rp = new DcqcnReactionPoint(PAPER.with("byteCounterBytes", "1024"));
        rp.onCnp(0);
        rp.onCnp(0);
        long now = 0;
        int events = 0;
        while (rp.isRecovering())
        {
            now += T;
            rp.onBytesSent(4096, now); // keeps both counters moving: hyper increase, Rt runs into the cap
            assertTrue(rp.targetRateBitsPerSec() <= LINE, "Rt capped");
            assertTrue(rp.rateBitsPerSec() <= rp.targetRateBitsPerSec(), "Rc ≤ Rt");
            assertTrue(++events < 10_000);
        }
        assertEquals(LINE, rp.rateBitsPerSec());
        assertEquals(LINE, rp.targetRateBitsPerSec());
        assertEquals(Long.MAX_VALUE, rp.nextRateIncreaseNs());
        final long timerEvents = rp.timerEvents();
        rp.advance(now + 1_000_000_000L);
        assertEquals(LINE, rp.rateBitsPerSec());
        assertEquals(timerEvents, rp.timerEvents(), "no work at line rate");
    }

    @ParameterizedTest(name = "{0} gap {1} ns, {2} byte events first")
    @CsvSource({
        "paper, 1000000, 0", "paper, 20000000, 0", "paper, 1000000000, 0",
        "paper, 1000000, 6", "paper, 20000000, 6", "paper, 1000000000, 3",
        "connectX, 10000000, 0", "connectX, 300000000, 0", "connectX, 10000000000, 0",
        "connectX, 10000000, 2", "connectX, 300000000, 2", "connectX, 3000000000, 2" })
    void shouldCatchUpAfterLongGapAsIfAdvancedEveryPeriod(
        final String set, final long gapNs, final int byteEvents)
    {
        final DcqcnParameters p = (set.equals("paper") ? PAPER.with("byteCounterBytes", "1000000") :
            DcqcnParameters.connectX());
        final DcqcnReactionPoint stepped = new DcqcnReactionPoint(p);
        final DcqcnReactionPoint jumped = new DcqcnReactionPoint(p);
        for (final DcqcnReactionPoint rp : new DcqcnReactionPoint[] { stepped, jumped })
        {
            for (int i = 0; i < 7; i++)
            {
                rp.onCnp(0); // far below line rate
            }
            for (int i = 0; i < byteEvents; i++)
            {
                rp.onBytesSent((int)p.byteCounterBytes(), 1);
            }
        }
        final long period = p.rateIncreasePeriodNs();
        for (long t = 1; t <= gapNs; t += period / 3)
        {
            stepped.advance(t);
        }
        stepped.advance(gapNs);
        jumped.advance(gapNs);

        assertEquals(stepped.timerEvents(), jumped.timerEvents());
        assertEquals(stepped.targetRateBitsPerSec(), jumped.targetRateBitsPerSec());
        assertEquals(stepped.rateBitsPerSec(), jumped.rateBitsPerSec());
        assertEquals(stepped.isRecovering(), jumped.isRecovering());
        assertEquals(stepped.nextRateIncreaseNs(), jumped.nextRateIncreaseNs());
        assertEquals(stepped.alpha(), jumped.alpha(), 1e-9 * stepped.alpha() + Double.MIN_VALUE);
    }

    @Test
    void shouldCatchUpFiveBillionTimerEventsInBoundedWork()
    {
        // 1 kb/s additive steps every µs up to 10 Tb/s: stepping each event would take many seconds
        final DcqcnParameters p = PAPER.with("lineRateBitsPerSec", "10000000000000")
            .with("minRateBitsPerSec", "1000").with("additiveIncreaseBitsPerSec", "1000")
            .with("rateIncreasePeriodNs", "1000").with("byteCounterBytes", "0");
        final DcqcnReactionPoint rp = new DcqcnReactionPoint(p);
        for (int i = 0; i < 30; i++)
        {
            rp.onCnp(0);
        }
        final long rt0 = rp.targetRateBitsPerSec();
        final long events = 5_000_000_000L;
        final long startNs = System.nanoTime();
        rp.advance(events * 1000);
        final long elapsedNs = System.nanoTime() - startNs;
        assertEquals(events, rp.timerEvents());
        assertEquals(rt0 + (events - 5) * 1000, rp.targetRateBitsPerSec(), "F fast recovery events, then +R_AI each");
        final long gap = rp.targetRateBitsPerSec() - rp.rateBitsPerSec();
        assertTrue(gap == 999 || gap == 1000, "Rc trails Rt by its fixed point R_AI or R_AI - 1: " + gap);
        assertTrue(elapsedNs < 1_000_000_000L, "took " + elapsedNs + " ns");
    }

    @Test
    void shouldCountBytesAcrossCallsOnlyWhileRecovering()
    {
        final DcqcnReactionPoint rp = new DcqcnReactionPoint(PAPER.with("byteCounterBytes", "1000000"));
        rp.onBytesSent(5_000_000, 0);
        rp.onCnp(0);
        rp.onBytesSent(999_999, 1);
        assertEquals(0, rp.byteCounterEvents());
        rp.onBytesSent(1, 2);
        assertEquals(1, rp.byteCounterEvents());
        rp.onBytesSent(2_500_000, 3);
        assertEquals(3, rp.byteCounterEvents());
        rp.onBytesSent(500_000, 4);
        assertEquals(4, rp.byteCounterEvents());

        final DcqcnReactionPoint disabled = new DcqcnReactionPoint(PAPER.with("byteCounterBytes", "0"));
        disabled.onCnp(0);
        disabled.onBytesSent(100_000_000, 1);
        assertEquals(0, disabled.byteCounterEvents());
        assertEquals(LINE / 2, disabled.rateBitsPerSec());
    }

    @Test
    void shouldApplyDueEventsBeforeACnpAndRestartRecovery()
    {
        final DcqcnReactionPoint rp = new DcqcnReactionPoint(PAPER);
        rp.onCnp(0);
        rp.onCnp(2 * T + 7); // two fast recovery events first: 20G → 30G → 35G, and one alpha decay
        final double alphaBefore = Math.pow(1 - G, 2);
        assertEquals(35_000_000_000L, rp.targetRateBitsPerSec(), "Rt = Rc at the CNP");
        assertEquals((long)(35_000_000_000L * (1 - alphaBefore / 2)), rp.rateBitsPerSec());
        assertEquals((1 - G) * alphaBefore + G, rp.alpha(), 1e-15);
        assertEquals(0, rp.timerEvents(), "counters restart");
        assertEquals(2 * T + 7 + T, rp.nextRateIncreaseNs(), "timer restarts");
        rp.advance(3 * T + 6);
        assertEquals(0, rp.timerEvents());
        rp.advance(3 * T + 7);
        assertEquals(1, rp.timerEvents());
    }

    @Test
    void shouldResetToLineRate()
    {
        final DcqcnReactionPoint rp = new DcqcnReactionPoint(PAPER);
        rp.onCnp(0);
        rp.advance(10 * T);
        rp.reset();
        assertEquals(LINE, rp.rateBitsPerSec());
        assertEquals(1.0, rp.alpha());
        assertEquals(0, rp.cnpsReceived());
        assertFalse(rp.isRecovering());
    }
}
