package io.rnic.datapath.driver;

import io.rnic.cnc.CncException;

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
 * One driver per directory: an exclusive lock on {@code driver.lock}, holding the driver's pid for the message of the
 * one refused. The OS drops it when the process dies, so a crashed driver leaves no stale lock. This JVM's holders are
 * also kept in a set: a POSIX lock is per process, and a second open of the file in the same JVM would not be refused.
 */
final class DirectoryLock implements AutoCloseable
{
    static final String FILE_NAME = "driver.lock";
    private static final Set<Path> HELD = ConcurrentHashMap.newKeySet();

    private final Path path;
    private final FileChannel channel;
    private final FileLock lock;
    private boolean closed;

    private DirectoryLock(final Path path, final FileChannel channel, final FileLock lock)
    {
        this.path = path;
        this.channel = channel;
        this.lock = lock;
    }

    static DirectoryLock acquire(final Path directory)
    {
        final Path path = directory.resolve(FILE_NAME).toAbsolutePath().normalize();
        if (!HELD.add(path))
        {
            throw refused(directory, ProcessHandle.current().pid());
        }
        FileChannel channel = null;
        try
        {
            channel = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE);
            final FileLock lock = channel.tryLock();
            if (lock == null)
            {
                long holder;
                try
                {
                    holder = Long.parseLong(Files.readString(path, StandardCharsets.US_ASCII).trim());
                }
                catch (final IOException | NumberFormatException ex)
                {
                    holder = -1;
                }
                channel.close();
                throw refused(directory, holder);
            }
            channel.truncate(0);
            channel.write(ByteBuffer.wrap((ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.US_ASCII)),
                0);
            return new DirectoryLock(path, channel, lock);
        }
        catch (final IOException ex)
        {
            closeQuietly(channel);
            HELD.remove(path);
            throw new CncException("cannot lock " + path + ": " + ex.getMessage() + " (choose another --dir)");
        }
        catch (final RuntimeException ex)
        {
            HELD.remove(path);
            throw ex;
        }
    }

    private static CncException refused(final Path directory, final long pid)
    {
        return new CncException("another rnic driver (pid " + (pid < 0 ? "unknown" : String.valueOf(pid)) +
            ") serves " + directory + ": attach to it with --driver " + directory + ", or stop it first");
    }

    public void close()
    {
        if (!closed)
        {
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
