package io.rnic.cc;

import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The hot methods of the congestion-control blocks allocate nothing: about a million calls each after a warm-up,
 * measured with the thread's allocated-bytes counter.
 */
class DcqcnSteadyStateAllocationTest
{
    private static final int CALLS = 1_000_000;

    private final TokenBucketShaper shaper = new TokenBucketShaper(10_000_000_000L, 8192, 0);
    private final DcqcnReactionPoint reactionPoint = new DcqcnReactionPoint(DcqcnParameters.defaults());
    private final CnpThrottle throttle = new CnpThrottle(DcqcnParameters.defaults());
    private long nowNs;
    private long sink;

    private void operations()
    {
        for (int i = 0; i < CALLS; i++)
        {
            nowNs += 100;
            if (shaper.tryConsume(1024, nowNs))
            {
                sink++;
            }
            else
            {
                sink += shaper.nanosUntilAllowed(1024, nowNs);
            }
            reactionPoint.onBytesSent(1024, nowNs);
            reactionPoint.advance(nowNs);
            if ((i & 0x3fff) == 0)
            {
                reactionPoint.onCnp(nowNs); // stay in recovery: timers and byte counter keep working
                shaper.rateBitsPerSec(reactionPoint.rateBitsPerSec(), nowNs);
            }
            if (throttle.shouldSendCnp(nowNs))
            {
                sink++;
            }
        }
    }

    @Test
    void shouldNotAllocateOnTheHotPath()
    {
        operations(); // warm up: let the JIT compile the path
        operations();
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        final long before = threads.getCurrentThreadAllocatedBytes();
        operations();
        final long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        System.out.println("cc: " + allocated + " bytes allocated over " + CALLS + " calls of each hot method (" +
            sink + ")");
        assertTrue(allocated < 16 * 1024, allocated + " bytes allocated");
        assertTrue(reactionPoint.cnpsReceived() > 0 && throttle.cnpsAllowed() > 0);
    }
}
