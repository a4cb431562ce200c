package io.rnic.shm;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * The Linux declarations of open file description locks ({@code fcntl(F_OFD_SETLK)}, {@code <fcntl.h>}, x86_64), in
 * {@link LinuxMemfd}'s shape; {@code fstat}, {@code ftruncate}, {@code close} and errno come from there.
 */
final class LinuxFileLocks
{
    static final int O_RDONLY = 0;
    static final int O_RDWR = 0x2;
    static final int O_CREAT = 0x40;
    static final int O_CLOEXEC = 0x80000;
    static final int F_OFD_GETLK = 36;
    static final int F_OFD_SETLK = 37;
    static final short F_RDLCK = 0;
    static final short F_WRLCK = 1;
    static final short F_UNLCK = 2;
    static final int ENOENT = 2;
    static final int EAGAIN = 11;
    static final int EACCES = 13;

    /** {@code struct flock} of x86_64, 32 bytes; {@code l_pid} must be 0 for the OFD commands. */
    static final StructLayout FLOCK = MemoryLayout.structLayout(
        JAVA_SHORT.withName("l_type"),
        JAVA_SHORT.withName("l_whence"),
        MemoryLayout.paddingLayout(4),
        JAVA_LONG.withName("l_start"),
        JAVA_LONG.withName("l_len"),
        JAVA_INT.withName("l_pid"),
        MemoryLayout.paddingLayout(4));
    static final long L_TYPE_OFFSET = FLOCK.byteOffset(groupElement("l_type"));
    static final long ST_DEV_OFFSET = LinuxMemfd.STAT.byteOffset(groupElement("st_dev"));
    static final long ST_INO_OFFSET = LinuxMemfd.STAT.byteOffset(groupElement("st_ino"));

    private static final MethodHandle OPEN;
    private static final MethodHandle FCNTL;
    private static final MethodHandle PWRITE;

    static
    {
        final Linker linker = Linker.nativeLinker();
        final SymbolLookup libc = linker.defaultLookup();
        final Linker.Option errno = Linker.Option.captureCallState("errno");
        // int open(const char *path, int flags, ...): with O_CREAT the mode follows
        OPEN = linker.downcallHandle(libc.find("open").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT), errno, Linker.Option.firstVariadicArg(2));
        // int fcntl(int fd, int cmd, ...): the lock commands take a struct flock *
        FCNTL = linker.downcallHandle(libc.find("fcntl").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS), errno, Linker.Option.firstVariadicArg(2));
        PWRITE = linker.downcallHandle(libc.find("pwrite").orElseThrow(),
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG), errno);
    }

    private LinuxFileLocks()
    {
    }

    static int open(final MemorySegment state, final MemorySegment path, final int flags, final int mode)
    {
        try
        {
            return (int)OPEN.invokeExact(state, path, flags, mode);
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException("open downcall", ex);
        }
    }

    static int fcntl(final MemorySegment state, final int fd, final int command, final MemorySegment flock)
    {
        try
        {
            return (int)FCNTL.invokeExact(state, fd, command, flock);
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException("fcntl downcall", ex);
        }
    }

    static long pwrite(final MemorySegment state, final int fd, final MemorySegment bytes, final long offset)
    {
        try
        {
            return (long)PWRITE.invokeExact(state, fd, bytes, bytes.byteSize(), offset);
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException("pwrite downcall", ex);
        }
    }
}
