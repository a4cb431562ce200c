package io.rnic.datapath.driver;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.file.Files;
import java.nio.file.Path;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The few libc calls the driver tests make as a hostile or careless client would, through FFM: a memfd nobody sealed,
 * a regular file's descriptor, an {@code ftruncate} on memory the driver maps. The product's own bindings are in
 * {@code io.rnic.shm} and private to it; a test that checks them must not go through them.
 */
final class TestLibc
{
    static final int EPERM = 1;
    private static final int O_RDWR = 0x2;
    private static final int O_CREAT = 0x40;
    private static final StructLayout CAPTURED_STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURED_STATE.varHandle(groupElement("errno"));
    private static final MethodHandle MEMFD_CREATE;
    private static final MethodHandle FTRUNCATE;
    private static final MethodHandle OPEN;
    private static final MethodHandle CLOSE;

    static
    {
        final Linker linker = Linker.nativeLinker();
        final Linker.Option errno = Linker.Option.captureCallState("errno");
        MEMFD_CREATE = linker.downcallHandle(linker.defaultLookup().find("memfd_create").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT), errno);
        FTRUNCATE = linker.downcallHandle(linker.defaultLookup().find("ftruncate").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG), errno);
        OPEN = linker.downcallHandle(linker.defaultLookup().find("open").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT), errno,
            Linker.Option.firstVariadicArg(2));
        CLOSE = linker.downcallHandle(linker.defaultLookup().find("close").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    }

    private TestLibc()
    {
    }

    /** A memfd of {@code lengthBytes} without a single seal: its owner may shrink it under any mapping. */
    static int unsealedMemfd(final String name, final long lengthBytes)
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment state = arena.allocate(CAPTURED_STATE);
            final int fd = (int)MEMFD_CREATE.invokeExact(state, arena.allocateFrom(name), 0);
            if (fd < 0)
            {
                throw new IllegalStateException("memfd_create: errno " + errno(state));
            }
            final int truncated = ftruncate(fd, lengthBytes);
            if (truncated != 0)
            {
                throw new IllegalStateException("ftruncate of a new memfd: errno " + truncated);
            }
            return fd;
        }
        catch (final Throwable ex)
        {
            throw rethrown(ex);
        }
    }

    /** {@code open(path, O_RDWR | O_CREAT, 0600)} of a regular file of {@code lengthBytes}. */
    static int regularFile(final Path path, final long lengthBytes)
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment state = arena.allocate(CAPTURED_STATE);
            final int fd = (int)OPEN.invokeExact(state, arena.allocateFrom(path.toString()), O_RDWR | O_CREAT, 0600);
            if (fd < 0)
            {
                throw new IllegalStateException("open " + path + ": errno " + errno(state));
            }
            final int truncated = ftruncate(fd, lengthBytes);
            if (truncated != 0)
            {
                throw new IllegalStateException("ftruncate " + path + ": errno " + truncated);
            }
            return fd;
        }
        catch (final Throwable ex)
        {
            throw rethrown(ex);
        }
    }

    /** {@code ftruncate(fd, lengthBytes)}: 0, or the errno it failed with. */
    static int ftruncate(final int fd, final long lengthBytes)
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment state = arena.allocate(CAPTURED_STATE);
            final int result = (int)FTRUNCATE.invokeExact(state, fd, lengthBytes);
            return result == 0 ? 0 : errno(state);
        }
        catch (final Throwable ex)
        {
            throw rethrown(ex);
        }
    }

    static void close(final int fd)
    {
        try
        {
            final int ignored = (int)CLOSE.invokeExact(fd);
        }
        catch (final Throwable ex)
        {
            throw rethrown(ex);
        }
    }

    /**
     * This process's descriptors whose link in {@code /proc/self/fd} starts with {@code "/memfd:" + name} and whose
     * file is {@code lengthBytes} long: how a test finds the memfd behind memory a context allocated.
     */
    static int[] memfds(final String name, final long lengthBytes)
    {
        try (var links = Files.list(Path.of("/proc/self/fd")))
        {
            return links.filter(link ->
            {
                try
                {
                    return Files.readSymbolicLink(link).toString().startsWith("/memfd:" + name) &&
                        Files.size(link) == lengthBytes;
                }
                catch (final IOException ex)
                {
                    return false; // closed meanwhile (the listing's own descriptor among them)
                }
            }).mapToInt(link -> Integer.parseInt(link.getFileName().toString())).toArray();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    private static int errno(final MemorySegment state)
    {
        return (int)ERRNO.get(state, 0L);
    }

    private static RuntimeException rethrown(final Throwable ex)
    {
        if (ex instanceof RuntimeException runtime)
        {
            return runtime;
        }
        if (ex instanceof Error error)
        {
            throw error;
        }
        return new IllegalStateException(ex);
    }
}
