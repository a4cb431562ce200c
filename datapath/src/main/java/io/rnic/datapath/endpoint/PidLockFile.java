package io.rnic.datapath.endpoint;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * An exclusive lock on a file that holds its holder's pid, for the message of the one refused: one endpoint per
 * interface ({@link InterfaceLock}), one driver per directory. The OS releases it when the process dies, so no stale
 * lock survives a crash. The lock is a POSIX record lock, which is per process and released when the process closes
 * <em>any</em> descriptor of the file: a second taker in the same JVM must not even open the file, so this JVM's
 * holders are also kept in a set and checked first.
 */
public final class PidLockFile implements AutoCloseable
{
    /** The lock files this JVM holds. */
    private static final Set<Path> HELD = ConcurrentHashMap.newKeySet();

    private final Path path;
    private final FileChannel channel;
    private final FileLock lock;
    private boolean closed;

    private PidLockFile(final Path path, final FileChannel channel, final FileLock lock)
    {
        this.path = path;
        this.channel = channel;
        this.lock = lock;
    }

    /**
     * Takes the lock of {@code path} (its directory must exist), writing this process's pid into it.
     *
     * @return the lock, or null when another holds it ({@link #holder} names it).
     * @throws IOException when the file cannot be opened or written.
     */
    public static PidLockFile tryAcquire(final Path path) throws IOException
    {
        final Path key = path.toAbsolutePath().normalize();
        if (!HELD.add(key))
        {
            return null;
        }
        FileChannel channel = null;
        try
        {
            channel = FileChannel.open(key, StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE);
            final FileLock lock = channel.tryLock();
            if (lock == null)
            {
                channel.close();
                HELD.remove(key);
                return null;
            }
            channel.truncate(0);
            channel.write(ByteBuffer.wrap((ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.US_ASCII)),
                0);
            return new PidLockFile(key, channel, lock);
        }
        catch (final IOException | RuntimeException ex)
        {
            closeQuietly(channel);
            HELD.remove(key);
            throw ex;
        }
    }

    /** The pid the holder of {@code path} wrote: this process's when it holds it, -1 when it is not (yet) there. */
    public static long holder(final Path path)
    {
        if (HELD.contains(path.toAbsolutePath().normalize()))
        {
            return ProcessHandle.current().pid();
        }
        try
        {
            return Long.parseLong(Files.readString(path, StandardCharsets.US_ASCII).trim());
        }
        catch (final IOException | NumberFormatException ex)
        {
            return -1;
        }
    }

    public Path path()
    {
        return path;
    }

    /** Releases the lock; the file stays (removing it would race with a taker that has it open). Idempotent. */
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        try
        {
            lock.release();
        }
        catch (final IOException ignored)
        {
            // closing the channel releases it too
        }
        closeQuietly(channel);
        HELD.remove(path);
    }

    private static void closeQuietly(final FileChannel channel)
    {
        if (channel != null)
        {
            try
            {
                channel.close();
            }
            catch (final IOException ignored)
            {
                // nothing more to release
            }
        }
    }
}
