package io.rnic.cnc;

import io.rnic.shm.PidLockFile;
import io.rnic.shm.ShmException;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Whether the process of the driver serving a directory still runs. The driver holds {@link #LOCK_FILE_NAME} in its
 * directory ({@link PidLockFile}) from before it creates its CnC file until after it has removed it, and the OS drops
 * the lock when the process dies, however it dies: a CnC file whose lock nobody holds is a dead driver's, known at
 * once, where its frozen heartbeat tells only after the client timeout.
 */
public final class DriverProcess
{
    /** The driver's lock in its directory: one driver per directory, and the sign that its process lives. */
    public static final String LOCK_FILE_NAME = "driver.lock";

    private DriverProcess()
    {
    }

    /**
     * Null while a live process holds the lock of the driver at {@code directory}; otherwise one line saying that the
     * driver ({@code pid}, as its CnC file names it) is not running. Null too when the lock cannot be read (another
     * user's directory): the heartbeat then decides alone.
     */
    public static String notRunning(final Path directory, final long pid)
    {
        try
        {
            return PidLockFile.isHeld(directory.resolve(LOCK_FILE_NAME)) ? null : notRunningMessage(directory, pid);
        }
        catch (final IOException | ShmException ex)
        {
            return null;
        }
    }

    /** What {@link #notRunning} says: the driver's process is gone though its CnC file is still there. */
    public static String notRunningMessage(final Path directory, final long pid)
    {
        return "the rnic driver at " + directory + " (pid " + pid + ") is not running: no process holds " +
            directory.resolve(LOCK_FILE_NAME) + " (it was killed or crashed)";
    }
}
