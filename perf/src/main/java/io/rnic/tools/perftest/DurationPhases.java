package io.rnic.tools.perftest;

/**
 * perftest's {@code -D}: a warm-up of a quarter of the duration in whole seconds (its margin, none under 4 s), the
 * measurement for the duration less two margins, a cool-down of one margin, then the end. Iterations count in the
 * measurement only. The application advances it with its duty cycle's clock reading, and counts into it; the tool
 * reads the count and the measured time once the application is done. With {@code --run_infinitely} the
 * measurement lasts until {@link #stop}, and the tool reads the count as it goes.
 */
final class DurationPhases
{
    static final int WARMUP = 0;
    static final int MEASURE = 1;
    static final int COOLDOWN = 2;
    static final int END = 3;

    private final long marginNs;
    private final long measureNs;
    private final boolean infinite;
    private boolean started;
    private long startNs;
    private long measureStartNs;
    private long measureEndNs;
    private long lastNowNs;
    private int phase = WARMUP;
    private volatile boolean stopRequested;
    private volatile long measured;

    private DurationPhases(final long marginNs, final long measureNs, final boolean infinite)
    {
        this.marginNs = marginNs;
        this.measureNs = measureNs;
        this.infinite = infinite;
    }

    /** -D SECONDS as perftest runs it. */
    static DurationPhases of(final int durationS)
    {
        final long marginNs = (durationS / 4) * 1_000_000_000L;
        return new DurationPhases(marginNs, durationS * 1_000_000_000L - 2 * marginNs, false);
    }

    /** --run_infinitely: measures from the start until {@link #stop}. */
    static DurationPhases infinite()
    {
        return new DurationPhases(0, Long.MAX_VALUE, true);
    }

    /** The phase at {@code nowNs}, moving on as time passes; the first call starts the warm-up. */
    int advance(final long nowNs)
    {
        if (!started)
        {
            started = true;
            startNs = nowNs;
        }
        lastNowNs = nowNs;
        final long elapsedNs = nowNs - startNs;
        if (phase == WARMUP && elapsedNs >= marginNs)
        {
            phase = MEASURE;
            measureStartNs = nowNs;
        }
        if (phase == MEASURE && (infinite ? stopRequested : elapsedNs - marginNs >= measureNs))
        {
            phase = COOLDOWN;
            measureEndNs = nowNs;
        }
        if (phase == COOLDOWN && (infinite || elapsedNs - marginNs - measureNs >= marginNs))
        {
            phase = END;
        }
        return phase;
    }

    int phase()
    {
        return phase;
    }

    /** Whether a round trip ending now belongs to the measurement (without -D: every one after the warm-up). */
    static boolean measuring(final DurationPhases phases)
    {
        return phases == null || phases.phase == MEASURE;
    }

    boolean isInfinite()
    {
        return infinite;
    }

    /** Counts iterations done now: only in the measurement. */
    void count(final long iterations)
    {
        if (phase == MEASURE)
        {
            measured += iterations; // one writer: the application's thread
        }
    }

    /** Iterations counted in the measurement (so far, with --run_infinitely). */
    long measured()
    {
        return measured;
    }

    /**
     * How long the measurement lasted (read once the application is done): to the last reading when the run ended
     * before the measurement did (a server whose client ended the run first); 0 when it never began.
     */
    long measuredNs()
    {
        if (phase == WARMUP)
        {
            return 0;
        }
        return (phase == MEASURE ? lastNowNs : measureEndNs) - measureStartNs;
    }

    /** Ends --run_infinitely's measurement at the application's next duty cycle (from any thread). */
    void stop()
    {
        stopRequested = true;
    }
}
