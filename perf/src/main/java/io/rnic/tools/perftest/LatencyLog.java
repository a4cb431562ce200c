package io.rnic.tools.perftest;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogWriter;
import org.HdrHistogram.SingleWriterRecorder;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * A run's round trips in HdrHistogram: the recorder the application writes on the engine thread without locks,
 * drained from the tool's thread into the total the report prints and, with {@code --hlog}, into an interval log
 * (HistogramLogWriter's format, which HdrHistogram's plotters read), so that a long run shows how it went over time.
 */
final class LatencyLog
{
    /** Round trips up to a minute, to three significant digits. */
    private static final long HIGHEST_NS = 60_000_000_000L;
    private static final int SIGNIFICANT_DIGITS = 3;

    private final SingleWriterRecorder recorder = new SingleWriterRecorder(1, HIGHEST_NS, SIGNIFICANT_DIGITS);
    private final Histogram total = new Histogram(1, HIGHEST_NS, SIGNIFICANT_DIGITS);
    private Histogram interval;
    private HistogramLogWriter log;
    /**
     * Every round trip in the order measured, for perftest's line (its median and percentiles are of the sorted
     * samples) and {@code -U}: written by the application's thread only, read once the application is done.
     */
    private long[] samples = new long[0];
    private int sampleCount;

    /** Keeps up to {@code capacity} round trips in order (allocated here, before the run: none while it runs). */
    void keepSamples(final int capacity)
    {
        samples = new long[capacity];
        sampleCount = 0;
    }

    /** Records one round trip: on the application's thread, without allocating. */
    void record(final long roundTripNs)
    {
        recorder.recordValue(roundTripNs);
        if (sampleCount < samples.length)
        {
            samples[sampleCount++] = roundTripNs;
        }
    }

    /** The round trips kept, in the order measured (read once the application is done). */
    long[] samples()
    {
        return Arrays.copyOf(samples, sampleCount);
    }

    /** Every round trip drained so far. */
    Histogram total()
    {
        return total;
    }

    /** Starts the interval log in {@code file} (the measurement starts now), or nothing when it is null. */
    void start(final Path file, final String comment) throws IOException
    {
        if (file == null)
        {
            return;
        }
        log = new HistogramLogWriter(file.toFile());
        log.outputComment(comment);
        log.outputLogFormatVersion();
        final long nowMs = System.currentTimeMillis();
        log.setBaseTime(nowMs);
        log.outputBaseTime(nowMs);
        log.outputLegend();
    }

    /** Moves what was recorded since the last call into the total and, when it holds any, into the log. */
    void drainInterval()
    {
        interval = recorder.getIntervalHistogram(interval);
        total.add(interval);
        if (log != null && interval.getTotalCount() > 0)
        {
            log.outputIntervalHistogram(interval);
        }
    }

    /** Drains the last interval and closes the log. */
    void finish()
    {
        drainInterval();
        if (log != null)
        {
            log.close();
        }
    }
}
