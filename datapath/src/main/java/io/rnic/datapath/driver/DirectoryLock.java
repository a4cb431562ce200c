package io.rnic.datapath.driver;

import io.rnic.cnc.CncException;
import io.rnic.datapath.endpoint.PidLockFile;

import java.io.IOException;
import java.nio.file.Path;

/**
 * One driver per directory: a {@link PidLockFile} on {@code driver.lock}, whose holder's pid names the driver that
 * refused the second one. The OS drops it when the process dies, so a crashed driver leaves no stale lock.
 */
final class DirectoryLock implements AutoCloseable
{
    static final String FILE_NAME = "driver.lock";

    private final PidLockFile lock;

    private DirectoryLock(final PidLockFile lock)
    {
        this.lock = lock;
    }

    static DirectoryLock acquire(final Path directory)
    {
        final Path path = directory.resolve(FILE_NAME);
        final PidLockFile lock;
        try
        {
            lock = PidLockFile.tryAcquire(path);
        }
        catch (final IOException ex)
        {
            throw new CncException("cannot lock " + path + ": " + ex.getMessage() + " (choose another --dir)");
        }
        if (lock == null)
        {
            final long pid = PidLockFile.holder(path);
            throw new CncException("another rnic driver (pid " + (pid < 0 ? "unknown" : String.valueOf(pid)) +
                ") serves " + directory + ": attach to it with --driver " + directory + ", or stop it first");
        }
        return new DirectoryLock(lock);
    }

    public void close()
    {
        lock.close();
    }
}
