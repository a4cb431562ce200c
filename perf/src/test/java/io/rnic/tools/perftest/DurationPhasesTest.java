package io.rnic.tools.perftest;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** perftest's -D phases on an injected clock: warm-up, measurement, cool-down, end; counts in the measurement only. */
class DurationPhasesTest
{
    private static final long S = 1_000_000_000L;

    @Test
    void shouldRunPerftestsPhasesWithAQuarterAsMargin()
    {
        final DurationPhases phases = DurationPhases.of(8); // margin 8 / 4 = 2 s, measurement 4 s
        final long t0 = 1_000 * S;
        assertEquals(DurationPhases.WARMUP, phases.advance(t0));
        phases.count(5);
        assertEquals(DurationPhases.WARMUP, phases.advance(t0 + 2 * S - 1));
        assertEquals(DurationPhases.MEASURE, phases.advance(t0 + 2 * S));
        phases.count(7);
        assertEquals(DurationPhases.MEASURE, phases.advance(t0 + 6 * S - 1));
        phases.count(3);
        assertEquals(DurationPhases.COOLDOWN, phases.advance(t0 + 6 * S + 10));
        phases.count(100);
        assertEquals(DurationPhases.COOLDOWN, phases.advance(t0 + 8 * S - 1));
        assertEquals(DurationPhases.END, phases.advance(t0 + 8 * S));
        assertEquals(10, phases.measured());
        assertEquals(4 * S + 10, phases.measuredNs());
    }

    @Test
    void shouldMeasureFromTheStartUnderFourSeconds()
    {
        final DurationPhases phases = DurationPhases.of(3); // perftest's margin: 3 / 4 = 0 whole seconds
        assertEquals(DurationPhases.MEASURE, phases.advance(0));
        phases.count(2);
        assertEquals(DurationPhases.MEASURE, phases.advance(3 * S - 1));
        assertEquals(DurationPhases.END, phases.advance(3 * S));
        assertEquals(2, phases.measured());
        assertEquals(3 * S, phases.measuredNs());
    }

    /** A server whose client ended the run first: its measurement ends with its last clock reading. */
    @Test
    void shouldEndTheMeasurementWithTheRun()
    {
        final DurationPhases phases = DurationPhases.of(8);
        assertEquals(0, phases.measuredNs());
        phases.advance(0);
        phases.advance(2 * S);
        phases.count(3);
        assertEquals(DurationPhases.MEASURE, phases.advance(5 * S));
        assertEquals(3 * S, phases.measuredNs());
        assertEquals(3, phases.measured());
    }

    @Test
    void shouldMeasureUntilStoppedWhenInfinite()
    {
        final DurationPhases phases = DurationPhases.infinite();
        assertEquals(DurationPhases.MEASURE, phases.advance(0));
        phases.count(4);
        assertEquals(DurationPhases.MEASURE, phases.advance(365 * 86_400 * S));
        phases.stop();
        assertEquals(DurationPhases.END, phases.advance(365 * 86_400 * S + 1));
        phases.count(9);
        assertEquals(4, phases.measured());
        assertEquals(365 * 86_400 * S + 1, phases.measuredNs());
    }
}
