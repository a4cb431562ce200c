package io.rnic.shm;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Every Linux declaration shared memory uses, in one place and in jextract's shape (constants, layouts, one
 * {@code MethodHandle} and one static wrapper per function) — from {@code <sys/mman.h>}, {@code <fcntl.h>},
 * {@code <unistd.h>} and {@code <sys/stat.h>}, x86_64, as
 * {@code io.rnic.datapath.afpacket.LinuxPacketSockets} is for AF_PACKET. Calls that can fail take a
 * {@code captureCallState("errno")} segment first; {@link #errno} reads it.
 */
final class LinuxMemfd
{
    static final int MFD_CLOEXEC = 0x1;
    static final int MFD_ALLOW_SEALING = 0x2;
    static final int MFD_HUGETLB = 0x4;
    static final int F_ADD_SEALS = 1024 + 9;
    static final int F_GET_SEALS = 1024 + 10;
    static final int F_SEAL_SEAL = 0x1;
    static final int F_SEAL_SHRINK = 0x2;
    static final int F_SEAL_GROW = 0x4;
    static final int O_RDWR = 0x2;
    static final int O_CLOEXEC = 0x80000;
    static final int PROT_READ = 1;
    static final int PROT_WRITE = 2;
    static final int MAP_SHARED = 1;
    static final long MAP_FAILED = -1L;
    static final int EPERM = 1;
    static final int ENOMEM = 12;

    /** {@code struct stat} of x86_64, 144 bytes; only the size is read. */
    static final StructLayout STAT = MemoryLayout.structLayout(
        JAVA_LONG.withName("st_dev"),
        JAVA_LONG.withName("st_ino"),
        JAVA_LONG.withName("st_nlink"),
        JAVA_INT.withName("st_mode"),
        JAVA_INT.withName("st_uid"),
        JAVA_INT.withName("st_gid"),
        JAVA_INT.withName("__pad0"),
        JAVA_LONG.withName("st_rdev"),
        JAVA_LONG.withName("st_size"),
        JAVA_LONG.withName("st_blksize"),
        JAVA_LONG.withName("st_blocks"),
        MemoryLayout.sequenceLayout(6, JAVA_LONG).withName("st_times"),
        MemoryLayout.sequenceLayout(3, JAVA_LONG).withName("__unused"));
    static final long ST_SIZE_OFFSET = STAT.byteOffset(groupElement("st_size"));

    static final StructLayout CAPTURED_STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURED_STATE.varHandle(groupElement("errno"));

    private static final MethodHandle MEMFD_CREATE;
    private static final MethodHandle FTRUNCATE;
    private static final MethodHandle FCNTL;
    private static final MethodHandle FSTAT;
    private static final MethodHandle OPEN;
    private static final MethodHandle MMAP;
    private static final MethodHandle MUNMAP;
    private static final MethodHandle CLOSE;
    private static final MethodHandle STRERROR;

    static
    {
        final Linker linker = Linker.nativeLinker();
        final SymbolLookup libc = linker.defaultLookup();
        final Linker.Option errno = Linker.Option.captureCallState("errno");
        MEMFD_CREATE = linker.downcallHandle(libc.find("memfd_create").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT), errno);
        FTRUNCATE = linker.downcallHandle(libc.find("ftruncate").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG), errno);
        // int fcntl(int fd, int cmd, ...): the seal commands take one int
        FCNTL = linker.downcallHandle(libc.find("fcntl").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT), errno, Linker.Option.firstVariadicArg(2));
        FSTAT = linker.downcallHandle(libc.find("fstat").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS), errno);
        // int open(const char *path, int flags, ...): without O_CREAT the mode is not read
        OPEN = linker.downcallHandle(libc.find("open").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT), errno);
        MMAP = linker.downcallHandle(libc.find("mmap").orElseThrow(),
            FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG), errno);
        MUNMAP = linker.downcallHandle(libc.find("munmap").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG), errno);
        CLOSE = linker.downcallHandle(libc.find("close").orElseThrow(), FunctionDescriptor.of(JAVA_INT, JAVA_INT));
        STRERROR = linker.downcallHandle(libc.find("strerror").orElseThrow(),
            FunctionDescriptor.of(ADDRESS.withTargetLayout(MemoryLayout.sequenceLayout(256, JAVA_BYTE)), JAVA_INT));
    }

    private LinuxMemfd()
    {
    }

    static int errno(final MemorySegment state)
    {
        return (int)ERRNO.get(state, 0L);
    }

    static int memfdCreate(final MemorySegment state, final MemorySegment name, final int flags)
    {
        try
        {
            return (int)MEMFD_CREATE.invokeExact(state, name, flags);
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException("memfd_create downcall", ex);
        }
    }

    static int ftruncate(final MemorySegment state, final int fd, final long length)
    {
        try
        {
            return (int)FTRUNCATE.invokeExact(state, fd, length);
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException("ftruncate downcall", ex);
        }
    }

    static int fcntl(final MemorySegment state, final int fd, final int command, final int argument)
    {
        try
        {
            return (int)FCNTL.invokeExact(state, fd, command, argument);
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException("fcntl downcall", ex);
        }
    }

    static int fstat(final MemorySegment state, final int fd, final MemorySegment stat)
    {
        try
        {
            return (int)FSTAT.invokeExact(state, fd, stat);
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException("fstat downcall", ex);
        }
    }

    static int open(final MemorySegment state, final MemorySegment path, final int flags)
    {
        try
        {
            return (int)OPEN.invokeExact(state, path, flags);
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException("open downcall", ex);
        }
    }

    static MemorySegment mmap(
        final MemorySegment state, final long length, final int protection, final int flags, final int fd)
    {
        try
        {
            return (MemorySegment)MMAP.invokeExact(state, MemorySegment.NULL, length, protection, flags, fd, 0L);
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException("mmap downcall", ex);
        }
    }

    static int munmap(final MemorySegment state, final MemorySegment address, final long length)
    {
        try
        {
            return (int)MUNMAP.invokeExact(state, address, length);
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException("munmap downcall", ex);
        }
    }

    static int close(final int fd)
    {
        try
        {
            return (int)CLOSE.invokeExact(fd);
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException("close downcall", ex);
        }
    }

    static String strerror(final int errno)
    {
        try
        {
            return ((MemorySegment)STRERROR.invokeExact(errno)).getString(0) + " (errno " + errno + ")";
        }
        catch (final Throwable ex)
        {
            return "errno " + errno;
        }
    }

    /** A fresh errno segment for one control-path call sequence. */
    static MemorySegment callState(final Arena arena)
    {
        return arena.allocate(CAPTURED_STATE);
    }
}
