package io.rnic.verbs;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Measures how soon a deregistered R_Key names a region again (BENCHMARKS.md, "R_Key reuse"): on each of
 * {@code DEVICES} fresh tables, one region is registered and deregistered, then regions are registered and deregistered
 * one at a time, up to {@code REGISTRATIONS} times, until the first region's key finds a live one. With {@code mw},
 * the same with memory windows allocated and deallocated. Prints one line per run: how many keys came back, and after
 * how many registrations (mean, min, max).
 * <pre>
 * java ... -cp rnic-engine/target/classes:rnic-engine/target/test-classes:AGRONA io.rnic.verbs.KeyReuseMain 40 5000
 * </pre>
 */
public final class KeyReuseMain
{
    private KeyReuseMain()
    {
    }

    public static void main(final String[] args)
    {
        final int devices = args.length > 0 ? Integer.parseInt(args[0]) : 40;
        final int registrations = args.length > 1 ? Integer.parseInt(args[1]) : 5_000;
        final boolean windows = args.length > 2 && "mw".equals(args[2]);
        final ProtectionDomain pd = new ProtectionDomain(1);
        int cameBack = 0;
        long sum = 0;
        long min = Long.MAX_VALUE;
        long max = 0;
        final long startNs = System.nanoTime();
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment segment = arena.allocate(64);
            for (int device = 0; device < devices; device++)
            {
                final long after = windows ? windowKeyBack(pd, registrations) :
                    regionKeyBack(pd, segment, registrations);
                if (after > 0)
                {
                    cameBack++;
                    sum += after;
                    min = Math.min(min, after);
                    max = Math.max(max, after);
                }
            }
        }
        final long elapsedMs = (System.nanoTime() - startNs) / 1_000_000;
        System.out.println((windows ? "memory windows" : "memory regions") + ": " + devices + " fresh devices x " +
            registrations + " registrations: the stale key came back on " + cameBack +
            (cameBack == 0 ? "" : ", after " + sum / cameBack + " registrations on average (min " + min + ", max " +
            max + ")") + "; " + elapsedMs + " ms");
    }

    /** The registrations after which the first region's key named a region again, or 0 when it never did. */
    static long regionKeyBack(final ProtectionDomain pd, final MemorySegment segment, final int registrations)
    {
        final MemoryRegionTable table = new MemoryRegionTable();
        final MemoryRegion first = table.register(pd, segment, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE);
        final int staleKey = first.rKey();
        table.deregister(first);
        for (int i = 1; i <= registrations; i++)
        {
            final MemoryRegion region = table.register(pd, segment, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE);
            final boolean back = table.byKey(staleKey) != null;
            table.deregister(region);
            if (back)
            {
                return i;
            }
        }
        return 0;
    }

    /** The allocations after which the first window's key named a window again, or 0 when it never did. */
    static long windowKeyBack(final ProtectionDomain pd, final int allocations)
    {
        final MemoryWindowTable table = new MemoryRegionTable().windows();
        final MemoryWindow first = table.allocate(pd, MemoryWindow.TYPE_2);
        final int staleKey = first.rKey();
        table.deallocate(first);
        for (int i = 1; i <= allocations; i++)
        {
            final MemoryWindow window = table.allocate(pd, MemoryWindow.TYPE_2);
            final boolean back = window.rKey() == staleKey;
            table.deallocate(window);
            if (back)
            {
                return i;
            }
        }
        return 0;
    }
}
