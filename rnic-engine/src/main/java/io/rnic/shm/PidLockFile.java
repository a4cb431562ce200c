package io.rnic.shm;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Map;

import static io.rnic.shm.LinuxFileLocks.EACCES;
import static io.rnic.shm.LinuxFileLocks.EAGAIN;
import static io.rnic.shm.LinuxFileLocks.ENOENT;
import static io.rnic.shm.LinuxFileLocks.F_OFD_GETLK;
import static io.rnic.shm.LinuxFileLocks.F_OFD_SETLK;
import static io.rnic.shm.LinuxFileLocks.F_RDLCK;
import static io.rnic.shm.LinuxFileLocks.F_UNLCK;
import static io.rnic.shm.LinuxFileLocks.F_WRLCK;
import static io.rnic.shm.LinuxFileLocks.O_CLOEXEC;
import static io.rnic.shm.LinuxFileLocks.O_CREAT;
import static io.rnic.shm.LinuxFileLocks.O_RDONLY;
import static io.rnic.shm.LinuxFileLocks.O_RDWR;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * An exclusive lock on a file that holds its holder's pid, for the message of the one refused: one endpoint per
 * interface, one driver per directory. It is an open file description lock ({@code fcntl(F_OFD_SETLK)}): the kernel
 * drops it when the holder's process dies, so no stale lock survives a crash; it belongs to the open file, not to the
 * process, so a second taker in the same JVM is refused too and closing another descriptor of the file releases
 * nothing (a POSIX record lock would be lost so). Whether a live process holds a lock, {@link #isHeld} and
 * {@link Probe} ask without taking anything.
 * <p>
 * The holder removes the file when it lets go, while it still holds the lock; a taker locks the file it opened, then
 * checks that the path still names that file and starts again when it does not (its last holder removed it in
 * between). So a file is never removed under a holder, and no holder keeps a file that the path no longer names: the
 * classic flock-and-unlink protocol.
 */
public final class PidLockFile implements AutoCloseable
{
    private static final int MODE = 0644; // readable: whoever may read the directory may ask whether it is held
    private static final int MAX_TRIES = 1000;

    private final Path path;
    private final int fd;
    private final FileId id;
    private boolean closed;

    private PidLockFile(final Path path, final int fd, final FileId id)
    {
        this.path = path;
        this.fd = fd;
        this.id = id;
    }

    /**
     * Takes the lock of {@code path} (its directory must exist), creating the file, and writes this process's pid
     * into it.
     *
     * @return the lock, or null when another holds it ({@link #holder} names it).
     * @throws IOException when the file cannot be opened, locked or written ({@link NoSuchFileException} when its
     *                     directory is missing).
     */
    public static PidLockFile tryAcquire(final Path path) throws IOException
    {
        final Path absolute = path.toAbsolutePath().normalize();
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment state = LinuxMemfd.callState(arena);
            final MemorySegment name = arena.allocateFrom(absolute.toString());
            for (int tries = 0; tries < MAX_TRIES; tries++)
            {
                final int fd = LinuxFileLocks.open(state, name, O_RDWR | O_CREAT | O_CLOEXEC, MODE);
                if (fd < 0)
                {
                    throw failure("open", absolute, LinuxMemfd.errno(state));
                }
                boolean keep = false;
                try
                {
                    if (lock(arena, state, fd, F_OFD_SETLK, F_WRLCK) < 0)
                    {
                        final int errno = LinuxMemfd.errno(state);
                        if (errno == EAGAIN || errno == EACCES)
                        {
                            return null;
                        }
                        throw failure("lock", absolute, errno);
                    }
                    final FileId id = FileId.of(arena, state, fd, absolute);
                    if (!id.isNamedBy(absolute))
                    {
                        continue; // its holder removed it after we opened it: take the one the path names now
                    }
                    writePid(arena, state, fd, absolute);
                    keep = true;
                    return new PidLockFile(absolute, fd, id);
                }
                finally
                {
                    if (!keep)
                    {
                        LinuxMemfd.close(fd);
                    }
                }
            }
            throw new IOException(absolute + " was removed " + MAX_TRIES + " times while this process locked it");
        }
    }

    /** The pid the holder of {@code path} wrote, -1 when it is not (yet) there. */
    public static long holder(final Path path)
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

    /**
     * Whether a live process holds the lock of {@code path}; false when the file is missing (its holder let go and
     * removed it). Takes nothing: a taker at the same moment is not refused because of it.
     *
     * @throws IOException when the file exists but cannot be opened (permissions).
     */
    public static boolean isHeld(final Path path) throws IOException
    {
        try (Probe probe = Probe.open(path))
        {
            return probe.held();
        }
        catch (final NoSuchFileException ex)
        {
            return false;
        }
    }

    public Path path()
    {
        return path;
    }

    /**
     * Removes the file, then releases the lock: a taker that opened the file meanwhile finds it removed once it has
     * the lock, and takes a new one. Idempotent.
     */
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        try
        {
            if (id.isNamedBy(path))
            {
                Files.delete(path);
            }
        }
        catch (final IOException ignored)
        {
            // it stays behind: the next taker locks it all the same
        }
        LinuxMemfd.close(fd);
    }

    /**
     * A descriptor of a lock file kept open to ask, as often as needed, whether a live process still holds that file's
     * lock: a process that dies releases it, and one that stops removes the file (the descriptor then names a file
     * nobody holds).
     */
    public static final class Probe implements AutoCloseable
    {
        private final Path path;
        private final int fd;
        private boolean closed;

        private Probe(final Path path, final int fd)
        {
            this.path = path;
            this.fd = fd;
        }

        /**
         * Opens {@code path} for reading.
         *
         * @throws NoSuchFileException when it is missing; IOException when it cannot be opened.
         */
        public static Probe open(final Path path) throws IOException
        {
            try (Arena arena = Arena.ofConfined())
            {
                final MemorySegment state = LinuxMemfd.callState(arena);
                final int fd = LinuxFileLocks.open(state, arena.allocateFrom(path.toString()), O_RDONLY | O_CLOEXEC, 0);
                if (fd < 0)
                {
                    final int errno = LinuxMemfd.errno(state);
                    if (errno == ENOENT)
                    {
                        throw new NoSuchFileException(path.toString());
                    }
                    throw failure("open", path, errno);
                }
                return new Probe(path, fd);
            }
        }

        /** Whether a live process holds the lock of the file opened (F_OFD_GETLK: nothing is taken). */
        public boolean held()
        {
            try (Arena arena = Arena.ofConfined())
            {
                final MemorySegment state = LinuxMemfd.callState(arena);
                final MemorySegment flock = arena.allocate(LinuxFileLocks.FLOCK);
                flock.set(JAVA_SHORT, LinuxFileLocks.L_TYPE_OFFSET, F_RDLCK);
                if (LinuxFileLocks.fcntl(state, fd, F_OFD_GETLK, flock) < 0)
                {
                    throw new ShmException("cannot ask whether " + path + " is locked: " +
                        LinuxMemfd.strerror(LinuxMemfd.errno(state)));
                }
                return flock.get(JAVA_SHORT, LinuxFileLocks.L_TYPE_OFFSET) != F_UNLCK;
            }
        }

        public void close()
        {
            if (!closed)
            {
                closed = true;
                LinuxMemfd.close(fd);
            }
        }
    }

    private static int lock(
        final Arena arena, final MemorySegment state, final int fd, final int command, final short type)
    {
        final MemorySegment flock = arena.allocate(LinuxFileLocks.FLOCK); // zeroed: SEEK_SET, the whole file, pid 0
        flock.set(JAVA_SHORT, LinuxFileLocks.L_TYPE_OFFSET, type);
        return LinuxFileLocks.fcntl(state, fd, command, flock);
    }

    private static void writePid(final Arena arena, final MemorySegment state, final int fd, final Path path)
        throws IOException
    {
        final MemorySegment text = arena.allocateFrom(ProcessHandle.current().pid() + "\n");
        final MemorySegment bytes = text.asSlice(0, text.byteSize() - 1); // without C's terminating zero
        if (LinuxMemfd.ftruncate(state, fd, 0) < 0 || LinuxFileLocks.pwrite(state, fd, bytes, 0) != bytes.byteSize())
        {
            throw failure("write", path, LinuxMemfd.errno(state));
        }
    }

    private static IOException failure(final String what, final Path path, final int errno)
    {
        final String reason = LinuxMemfd.strerror(errno);
        return errno == ENOENT ? new NoSuchFileException(path.toString(), null, reason) :
            new IOException("cannot " + what + " " + path + ": " + reason);
    }

    /** A file's device and inode: what tells whether a path still names the file a descriptor has open. */
    private record FileId(long device, long inode)
    {
        static FileId of(final Arena arena, final MemorySegment state, final int fd, final Path path)
            throws IOException
        {
            final MemorySegment stat = arena.allocate(LinuxMemfd.STAT);
            if (LinuxMemfd.fstat(state, fd, stat) < 0)
            {
                throw failure("stat", path, LinuxMemfd.errno(state));
            }
            return new FileId(stat.get(JAVA_LONG, LinuxFileLocks.ST_DEV_OFFSET),
                stat.get(JAVA_LONG, LinuxFileLocks.ST_INO_OFFSET));
        }

        boolean isNamedBy(final Path path) throws IOException
        {
            final Map<String, Object> attributes;
            try
            {
                attributes = Files.readAttributes(path, "unix:dev,ino", LinkOption.NOFOLLOW_LINKS);
            }
            catch (final NoSuchFileException ex)
            {
                return false;
            }
            return (Long)attributes.get("dev") == device && (Long)attributes.get("ino") == inode;
        }
    }
}
