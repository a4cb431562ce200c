package io.rnic.cli;

import io.rnic.cnc.CncFile;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.errors.DistinctErrorLog;
import org.agrona.concurrent.status.CountersManager;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A CnC file as a driver lays it out, made in a test's directory: counters in a {@link CountersManager} over its
 * buffers, a {@link DistinctErrorLog} over its error log; {@link #markReady} as the driver's last step. What the
 * commands under test read, they read from the mapped file, as from another process.
 */
final class DriverCncFixture implements AutoCloseable
{
    static final long CLIENT_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(5);

    final CncFile cnc;
    final CountersManager counters;
    final DistinctErrorLog errors;

    DriverCncFixture(final Path directory)
    {
        cnc = CncFile.create(directory, new CncFile.Lengths(1 << 12, 1 << 12, 64, 1 << 14, 1 << 12), CLIENT_TIMEOUT_NS);
        final EpochClock clock = System::currentTimeMillis;
        counters = new CountersManager(cnc.countersMetadataBuffer(), cnc.countersValuesBuffer(),
            StandardCharsets.US_ASCII, clock, 0);
        errors = new DistinctErrorLog(cnc.errorLogBuffer(), clock);
    }

    DriverCncFixture markReady()
    {
        cnc.heartbeat(System.currentTimeMillis());
        cnc.markReady();
        return this;
    }

    public void close()
    {
        cnc.close();
    }
}
