package io.rnic.datapath.driver;

import io.rnic.cnc.CncException;
import io.rnic.cnc.DriverProcess;
import io.rnic.shm.PidLockFile;

import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * One driver per directory: a {@link PidLockFile} on {@code driver.lock}, whose holder's pid names the driver that
 * refused the second one. The OS drops it when the process dies, so a crashed driver leaves no stale lock, and a
 * reader tells a dead driver's CnC file by it ({@link DriverProcess}); a driver that stops removes it.
 */
final class DirectoryLock implements AutoCloseable
{
    static final String FILE_NAME = DriverProcess.LOCK_FILE_NAME;

    private final PidLockFile lock;

    private DirectoryLock(final PidLockFile lock)
    {
        this.lock = lock;
    }

    /**
     * Takes the lock of {@code directory}.
     *
     * @return the lock, or null when the directory vanished (a driver that stopped removed it): make it again.
     * @throws CncException naming the running driver when another one holds it, or what failed.
     */
    static DirectoryLock acquire(final Path directory)
    {
        final Path path = directory.resolve(FILE_NAME);
        final PidLockFile lock;
        try
        {
            lock = PidLockFile.tryAcquire(path);
        }
        catch (final NoSuchFileException ex)
        {
            return null;
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

    /** Removes the lock file and lets the lock go (see {@link PidLockFile#close}). */
    public void close()
    {
        lock.close();
    }
}
