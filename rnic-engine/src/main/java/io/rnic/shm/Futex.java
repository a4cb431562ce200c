package io.rnic.shm;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Linux futexes on a 32-bit word of memory, shared across processes when the memory is (no
 * {@code FUTEX_PRIVATE_FLAG}): how a completion queue in shared memory wakes a client blocked on it
 * ({@code ibv_req_notify_cq} / {@code ibv_get_cq_event}'s role) without a file descriptor or a socket. x86_64.
 */
public final class Futex
{
    private static final long SYS_FUTEX = 202;
    private static final long FUTEX_WAIT = 0;
    private static final long FUTEX_WAKE = 1;
    private static final MethodHandle SYSCALL;

    static
    {
        final Linker linker = Linker.nativeLinker();
        // long syscall(long number, ...): futex(uaddr, op, val, timeout, uaddr2, val3)
        SYSCALL = linker.downcallHandle(linker.defaultLookup().find("syscall").orElseThrow(),
            FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG),
            Linker.Option.firstVariadicArg(1));
    }

    private Futex()
    {
    }

    /** Wakes up to {@code count} threads waiting on the word at {@code address} (4-byte aligned). */
    public static void wake(final long address, final int count)
    {
        syscall(address, FUTEX_WAKE, count, 0);
    }

    /**
     * Sleeps while the word at {@code address} holds {@code expected}, for at most {@code timeoutNs}: returns at once
     * when it holds something else, on a {@link #wake}, on a signal, or at the timeout (the caller looks again).
     */
    public static void await(final long address, final int expected, final long timeoutNs)
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment timespec = arena.allocate(16, 8);
            final long ns = Math.max(0, timeoutNs);
            timespec.set(JAVA_LONG, 0, ns / 1_000_000_000L);
            timespec.set(JAVA_LONG, 8, ns % 1_000_000_000L);
            syscall(address, FUTEX_WAIT, expected, timespec.address());
        }
    }

    private static void syscall(final long address, final long op, final long value, final long timeout)
    {
        try
        {
            final long ignored = (long)SYSCALL.invokeExact(SYS_FUTEX, address, op, value, timeout);
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException("futex", ex);
        }
    }
}
