package io.rnic.datapath.endpoint;

import io.rnic.datapath.port.PortException;
import io.rnic.shm.PidLockFile;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * One AF_PACKET endpoint per interface: two would both number QPs from 2 and both answer every frame. A
 * {@link PidLockFile} on {@code <directory>/afpacket-<netns>-<ifname>.lock} (the network namespace's inode number:
 * containers and test namespaces reuse interface names such as eth0, and theirs are other interfaces).
 */
final class InterfaceLock implements AutoCloseable
{
    /** The directory of the lock files; root's by default (AF_PACKET needs CAP_NET_RAW anyway). */
    static final String DIRECTORY_PROP_NAME = "rnic.lock.dir";
    static final String DIRECTORY_DEFAULT = "/run/rnic";

    private final PidLockFile lock;

    private InterfaceLock(final PidLockFile lock)
    {
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
        final PidLockFile lock;
        try
        {
            if (!Files.isDirectory(directory))
            {
                Files.createDirectories(directory,
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-x---")));
            }
            lock = PidLockFile.tryAcquire(path);
        }
        catch (final IOException ex)
        {
            throw new PortException("cannot lock " + iface + " for this endpoint (lock " + path + "): " + ex +
                " (set -D" + DIRECTORY_PROP_NAME + " to a writable directory)");
        }
        if (lock == null)
        {
            throw refused(iface, path, PidLockFile.holder(path));
        }
        return new InterfaceLock(lock);
    }

    Path path()
    {
        return lock.path();
    }

    /** Removes the lock file and releases the lock (see {@link PidLockFile#close}). Idempotent. */
    @Override
    public void close()
    {
        lock.close();
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
}
