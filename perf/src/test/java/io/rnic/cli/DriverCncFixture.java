package io.rnic.cli;

import io.rnic.cnc.CncFile;
import io.rnic.cnc.DriverProcess;
import io.rnic.shm.PidLockFile;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.errors.DistinctErrorLog;
import org.agrona.concurrent.status.CountersManager;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A CnC file as a driver lays it out, made in a test's directory: the driver's lock held ({@link DriverProcess}),
 * counters in a {@link CountersManager} over its buffers, a {@link DistinctErrorLog} over its error log;
 * {@link #markReady} as the driver's last step, {@link #kill} what SIGKILL leaves. What the commands under test read,
 * they read from the mapped file, as from another process.
 */
final class DriverCncFixture implements AutoCloseable
{
    static final long CLIENT_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(5);

    final CncFile cnc;
    final CountersManager counters;
    final DistinctErrorLog errors;
    private final Path lockFile;
    private PidLockFile lock;

    DriverCncFixture(final Path directory)
    {
        lockFile = directory.resolve(DriverProcess.LOCK_FILE_NAME);
        try
        {
            lock = PidLockFile.tryAcquire(lockFile);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
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

    /** What a driver killed with SIGKILL leaves: its CnC file and its lock file, which no process holds. */
    void kill() throws IOException
    {
        lock.close();
        lock = null;
        Files.writeString(lockFile, ProcessHandle.current().pid() + "\n");
    }

    public void close()
    {
        cnc.close();
        if (lock != null)
        {
            lock.close();
        }
    }
}
