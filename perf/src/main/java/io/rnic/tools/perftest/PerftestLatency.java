package io.rnic.tools.perftest;

import java.util.Arrays;

/**
 * perftest's latency line ({@code print_report_lat}) from a run's round trips: the samples sorted, the two largest
 * left out (perftest's {@code LAT_MEASURE_TAIL}), and of the {@code m} that remain: t_min the first, t_max the one at
 * {@code m} (the second largest sample), t_typical their median, t_avg and t_stdev over them, and the 99% and 99.9%
 * percentiles the samples at {@code ceil(m * 0.99)} and {@code ceil(m * 0.999)}. Each is divided by the round-trip
 * factor: 2 for WRITE and SEND (half the round trip), 1 for READ and atomics, as perftest does. One difference:
 * perftest truncates each deviation to whole microseconds before squaring it; t_stdev here is exact.
 */
record PerftestLatency(double minUs, double maxUs, double typicalUs, double averageUs, double stdevUs,
    double percentile99Us, double percentile999Us)
{
    /** Samples perftest leaves out at the top. */
    static final int MEASURE_TAIL = 2;

    /**
     * @param roundTripsNs the round trips in ns, any order (not changed); at least one.
     * @param rttFactor    2 to report half the round trip, 1 for the full round trip.
     */
    static PerftestLatency of(final long[] roundTripsNs, final int rttFactor)
    {
        if (roundTripsNs.length == 0)
        {
            throw new IllegalArgumentException("no round trips");
        }
        final long[] sorted = roundTripsNs.clone();
        Arrays.sort(sorted);
        // perftest needs three samples at least; with fewer, leave out only what keeps one
        final int measured = sorted.length - Math.min(MEASURE_TAIL, sorted.length - 1);
        final double toUs = 1000.0 * rttFactor;
        final double median = (measured - 1) % 2 != 0 ?
            (sorted[measured / 2] + sorted[measured / 2 - 1]) / 2.0 : sorted[measured / 2];
        double sumUs = 0;
        for (int i = 0; i < measured; i++)
        {
            sumUs += sorted[i] / toUs;
        }
        final double averageUs = sumUs / measured;
        double squares = 0;
        for (int i = 0; i < measured; i++)
        {
            final double deviation = averageUs - sorted[i] / toUs;
            squares += deviation * deviation;
        }
        final int top = Math.min(measured, sorted.length - 1);
        return new PerftestLatency(sorted[0] / toUs, sorted[top] / toUs, median / toUs, averageUs,
            Math.sqrt(squares / measured), sorted[Math.min(top, (int)Math.ceil(measured * 0.99))] / toUs,
            sorted[Math.min(top, (int)Math.ceil(measured * 0.999))] / toUs);
    }
}
