package io.rnic.tools.perftest;

import io.rnic.tools.LocalQp;
import io.rnic.verbs.WorkCompletion;
import io.rnic.verbs.WrOpcode;

import java.lang.foreign.MemorySegment;

/**
 * The client side of {@code ib_write_bw}, {@code ib_read_bw}, {@code ib_send_bw} and {@code ib_atomic_bw}: keeps up
 * to {@code -t} operations outstanding on every QP, signals one in {@code cqMod} (and the last), and counts an
 * operation done when a later signaled one completes (completions are in order per QP). Times the run as perftest
 * does, from the first post after the warm-up to the last completion.
 * <p>
 * The peak is perftest's: the shortest time per operation over any run of operations from one's post to a later
 * one's completion ({@link #peakNsPerOperation}). Each measured post and each completion takes the duty cycle's
 * clock reading, kept in arrays allocated here (up to {@link #PEAK_OPERATIONS_MAX} operations; beyond, no peak).
 * <p>
 * With {@code -D} ({@code duration} not null) it posts until the duration's end, counts the operations completed
 * in its measurement, and at the end posts up to the next signaled operation so that every one completes.
 * <p>
 * With {@code --verify}, operation {@code n} uses slot {@code n % slots} on both sides, each slot holding its own
 * pattern: READ data is checked as it completes; WRITE and SEND data are checked by the server.
 */
public final class Bandwidth extends ToolApplication
{
    private final LocalQp[] qps;
    private final int opcode;
    private final long perQp;
    private final long warmupPerQp;
    private final int txDepth;
    private int cqMod;
    /** {@code -l}: WRs posted together, only when the send queue has room for all of them. */
    private int postList = 1;
    /** {@code --rate_limit}: messages per nanosecond each QP may post after its first burst; 0: no limit. */
    private double messagesPerNs;
    private long rateStartNs;
    /** Send completions polled (one per signaled WR) and post lists started: what -Q and -l change. */
    private long completionsPolled;
    private long postLists;
    private final boolean verify;
    private final MemorySegment expected;
    private final int size;
    private final long[] posted;
    private final long[] completed;
    private long startNs;
    private long endNs;
    private long totalCompleted;
    /** The most operations whose times are kept for the peak (two longs each and one per completion). */
    static final int PEAK_OPERATIONS_MAX = 1 << 21;
    /** When each measured operation was posted (global order over the QPs), as perftest's {@code tposted}. */
    private final long[] postedNs;
    /** For each completion polled after the warm-up: how many measured operations had completed, and when. */
    private final long[] completedCount;
    private final long[] completedNs;
    private int measuredPosts;
    private int completionEvents;
    private long nowNs;
    /** -D or --run_infinitely, else null. */
    private final DurationPhases duration;
    private long totalPosted;

    /**
     * @param expected READ with verify: the server's slot patterns, one slot after another; else null.
     */
    Bandwidth(
        final LocalQp[] qps, final int opcode, final long perQp, final long warmupPerQp, final int txDepth,
        final boolean verify, final MemorySegment expected, final DurationPhases duration)
    {
        this.duration = duration;
        this.warmupPerQp = warmupPerQp;
        this.qps = qps;
        this.opcode = opcode;
        this.perQp = perQp;
        this.txDepth = txDepth;
        this.cqMod = cqModeration(txDepth);
        this.verify = verify;
        this.expected = expected;
        this.size = qps[0].layout.messageBytes;
        this.posted = new long[qps.length];
        this.completed = new long[qps.length];
        final long measured = duration != null ? 0 : (perQp - warmupPerQp) * qps.length;
        final int kept = measured <= PEAK_OPERATIONS_MAX ? (int)measured : 0; // -D: no peak, as perftest
        this.postedNs = new long[kept];
        this.completedCount = new long[kept];
        this.completedNs = new long[kept];
    }

    /**
     * perftest's peak ({@code print_report_bw}): the least of (completion of j - post of i) / (j - i + 1) over the
     * measured operations i and the completions j at or after i; 0 when the times were not kept. Run after the
     * test; when posts times completions exceed 2 * 10^8 pairs, every k-th post is taken so that it stays quick.
     */
    double peakNsPerOperation()
    {
        if (measuredPosts == 0 || completionEvents == 0)
        {
            return 0;
        }
        final long pairs = (long)measuredPosts * completionEvents;
        final int step = (int)Math.max(1, pairs / 200_000_000L);
        double best = Double.MAX_VALUE;
        int first = 0;
        for (int i = 0; i < measuredPosts; i += step)
        {
            while (first < completionEvents && completedCount[first] - 1 < i)
            {
                first++;
            }
            for (int e = first; e < completionEvents; e++)
            {
                final long elapsedNs = completedNs[e] - postedNs[i];
                final double perOperation = (double)elapsedNs / (completedCount[e] - i);
                if (elapsedNs > 0 && perOperation < best)
                {
                    best = perOperation;
                }
            }
        }
        return best == Double.MAX_VALUE ? 0 : best;
    }

    /** One operation in this many is signaled (and the last): half the send queue, at most 64. */
    static int cqModeration(final int txDepth)
    {
        return Math.max(1, Math.min(64, txDepth / 2));
    }

    /**
     * perftest's {@code -Q} (0: keep ours), {@code -l} and software {@code --rate_limit}: each QP posts a burst of
     * {@code -t} messages, then no more than the rate allows since its first post.
     */
    Bandwidth shape(final int cqMod, final int postList, final double rateBitsPerSec)
    {
        if (cqMod > 0)
        {
            this.cqMod = Math.min(cqMod, txDepth); // as perftest: at most the TX depth
        }
        this.postList = postList;
        this.messagesPerNs = rateBitsPerSec / (8.0 * size) / 1e9;
        return this;
    }

    long completionsPolled()
    {
        return completionsPolled;
    }

    long postLists()
    {
        return postLists;
    }

    long elapsedNs()
    {
        return duration != null ? duration.measuredNs() : endNs - startNs;
    }

    /** Operations timed: after the warm-up (which lets the JIT compile the path first), or in -D's measurement. */
    long operations()
    {
        return duration != null ? duration.measured() : (perQp - warmupPerQp) * qps.length;
    }

    @Override
    public int doWork()
    {
        if (!running())
        {
            return 0;
        }
        if (postedNs.length > 0 || duration != null)
        {
            nowNs = System.nanoTime(); // once per duty cycle, for the peak and -D's phases
        }
        final int phase = duration != null ? duration.advance(nowNs) : DurationPhases.MEASURE;
        int work = 0;
        final long allowed = messagesPerNs > 0 ? rateAllowance() : Long.MAX_VALUE;
        for (int i = 0; i < qps.length; i++)
        {
            work += complete(i);
            work += post(i, phase, Math.min(perQp, allowed));
        }
        if (duration != null ? phase == DurationPhases.END && totalCompleted == totalPosted :
            totalCompleted == perQp * qps.length)
        {
            endNs = System.nanoTime();
            finish();
        }
        return work;
    }

    /** How many messages each QP may have posted by now: a burst of {@code -t}, then the rate's share. */
    private long rateAllowance()
    {
        final long timeNs = System.nanoTime();
        if (rateStartNs == 0)
        {
            rateStartNs = timeNs;
        }
        return txDepth + (long)((timeNs - rateStartNs) * messagesPerNs);
    }

    private int post(final int index, final int phase, final long cap)
    {
        final LocalQp q = qps[index];
        // -D's end: up to the next signaled operation, so that the last ones posted complete
        final long limit = phase != DurationPhases.END ? cap : (posted[index] + cqMod - 1) / cqMod * cqMod;
        int work = 0;
        while (posted[index] + postList <= limit && posted[index] - completed[index] + postList <= txDepth)
        {
            postLists++;
            for (int k = 0; k < postList; k++)
            {
                if (!postOne(q, index))
                {
                    return work;
                }
                work++;
            }
        }
        return work;
    }

    private boolean postOne(final LocalQp q, final int index)
    {
        final long n = posted[index];
        final long slot = verify ? n % q.layout.slots : 0;
        final boolean signaled = (n + 1) % cqMod == 0 || n + 1 == perQp;
        final int rc;
        switch (opcode)
        {
            case WrOpcode.RDMA_READ ->
                rc = q.post(opcode, n, q.layout.receiveSlot(q.regionAddress, slot), size, q.remoteSlot(slot),
                    signaled);
            case WrOpcode.ATOMIC_FETCH_AND_ADD, WrOpcode.ATOMIC_CMP_AND_SWP ->
            {
                q.send.compareAdd = opcode == WrOpcode.ATOMIC_FETCH_AND_ADD ? 1 : 0;
                q.send.swap = 0;
                rc = q.post(opcode, n, q.layout.receiveSlot(q.regionAddress, 0), 8, q.remoteSlot(0),
                    signaled);
            }
            case WrOpcode.SEND, WrOpcode.SEND_WITH_IMM ->
            {
                q.send.immediateOrInvalidateRKey = (int)n;
                rc = q.post(opcode, n, q.layout.sendSlot(q.regionAddress, slot), size, 0, signaled);
            }
            default -> rc = q.post(opcode, n, q.layout.sendSlot(q.regionAddress, slot), size,
                q.remoteSlot(slot), signaled);
        }
        if (rc != 0)
        {
            fail("ibv_post_send returned " + rc + " for operation " + n + " on QP " + q.qp.qpn());
            return false;
        }
        posted[index]++;
        totalPosted++;
        if (n == warmupPerQp && startNs == 0)
        {
            // the clock reading the peak's times take, so that the average is never above the peak
            startNs = postedNs.length > 0 ? nowNs : System.nanoTime();
        }
        if (n >= warmupPerQp && measuredPosts < postedNs.length)
        {
            postedNs[measuredPosts++] = nowNs;
        }
        return true;
    }

    private int complete(final int index)
    {
        final LocalQp q = qps[index];
        final int n = poll(q.sendCq, completions.length);
        for (int i = 0; i < n; i++)
        {
            final WorkCompletion wc = completions[i];
            if (!checkCompletion(wc))
            {
                return 0;
            }
            final long upTo = wc.wrId() + 1;
            if (verify && opcode == WrOpcode.RDMA_READ && !checkReads(q, completed[index], upTo))
            {
                return 0;
            }
            totalCompleted += upTo - completed[index];
            if (duration != null)
            {
                duration.count(upTo - completed[index]);
            }
            completed[index] = upTo;
        }
        if (n > 0)
        {
            completionsPolled += n;
            progress(totalCompleted);
            final long measured = totalCompleted - warmupPerQp * qps.length;
            if (measured > 0 && completionEvents < completedNs.length)
            {
                completedCount[completionEvents] = measured;
                completedNs[completionEvents++] = nowNs;
            }
        }
        return n;
    }

    private boolean checkReads(final LocalQp q, final long from, final long to)
    {
        final int slotBytes = q.layout.slotBytes;
        for (long n = from; n < to; n++)
        {
            final long slot = n % q.layout.slots;
            final long local = q.layout.areaBytes + slot * slotBytes;
            final long at = MemorySegment.mismatch(q.region, local, local + size,
                expected, slot * slotBytes, slot * slotBytes + size);
            if (at >= 0)
            {
                fail("verify: read " + n + " on QP " + q.qp.qpn() + " byte " + at + " of " + size +
                    " differs from the server's slot " + slot);
                return false;
            }
        }
        return true;
    }
}
