package io.rnic.datapath.endpoint;

import io.rnic.datapath.port.PortException;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One AF_PACKET endpoint per interface: two would both number QPs from 2 and both answer every frame. An exclusive
 * lock on {@code <directory>/afpacket-<netns>-<ifname>.lock} (the network namespace's inode number: containers and
 * test namespaces reuse interface names such as eth0, and theirs are other interfaces), with the holder's pid written in the file for the message of
 * the one refused. The OS releases the lock when the process dies, so no stale lock survives a crash.
 * <p>
 * The lock is a POSIX record lock, which is per process and released when the process closes <em>any</em>
 * descriptor of the file: a second start in the same JVM must not even open the file, so this JVM's holders are also
 * kept in {@link #HELD} and checked first.
 */
final class InterfaceLock implements AutoCloseable
{
    /** The directory of the lock files; root's by default (AF_PACKET needs CAP_NET_RAW anyway). */
    static final String DIRECTORY_PROP_NAME = "rnic.lock.dir";
    static final String DIRECTORY_DEFAULT = "/run/rnic";

    /** The lock files this JVM holds. */
    private static final Set<Path> HELD = ConcurrentHashMap.newKeySet();

    private final Path path;
    private final FileChannel channel;
    private final FileLock lock;
    private boolean closed;

    private InterfaceLock(final Path path, final FileChannel channel, final FileLock lock)
    {
        this.path = path;
        this.channel = channel;
        this.lock = lock;
    }

    /** The lock of {@code iface} in the directory {@link #DIRECTORY_PROP_NAME} names. */
    static InterfaceLock acquire(final String iface)
    {
        return acquire(Path.of(System.getProperty(DIRECTORY_PROP_NAME, DIRECTORY_DEFAULT)), iface);
    }

    /**
     * Takes the lock of {@code iface}, creating {@code directory} (0750) when it is missing.
     *
     * @throws PortException naming the interface, the lock file and the holder's pid when another endpoint holds it,
     *                       or what failed with the directory.
     */
    static InterfaceLock acquire(final Path directory, final String iface)
    {
        final Path path = directory.resolve(fileName(iface));
        if (!HELD.add(path))
        {
            throw refused(iface, path, ProcessHandle.current().pid());
        }
        FileChannel channel = null;
        try
        {
            if (!Files.isDirectory(directory))
            {
                Files.createDirectories(directory,
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-x---")));
            }
            channel = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE);
            final FileLock lock = channel.tryLock();
            if (lock == null)
            {
                final long holder = holder(path);
                channel.close();
                throw refused(iface, path, holder);
            }
            channel.truncate(0);
            channel.write(ByteBuffer.wrap((ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.US_ASCII)),
                0);
            return new InterfaceLock(path, channel, lock);
        }
        catch (final IOException ex)
        {
            closeQuietly(channel);
            HELD.remove(path);
            throw new PortException("cannot lock " + iface + " for this endpoint (lock " + path + "): " + ex +
                " (set -D" + DIRECTORY_PROP_NAME + " to a writable directory)");
        }
        catch (final RuntimeException ex)
        {
            HELD.remove(path);
            throw ex;
        }
    }

    Path path()
    {
        return path;
    }

    /** Releases the lock; the file stays (removing it would race with a starter that has it open). Idempotent. */
    @Override
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
            // the channel's close below releases it too
        }
        closeQuietly(channel);
        HELD.remove(path);
    }

    /** The lock file's name for an interface of this process's network namespace. */
    static String fileName(final String iface)
    {
        String namespace;
        try
        {
            // "net:[4026531840]": the namespace's inode number identifies it for as long as it exists
            namespace = Files.readSymbolicLink(Path.of("/proc/self/ns/net")).toString().replaceAll("[^0-9]", "");
        }
        catch (final IOException | UnsupportedOperationException ex)
        {
            namespace = "unknown"; // no /proc: one namespace as far as we can tell
        }
        return "afpacket-" + namespace + "-" + iface + ".lock";
    }

    private static PortException refused(final String iface, final Path path, final long pid)
    {
        return new PortException("another rnic endpoint already runs on " + iface + " (lock " + path +
            ", held by pid " + (pid < 0 ? "unknown" : String.valueOf(pid)) + "): if it is `bin/rnic driver`, run as " +
            "its client with --driver /dev/shm/rnic-" + iface + "; otherwise stop it first");
    }

    /** The pid the holder wrote, or -1 when it is not (yet) there. */
    private static long holder(final Path path)
    {
        try
        {
            return Long.parseLong(Files.readString(path, StandardCharsets.US_ASCII).trim());
        }
        catch (final IOException | NumberFormatException ex)
        {
            return -1;
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
