package io.rnic.tools.perftest;

import io.rnic.tools.LocalQp;
import io.rnic.verbs.WrOpcode;

import java.lang.foreign.MemorySegment;

/**
 * {@code ib_read_lat} and {@code ib_atomic_lat}, the client side: one RDMA READ (or atomic) at a time, timed from
 * posting to its completion. The server's CPU takes no part. With {@code --verify} the read data must be the
 * server's pattern, and an atomic must return the value the previous ones left. With {@code -D} it runs until the
 * duration's end and counts the round trips that end in its measurement.
 */
public final class ReadLatency extends ToolApplication
{
    private final LocalQp q;
    private final long total;
    private final long warmup;
    private final boolean verify;
    private final LatencyLog recorder;
    private final int opcode;
    private final int size;
    private final MemorySegment receiveSlot;
    private final MemorySegment expected;
    private long iteration;
    private boolean waiting;
    private long startNs;
    /** -D, else null. */
    private final DurationPhases duration;

    /**
     * @param opcode   RDMA_READ, ATOMIC_FETCH_AND_ADD (add 1) or ATOMIC_CMP_AND_SWP (compare n, swap n + 1).
     * @param expected the server's read pattern (READ with verify), else null.
     */
    ReadLatency(
        final LocalQp q, final int opcode, final long total, final long warmup, final boolean verify,
        final MemorySegment expected, final LatencyLog recorder, final DurationPhases duration)
    {
        this.duration = duration;
        this.q = q;
        this.opcode = opcode;
        this.total = total;
        this.warmup = warmup;
        this.verify = verify;
        this.expected = expected;
        this.recorder = recorder;
        this.size = q.layout.messageBytes;
        this.receiveSlot = q.receiveSlot(0);
    }

    @Override
    public int doWork()
    {
        if (!running())
        {
            return 0;
        }
        if (!waiting)
        {
            if (iteration == total ||
                duration != null && duration.advance(System.nanoTime()) == DurationPhases.END)
            {
                finish();
                return 0;
            }
            startNs = System.nanoTime();
            final long remote = q.remoteSlot(0);
            q.send.compareAdd = opcode == WrOpcode.ATOMIC_FETCH_AND_ADD ? 1 : iteration;
            q.send.swap = iteration + 1;
            final int rc = q.post(opcode, iteration, q.layout.receiveSlot(q.regionAddress, 0), size, remote, true);
            if (rc != 0)
            {
                fail("ibv_post_send returned " + rc + " for operation " + iteration);
                return 0;
            }
            waiting = true;
            return 1;
        }
        final int n = poll(q.sendCq, 1);
        if (n == 0)
        {
            return 0;
        }
        final long nowNs = System.nanoTime();
        final long roundTripNs = nowNs - startNs;
        if (!checkCompletion(completions[0]) || !verifyResult())
        {
            return 0;
        }
        if (duration != null)
        {
            duration.advance(nowNs);
            duration.count(1);
        }
        if (iteration >= warmup && DurationPhases.measuring(duration))
        {
            recorder.record(roundTripNs);
        }
        waiting = false;
        progress(++iteration);
        return 1;
    }

    private boolean verifyResult()
    {
        if (!verify)
        {
            return true;
        }
        if (opcode == WrOpcode.RDMA_READ)
        {
            final long at = MemorySegment.mismatch(receiveSlot, 0, size, expected, 0, size);
            if (at >= 0)
            {
                fail("verify: read " + iteration + " byte " + at + " of " + size + " differs from the server's data");
                return false;
            }
            return true;
        }
        final long fetched = receiveSlot.get(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, 0);
        if (fetched != iteration)
        {
            fail("verify: atomic " + iteration + " returned " + fetched + ", expected " + iteration);
            return false;
        }
        return true;
    }
}
