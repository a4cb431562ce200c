package io.rnic.cc;

/**
 * The DCQCN reaction point of one QP (the sender): the current rate Rc it may send at, the target rate Rt it
 * recovers towards, and the congestion estimate α. Engine thread only; time is passed in, never read; nothing is
 * allocated after construction.
 * <p>
 * <b>Decrease</b>, on a CNP ({@link #onCnp}): {@code Rt = Rc; Rc = Rc·(1 - α/2); α = (1-g)·α + g}, Rc kept at
 * or above {@code minDecreasePercent} % of its old value and at or above the minimum rate; the increase timer, the
 * byte counter and both event counters restart. <b>Alpha decay</b>: every K without a CNP, {@code α = (1-g)·α}.
 * <p>
 * <b>Increase</b>: an event each time the timer T expires (counted in {@code Ti}) and each time B more bytes have
 * been sent (counted in {@code BCi}); the counters are bumped first, then, as in the paper's state machine:
 * <ul>
 *   <li>fast recovery while {@code max(Ti, BCi) ≤ F}: {@code Rc = (Rt + Rc)/2};</li>
 *   <li>hyper increase once {@code min(Ti, BCi) > F}: {@code Rt += R_HAI; Rc = (Rt + Rc)/2};</li>
 *   <li>additive increase otherwise: {@code Rt += R_AI; Rc = (Rt + Rc)/2}.</li>
 * </ul>
 * So one counter alone gives F fast-recovery steps and then additive steps; hyper increase needs both past F.
 * Rt is capped at line rate; the halving rounds up so that Rc reaches Rt instead of stalling one bit/s short.
 * Once Rc is at line rate the QP is uncongested: no increase timer, bytes are not counted.
 * <p>
 * Rates are whole bits/s (long), α a double. Before the first CNP: Rc = Rt = line rate, α = 1 (the paper's
 * initial value) and no timer runs.
 * <p>
 * Choices the paper leaves open: hyper increase adds a constant R_HAI per event (QCN and some simulators add
 * {@code (min(Ti, BCi) - F)·R_HAI}); the timers start at the first CNP; the halving rounds up; Rt is capped at line
 * rate; the floors (minimum rate, minimum decrease factor) are ConnectX's.
 */
public final class DcqcnReactionPoint
{
    private static final long NOT_ARMED = Long.MAX_VALUE;

    private final double g;
    private final double oneMinusG;
    private final long alphaUpdatePeriodNs;
    private final long rateIncreasePeriodNs;
    private final long byteCounterBytes;
    private final long fastRecoveryThreshold;
    private final long additiveIncreaseBitsPerSec;
    private final long hyperIncreaseBitsPerSec;
    private final long minRateBitsPerSec;
    private final long lineRateBitsPerSec;
    private final long minDecreasePercent;

    private long rateBitsPerSec;
    private long targetRateBitsPerSec;
    private double alpha;
    private boolean alphaTimerArmed;
    private long nextAlphaUpdateNs;
    /** Rc below line rate: the increase timer runs and bytes count. */
    private boolean recovering;
    private long nextRateIncreaseNs;
    private long timerEvents;
    private long byteCounterEvents;
    private long bytesSinceByteEvent;
    private long cnpsReceived;

    public DcqcnReactionPoint(final DcqcnParameters parameters)
    {
        g = parameters.g();
        oneMinusG = 1.0 - g;
        alphaUpdatePeriodNs = parameters.alphaUpdatePeriodNs();
        rateIncreasePeriodNs = parameters.rateIncreasePeriodNs();
        byteCounterBytes = parameters.byteCounterBytes();
        fastRecoveryThreshold = parameters.fastRecoveryThreshold();
        additiveIncreaseBitsPerSec = parameters.additiveIncreaseBitsPerSec();
        hyperIncreaseBitsPerSec = parameters.hyperIncreaseBitsPerSec();
        minRateBitsPerSec = parameters.minRateBitsPerSec();
        lineRateBitsPerSec = parameters.lineRateBitsPerSec();
        minDecreasePercent = parameters.minDecreasePercent();
        reset();
    }

    /** Back to line rate, α = 1, no timers, counters at zero (a QP reused for a new connection). */
    public void reset()
    {
        rateBitsPerSec = lineRateBitsPerSec;
        targetRateBitsPerSec = lineRateBitsPerSec;
        alpha = 1.0;
        alphaTimerArmed = false;
        nextAlphaUpdateNs = NOT_ARMED;
        recovering = false;
        nextRateIncreaseNs = NOT_ARMED;
        timerEvents = 0;
        byteCounterEvents = 0;
        bytesSinceByteEvent = 0;
        cnpsReceived = 0;
    }

    /** A CNP for this QP arrived at {@code nowNs}: timer events due before it are applied first. */
    public void onCnp(final long nowNs)
    {
        advance(nowNs);
        cnpsReceived++;
        final long rate = rateBitsPerSec;
        targetRateBitsPerSec = rate;
        long cut = (long)(rate * (1.0 - alpha * 0.5));
        cut = Math.max(cut, rate * minDecreasePercent / 100);
        rateBitsPerSec = Math.max(cut, minRateBitsPerSec);
        alpha = oneMinusG * alpha + g;

        timerEvents = 0;
        byteCounterEvents = 0;
        bytesSinceByteEvent = 0;
        alphaTimerArmed = true;
        nextAlphaUpdateNs = nowNs + alphaUpdatePeriodNs;
        recovering = rateBitsPerSec < lineRateBitsPerSec;
        nextRateIncreaseNs = recovering ? nowNs + rateIncreasePeriodNs : NOT_ARMED;
    }

    /**
     * {@code bytes} were sent at {@code nowNs}: applies the timer events due (as {@link #advance}), then counts the
     * bytes towards the byte counter, one increase event per B bytes. Two comparisons and an addition when no
     * event is due.
     */
    public void onBytesSent(final int bytes, final long nowNs)
    {
        advance(nowNs);
        if (!recovering || byteCounterBytes == 0)
        {
            return;
        }
        long counted = bytesSinceByteEvent + bytes;
        while (counted >= byteCounterBytes && recovering)
        {
            counted -= byteCounterBytes;
            byteCounterEvents++;
            increase();
        }
        bytesSinceByteEvent = counted;
    }

    /**
     * Applies every alpha-decay and increase-timer event due at or before {@code nowNs}, as if each had been
     * applied at its own time. Bounded work after any gap: the alpha decay is one {@code pow}; the increase events
     * are stepped only while Rc approaches its steady distance below Rt (at most F + ~64 steps), then jumped over
     * in one multiplication, and stop once Rc is at line rate.
     */
    public void advance(final long nowNs)
    {
        if (alphaTimerArmed && nowNs - nextAlphaUpdateNs >= 0)
        {
            final long periods = (nowNs - nextAlphaUpdateNs) / alphaUpdatePeriodNs + 1;
            alpha = periods == 1 ? alpha * oneMinusG : alpha * Math.pow(oneMinusG, periods);
            nextAlphaUpdateNs += periods * alphaUpdatePeriodNs;
        }
        if (recovering && nowNs - nextRateIncreaseNs >= 0)
        {
            final long periods = (nowNs - nextRateIncreaseNs) / rateIncreasePeriodNs + 1;
            nextRateIncreaseNs += periods * rateIncreasePeriodNs;
            timerEvents(periods);
            if (!recovering)
            {
                nextRateIncreaseNs = NOT_ARMED;
            }
        }
    }

    /** Rc: the rate this QP may send at now. */
    public long rateBitsPerSec()
    {
        return rateBitsPerSec;
    }

    /** Rt: the rate Rc recovers towards. */
    public long targetRateBitsPerSec()
    {
        return targetRateBitsPerSec;
    }

    public double alpha()
    {
        return alpha;
    }

    public long cnpsReceived()
    {
        return cnpsReceived;
    }

    /** Rc below line rate: the QP is recovering from a CNP. */
    public boolean isRecovering()
    {
        return recovering;
    }

    /**
     * When the next increase timer event is due, {@link Long#MAX_VALUE} when at line rate: the only deadline that
     * changes the rate without traffic, e.g. for a timer wheel. (Alpha decay needs no wake-up: {@link #advance}
     * catches up on it in one step.)
     */
    public long nextRateIncreaseNs()
    {
        return recovering ? nextRateIncreaseNs : NOT_ARMED;
    }

    /** Increase events from the timer since the last CNP (Ti). */
    public long timerEvents()
    {
        return timerEvents;
    }

    /** Increase events from the byte counter since the last CNP (BCi). */
    public long byteCounterEvents()
    {
        return byteCounterEvents;
    }

    private void timerEvents(final long periods)
    {
        long remaining = periods;
        while (remaining > 0 && recovering)
        {
            if (timerEvents >= fastRecoveryThreshold && remaining > 1)
            {
                // Past fast recovery, with the byte counter frozen the step a stays the same. The gap d = Rt - Rc
                // moves as d' = floor((d + a)/2) and settles at a or a - 1 within ~64 events; from then on each
                // event adds a to both rates until Rt would pass line rate: jump those events at once.
                final long step = byteCounterEvents > fastRecoveryThreshold ?
                    hyperIncreaseBitsPerSec : additiveIncreaseBitsPerSec;
                final long gap = targetRateBitsPerSec - rateBitsPerSec;
                if (gap == step || gap == step - 1)
                {
                    final long jump = Math.min(remaining - 1, (lineRateBitsPerSec - targetRateBitsPerSec) / step);
                    if (jump > 0)
                    {
                        targetRateBitsPerSec += jump * step;
                        rateBitsPerSec += jump * step;
                        timerEvents += jump;
                        remaining -= jump;
                    }
                }
            }
            timerEvents++;
            remaining--;
            increase();
        }
    }

    /** One increase event, its counter already bumped. */
    private void increase()
    {
        final long f = fastRecoveryThreshold;
        final long ti = timerEvents;
        final long bci = byteCounterEvents;
        if (Math.max(ti, bci) > f)
        {
            final long step = Math.min(ti, bci) > f ? hyperIncreaseBitsPerSec : additiveIncreaseBitsPerSec;
            targetRateBitsPerSec = Math.min(targetRateBitsPerSec + step, lineRateBitsPerSec);
        }
        rateBitsPerSec += (targetRateBitsPerSec - rateBitsPerSec + 1) >> 1; // (Rt + Rc)/2, rounded up
        if (rateBitsPerSec >= lineRateBitsPerSec)
        {
            rateBitsPerSec = lineRateBitsPerSec;
            recovering = false;
        }
    }
}
