package io.rnic.shm;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

import static io.rnic.shm.LinuxMemfd.*;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * A sealed memfd mapped shared read/write.
 * <p>
 * The process that creates the memory (a client) sends its descriptor to the process that maps it too (the driver)
 * over a Unix socket ({@link FdSocket}, {@code SCM_RIGHTS}), which so receives its own descriptor of the same file:
 * no ptrace permission and no shared PID namespace needed.
 * The driver must survive anything the client does afterwards: a file mapped by one process and truncated by another
 * raises SIGBUS on the next access past the new end, and kills the JVM. A memfd has no name in any directory, so it
 * cannot be deleted, and {@code F_SEAL_SHRINK} makes the kernel refuse every {@code ftruncate} that would shrink it;
 * seals can be added but never removed. {@link #fromReceivedFd} therefore maps nothing that is not a memfd sealed
 * against shrinking, of exactly the size registered.
 * <p>
 * Control path only: every call allocates and makes system calls. Not thread-safe: one owner creates and closes it;
 * any thread may use {@link #segment()} in between.
 */
public final class SharedMemory implements AutoCloseable
{
    /** The seals {@link #create} adds: the size is fixed for good, and no one can lift that. */
    static final int SEALS = F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL;

    private static final long PAGE_SIZE_BYTES = 4096;
    private static final Path MEMINFO = Path.of("/proc/meminfo");
    private static final String MEMFD_LINK_PREFIX = "/memfd:";

    private final int fd;
    private final long lengthBytes;
    private final MemorySegment segment;
    private boolean closed;

    private SharedMemory(final int fd, final long lengthBytes, final MemorySegment segment)
    {
        this.fd = fd;
        this.lengthBytes = lengthBytes;
        this.segment = segment;
    }

    /**
     * {@code memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING [| MFD_HUGETLB when hugePages])},
     * {@code ftruncate(length)}, {@code fcntl(F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL)},
     * {@code mmap(PROT_READ | PROT_WRITE, MAP_SHARED)}.
     *
     * @param name        shown in {@code /proc/<pid>/fd} as {@code /memfd:<name>}: for people, not unique.
     * @param lengthBytes positive; with huge pages a multiple of {@link #pageSize pageSize(true)}.
     * @param hugePages   back it with huge pages. Without free huge pages this fails, in one line: the caller
     *                    decides whether to fall back to small pages.
     * @throws ShmException naming the memory, what failed and what to do.
     */
    public static SharedMemory create(final String name, final long lengthBytes, final boolean hugePages)
    {
        return create(name, lengthBytes, hugePages, SEALS);
    }

    /** For tests: a memfd that {@link #fromReceivedFd} must refuse, because its owner can still shrink it. */
    static SharedMemory createUnsealed(final String name, final long lengthBytes)
    {
        return create(name, lengthBytes, false, 0);
    }

    /**
     * Maps a descriptor this process received from another ({@link FdSocketServer}), once it has checked that it is a
     * memfd sealed with at least {@code F_SEAL_SHRINK} and that its size is exactly {@code expectedLengthBytes}. The
     * descriptor is closed in every case, mapped or refused: the mapping keeps the memory alive until
     * {@link #close}, whatever its owner does meanwhile (close its own descriptor, unmap, exit), and the mapper holds
     * no descriptor per region. {@link #fd()} of the result is {@code -1}.
     *
     * @throws ShmException in one line naming what is wrong and the fix.
     */
    public static SharedMemory fromReceivedFd(final int fd, final long expectedLengthBytes)
    {
        final String what = "received fd " + fd;
        if (fd < 0)
        {
            throw new ShmException("no " + what + ": a descriptor is not negative");
        }
        if (expectedLengthBytes <= 0)
        {
            throw failed(fd, what + ": expected length " + expectedLengthBytes + " is not positive");
        }
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment state = callState(arena);
            final String target = linkTarget(fd);
            final String file = what + " (" + target + ")";
            if (!target.startsWith(MEMFD_LINK_PREFIX))
            {
                throw failed(fd, file + " is not a memfd: allocate the memory with SharedMemory.create and pass " +
                    "its fd()");
            }
            final int seals = fcntl(state, fd, F_GET_SEALS, 0);
            if (seals < 0)
            {
                throw failed(fd, "cannot read the seals of " + file + ": " + strerror(errno(state)));
            }
            if ((seals & F_SEAL_SHRINK) == 0)
            {
                throw failed(fd, file + " is not sealed against shrinking (F_SEAL_SHRINK), so its owner could " +
                    "truncate it under the mapping: allocate it with SharedMemory.create, which seals it");
            }
            final MemorySegment stat = arena.allocate(STAT);
            if (fstat(state, fd, stat) < 0)
            {
                throw failed(fd, "cannot read the size of " + file + ": " + strerror(errno(state)));
            }
            final long sizeBytes = stat.get(JAVA_LONG, ST_SIZE_OFFSET);
            if (sizeBytes != expectedLengthBytes)
            {
                throw failed(fd, file + " is " + sizeBytes + " bytes, not the " + expectedLengthBytes +
                    " expected: pass the length the memory was created with");
            }
            final SharedMemory mapped = map(state, fd, expectedLengthBytes, file, false);
            LinuxMemfd.close(fd);
            return new SharedMemory(-1, expectedLengthBytes, mapped.segment);
        }
    }

    /** True when {@code /proc/meminfo} shows {@code HugePages_Free} above 0. */
    public static boolean hugePagesAvailable()
    {
        return meminfo("HugePages_Free") > 0;
    }

    /**
     * The page size lengths are rounded to: 4096, or with huge pages {@code Hugepagesize} of {@code /proc/meminfo}.
     *
     * @throws ShmException when the kernel has no huge pages at all.
     */
    public static long pageSize(final boolean hugePages)
    {
        if (!hugePages)
        {
            return PAGE_SIZE_BYTES;
        }
        final long kibibytes = meminfo("Hugepagesize");
        if (kibibytes <= 0)
        {
            throw new ShmException("no Hugepagesize in " + MEMINFO + ": this kernel has no huge pages; use " +
                "hugePages=false");
        }
        return kibibytes * 1024;
    }

    /** The descriptor of memory this process created; {@code -1} for memory received ({@link #fromReceivedFd}). */
    public int fd()
    {
        return fd;
    }

    public long lengthBytes()
    {
        return lengthBytes;
    }

    /** The mapping (global scope: valid until {@link #close()}). */
    public MemorySegment segment()
    {
        return segment;
    }

    /** {@code munmap} and {@code close}; idempotent. After it nothing may touch {@link #segment()}. */
    public void close()
    {
        if (!closed)
        {
            closed = true;
            try (Arena arena = Arena.ofConfined())
            {
                final MemorySegment state = callState(arena);
                final int unmapped = munmap(state, segment, lengthBytes);
                final int errno = errno(state);
                if (fd >= 0)
                {
                    LinuxMemfd.close(fd);
                }
                if (unmapped < 0)
                {
                    throw new ShmException("cannot unmap fd " + fd + " (" + lengthBytes + " bytes): " +
                        strerror(errno));
                }
            }
        }
    }

    /**
     * For tests: {@code ftruncate} of this memory's descriptor, as its owner could do it.
     *
     * @return 0, or the errno of the refusal.
     */
    int truncate(final long newLengthBytes)
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment state = callState(arena);
            return ftruncate(state, fd, newLengthBytes) < 0 ? errno(state) : 0;
        }
    }

    private static SharedMemory create(
        final String name, final long lengthBytes, final boolean hugePages, final int seals)
    {
        Objects.requireNonNull(name, "name");
        final String what = "memfd " + name + " (" + lengthBytes + " bytes" + (hugePages ? " on huge pages)" : ")");
        if (lengthBytes <= 0)
        {
            throw new ShmException("cannot create " + what + ": the length must be positive");
        }
        if (hugePages && lengthBytes % pageSize(true) != 0)
        {
            throw new ShmException("cannot create " + what + ": not a multiple of the huge page size " +
                pageSize(true) + "; round it up to SharedMemory.pageSize(true)");
        }
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment state = callState(arena);
            final int fd = memfdCreate(state, arena.allocateFrom(name),
                MFD_CLOEXEC | MFD_ALLOW_SEALING | (hugePages ? MFD_HUGETLB : 0));
            if (fd < 0)
            {
                throw new ShmException("cannot create " + what + ": " + strerror(errno(state)));
            }
            if (ftruncate(state, fd, lengthBytes) < 0)
            {
                throw failed(fd, "cannot size " + what + ": " + strerror(errno(state)));
            }
            if (seals != 0 && fcntl(state, fd, F_ADD_SEALS, seals) < 0)
            {
                throw failed(fd, "cannot seal " + what + ": " + strerror(errno(state)));
            }
            return map(state, fd, lengthBytes, what, hugePages);
        }
    }

    private static SharedMemory map(
        final MemorySegment state, final int fd, final long lengthBytes, final String what, final boolean hugePages)
    {
        final MemorySegment mapped = mmap(state, lengthBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd);
        if (mapped.address() == MAP_FAILED)
        {
            final int errno = errno(state);
            throw failed(fd, "cannot map " + what + ": " + strerror(errno) + (hugePages && errno == ENOMEM ?
                "; HugePages_Free is " + Math.max(0, meminfo("HugePages_Free")) + " in " + MEMINFO +
                ": reserve huge pages (sysctl vm.nr_hugepages) or use hugePages=false" : ""));
        }
        return new SharedMemory(fd, lengthBytes, mapped.reinterpret(lengthBytes));
    }

    /** Where this process's descriptor points: {@code /memfd:<name> (deleted)} for a memfd. */
    private static String linkTarget(final int fd)
    {
        try
        {
            return Files.readSymbolicLink(Path.of("/proc/self/fd", Integer.toString(fd))).toString();
        }
        catch (final IOException ex)
        {
            return "unknown file";
        }
    }

    /** Closes the descriptor a failed step leaves behind, and returns the exception to throw. */
    private static ShmException failed(final int fd, final String message)
    {
        LinuxMemfd.close(fd);
        return new ShmException(message);
    }

    /** The number of a {@code /proc/meminfo} line ({@code HugePages_Free:  0}), or -1 when there is none. */
    private static long meminfo(final String key)
    {
        try
        {
            final List<String> lines = Files.readAllLines(MEMINFO);
            for (final String line : lines)
            {
                if (line.startsWith(key + ":"))
                {
                    return Long.parseLong(line.substring(key.length() + 1).trim().split("\\s+")[0]);
                }
            }
            return -1;
        }
        catch (final IOException | NumberFormatException ex)
        {
            return -1;
        }
    }
}
