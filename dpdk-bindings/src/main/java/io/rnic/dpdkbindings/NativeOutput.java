package io.rnic.dpdkbindings;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.IntSupplier;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * Runs a native call with the process's standard output and error (file descriptors 1 and 2) pointed at an anonymous
 * in-memory file, and gives back what was written there. A library that prints its whole usage and its log on the
 * terminal (EAL does, on a wrong argument) then leaves the caller to decide what the user sees.
 * <p>
 * libc's {@code dup}/{@code dup2} through FFM: the descriptors are restored right after the call, C stdio flushed
 * first so nothing the call buffered lands on the restored ones later. Whatever another thread of the process writes
 * to 1 or 2 meanwhile is captured too: meant for start-up calls, made once.
 */
final class NativeOutput
{
    private static final MethodHandle MEMFD_CREATE;
    private static final MethodHandle DUP;
    private static final MethodHandle DUP2;
    private static final MethodHandle CLOSE;
    private static final MethodHandle FFLUSH;

    static
    {
        final Linker linker = Linker.nativeLinker();
        final SymbolLookup libc = linker.defaultLookup();
        MEMFD_CREATE = libc.find("memfd_create")
            .map(s -> linker.downcallHandle(s, FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT))).orElse(null);
        DUP = bind(linker, libc, "dup", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
        DUP2 = bind(linker, libc, "dup2", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
        CLOSE = bind(linker, libc, "close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
        FFLUSH = bind(linker, libc, "fflush", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    }

    /** What the call returned and what it wrote to standard output and error, in the order written. */
    record Captured(int result, String output)
    {
    }

    private NativeOutput()
    {
    }

    /** Runs {@code call} with fds 1 and 2 captured; when they cannot be (no memfd), runs it as it is, output "". */
    static Captured capture(final IntSupplier call)
    {
        System.out.flush();
        System.err.flush();
        final int file = memfd();
        if (file < 0)
        {
            return new Captured(call.getAsInt(), "");
        }
        final int savedOut = invoke(DUP, 1);
        final int savedErr = invoke(DUP, 2);
        final int result;
        try
        {
            invoke(DUP2, file, 1);
            invoke(DUP2, file, 2);
            result = call.getAsInt();
        }
        finally
        {
            flushStdio();
            invoke(DUP2, savedOut, 1);
            invoke(DUP2, savedErr, 2);
            invoke(CLOSE, savedOut);
            invoke(CLOSE, savedErr);
        }
        try
        {
            // a memfd opened again through /proc reads from its start
            return new Captured(result, Files.readString(Path.of("/proc/self/fd/" + file)));
        }
        catch (final IOException ex)
        {
            return new Captured(result, "(output not readable: " + ex.getMessage() + ")");
        }
        finally
        {
            invoke(CLOSE, file);
        }
    }

    private static int memfd()
    {
        if (MEMFD_CREATE == null)
        {
            return -1;
        }
        try (Arena arena = Arena.ofConfined())
        {
            return (int)MEMFD_CREATE.invokeExact(arena.allocateFrom("native-output"), 0);
        }
        catch (final Throwable ex)
        {
            return -1;
        }
    }

    private static void flushStdio()
    {
        try
        {
            final int ignored = (int)FFLUSH.invokeExact(MemorySegment.NULL); // NULL: every open stream
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException("fflush downcall", ex);
        }
    }

    private static int invoke(final MethodHandle handle, final int fd)
    {
        try
        {
            return (int)handle.invokeExact(fd);
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException("libc downcall", ex);
        }
    }

    private static int invoke(final MethodHandle handle, final int from, final int to)
    {
        try
        {
            return (int)handle.invokeExact(from, to);
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException("libc downcall", ex);
        }
    }

    private static MethodHandle bind(
        final Linker linker, final SymbolLookup lookup, final String name, final FunctionDescriptor descriptor)
    {
        return linker.downcallHandle(lookup.find(name)
            .orElseThrow(() -> new IllegalStateException("libc has no " + name)), descriptor);
    }
}
