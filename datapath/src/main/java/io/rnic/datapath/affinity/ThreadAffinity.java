package io.rnic.datapath.affinity;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.util.BitSet;

/**
 * Pins the calling platform thread to CPUs with Linux's {@code sched_setaffinity(2)}, through FFM. An engine thread
 * pinned to its own core keeps its caches warm and is not migrated in the middle of a burst; on a small machine it
 * also lets the user keep two spinning threads off one core (they starve each other there).
 */
public final class ThreadAffinity
{
    /** glibc's {@code cpu_set_t}: 1024 bits. */
    private static final int CPU_SET_BYTES = 128;
    private static final StructLayout CAPTURED = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO =
        CAPTURED.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final MethodHandle SCHED_SETAFFINITY;
    private static final MethodHandle SCHED_GETAFFINITY;
    private static final MethodHandle SCHED_GETCPU;
    private static final MethodHandle STRERROR;

    static
    {
        final Linker linker = Linker.nativeLinker();
        final var libc = linker.defaultLookup();
        final Linker.Option errno = Linker.Option.captureCallState("errno");
        final FunctionDescriptor affinity = FunctionDescriptor.of(
            ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS);
        SCHED_SETAFFINITY = linker.downcallHandle(libc.find("sched_setaffinity").orElseThrow(), affinity, errno);
        SCHED_GETAFFINITY = linker.downcallHandle(libc.find("sched_getaffinity").orElseThrow(), affinity, errno);
        SCHED_GETCPU = linker.downcallHandle(libc.find("sched_getcpu").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_INT));
        STRERROR = linker.downcallHandle(libc.find("strerror").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.ADDRESS.withTargetLayout(MemoryLayout.sequenceLayout(256,
                ValueLayout.JAVA_BYTE)), ValueLayout.JAVA_INT));
    }

    private ThreadAffinity()
    {
    }

    /**
     * Pins the calling thread to the given CPUs.
     *
     * @throws IllegalArgumentException naming the CPUs and the reason when the kernel refuses (a CPU that does not
     *                                  exist or is outside this process's cpuset).
     */
    public static void pinCurrentThread(final BitSet cpus)
    {
        if (cpus.isEmpty() || cpus.length() > CPU_SET_BYTES * 8)
        {
            throw new IllegalArgumentException("CPU set " + cpus + " must name CPUs 0.." + (CPU_SET_BYTES * 8 - 1));
        }
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment mask = arena.allocate(CPU_SET_BYTES, 8);
            final long[] words = cpus.toLongArray();
            for (int i = 0; i < words.length; i++)
            {
                mask.setAtIndex(ValueLayout.JAVA_LONG, i, words[i]);
            }
            final MemorySegment state = arena.allocate(CAPTURED);
            final int rc = (int)SCHED_SETAFFINITY.invokeExact(state, 0, (long)CPU_SET_BYTES, mask);
            if (rc != 0)
            {
                final int errno = (int)ERRNO.get(state, 0L);
                throw new IllegalArgumentException("cannot pin thread to CPUs " + cpus + ": " + strerror(errno) +
                    " (allowed: " + allowedCpus() + ")");
            }
        }
        catch (final IllegalArgumentException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException("sched_setaffinity downcall failed", ex);
        }
    }

    /** Pins the calling thread to one CPU. */
    public static void pinCurrentThread(final int cpu)
    {
        if (cpu < 0)
        {
            throw new IllegalArgumentException("CPU " + cpu + " is negative");
        }
        final BitSet set = new BitSet();
        set.set(cpu);
        pinCurrentThread(set);
    }

    /** The CPUs the calling thread may run on. */
    public static BitSet allowedCpus()
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment mask = arena.allocate(CPU_SET_BYTES, 8);
            final MemorySegment state = arena.allocate(CAPTURED);
            final int rc = (int)SCHED_GETAFFINITY.invokeExact(state, 0, (long)CPU_SET_BYTES, mask);
            if (rc < 0)
            {
                throw new IllegalStateException("sched_getaffinity: " + strerror((int)ERRNO.get(state, 0L)));
            }
            return BitSet.valueOf(mask.toArray(ValueLayout.JAVA_LONG));
        }
        catch (final RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException("sched_getaffinity downcall failed", ex);
        }
    }

    /**
     * Checks, before any thread is started, that this process may run on CPUs {@code firstCpu} to
     * {@code firstCpu + count - 1}: a thread that cannot be pinned would otherwise fail alone, after its owner has
     * started.
     *
     * @param what what asked for them, the start of the message ({@code "--cpu 99"}).
     * @throws IllegalArgumentException naming the first CPU this process may not run on and the CPUs it may.
     */
    public static void checkAllowed(final String what, final int firstCpu, final int count)
    {
        final BitSet allowed = allowedCpus();
        for (int cpu = firstCpu; cpu < firstCpu + count; cpu++)
        {
            if (cpu < 0 || !allowed.get(cpu))
            {
                throw new IllegalArgumentException(what + ": CPU " + cpu + " is not one this process may run on " +
                    "(allowed: " + cpuList(allowed) + ")");
            }
        }
    }

    /** CPUs as ranges, as taskset -c lists them: 0-3,6. */
    public static String cpuList(final BitSet cpus)
    {
        final StringBuilder sb = new StringBuilder();
        for (int from = cpus.nextSetBit(0); from >= 0; from = cpus.nextSetBit(cpus.nextClearBit(from)))
        {
            final int to = cpus.nextClearBit(from) - 1;
            sb.append(sb.isEmpty() ? "" : ",").append(from).append(to > from ? "-" + to : "");
        }
        return sb.toString();
    }

    /** The CPU the calling thread runs on right now. */
    public static int currentCpu()
    {
        try
        {
            return (int)SCHED_GETCPU.invokeExact();
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException("sched_getcpu downcall failed", ex);
        }
    }

    static String strerror(final int errno)
    {
        try
        {
            final MemorySegment text = (MemorySegment)STRERROR.invokeExact(errno);
            return text.getString(0) + " (errno " + errno + ")";
        }
        catch (final Throwable ex)
        {
            return "errno " + errno;
        }
    }
}
