package io.rnic.testing;

import java.lang.management.ManagementFactory;

/**
 * Bytes a piece of work allocates on this thread in steady state. The work runs in rounds until one round stays
 * under the limit, at most {@code maxRounds}: a fresh JVM runs the path interpreted or C1-compiled for its first tens
 * of thousands of calls, and there every Vector API operation is an object and nothing is scalar-replaced. An
 * allocation per call shows in every round, so the least round is the steady state's figure.
 */
public final class SteadyStateAllocation
{
    private SteadyStateAllocation()
    {
    }

    /** @return the least bytes any measured round allocated. */
    public static long leastBytes(final Runnable work, final long limitBytes, final int maxRounds)
    {
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        final long thread = Thread.currentThread().threadId();
        long least = Long.MAX_VALUE;
        for (int round = 0; round < maxRounds && least >= limitBytes; round++)
        {
            final long before = threads.getThreadAllocatedBytes(thread);
            work.run();
            least = Math.min(least, threads.getThreadAllocatedBytes(thread) - before);
        }
        return least;
    }
}
