package io.rnic.tools.perftest;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LatencyLogTest
{
    @Test
    void shouldAddEveryIntervalToTheTotalAndLogOnlyIntervalsThatHoldRoundTrips(@TempDir final Path dir)
        throws Exception
    {
        final Path file = dir.resolve("run.hlog");
        final LatencyLog latency = new LatencyLog();
        latency.start(file, "rnic write-lat -s 2: round trips in ns");
        latency.record(2_000);
        latency.record(3_000);
        latency.drainInterval();
        latency.drainInterval(); // nothing recorded since: no empty interval in the log
        latency.record(60_000_000_000L);
        latency.finish();

        final Histogram total = latency.total();
        assertEquals(3, total.getTotalCount());
        assertEquals(2_000, total.getMinValue(), 2);
        assertEquals(60_000_000_000L, total.getMaxValue(), 60_000_000_000L / 1000);
        assertTrue(Files.readString(file).startsWith("#rnic write-lat -s 2: round trips in ns"), Files.readString(file));
        final HistogramLogReader reader = new HistogramLogReader(file.toFile());
        assertEquals(2, ((Histogram)reader.nextIntervalHistogram()).getTotalCount());
        assertEquals(1, ((Histogram)reader.nextIntervalHistogram()).getTotalCount());
        assertNull(reader.nextIntervalHistogram());
        reader.close();
    }

    @Test
    void shouldCollectTheTotalWithoutALogFile() throws Exception
    {
        final LatencyLog latency = new LatencyLog();
        latency.start(null, "no --hlog");
        latency.record(1_500);
        latency.finish();
        assertEquals(1, latency.total().getTotalCount());
    }
}
