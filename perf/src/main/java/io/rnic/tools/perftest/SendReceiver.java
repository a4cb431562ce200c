package io.rnic.tools.perftest;

import io.rnic.tools.LocalQp;
import io.rnic.tools.QpLayout;
import io.rnic.verbs.QpType;
import io.rnic.verbs.WorkCompletion;

import java.lang.foreign.MemorySegment;

/**
 * The server side of {@code ib_send_bw}: keeps {@code -r} receive WQEs posted on every QP (WQE {@code k} into slot
 * {@code k % slots}), replaces each as it completes, and ends when every QP received its messages. With
 * {@code --verify} each message must hold the pattern of the client's slot it came from. Times the run from the
 * arrival that ends the client's warm-up (the first arrival when there is none, as perftest's server) to the
 * last. With {@code -D} it counts the messages of its measurement, and after the duration's end stays until no
 * message has arrived for {@link #QUIET_AFTER_END_NS}, so that the client's last ones find their receives; with
 * {@code --run_infinitely} it ends so once the client's messages stop.
 */
public final class SendReceiver extends ToolApplication
{
    private final LocalQp[] qps;
    private final long perQp;
    private final long warmupPerQp;
    private final int rxDepth;
    private final boolean verify;
    private final boolean immediate;
    private final MemorySegment expected;
    private final int size;
    /** UD: each receive starts with the 40-byte GRH area, the message after it. */
    private final int payloadOffset;
    private final long[] received;
    private final long[] posted;
    private long totalReceived;
    private long startNs;
    private long endNs;
    /** -D, else null. */
    private final DurationPhases duration;
    private long lastArrivalNs;
    /** How long nothing must arrive after -D's end before the receiver ends. */
    static final long QUIET_AFTER_END_NS = 200_000_000L;

    /** @param expected with verify: the client's slot patterns, one slot after another; else null. */
    SendReceiver(final LocalQp[] qps, final long perQp, final long warmupPerQp, final int rxDepth,
        final boolean verify, final boolean immediate, final MemorySegment expected, final DurationPhases duration)
    {
        this.duration = duration;
        this.warmupPerQp = warmupPerQp;
        this.immediate = immediate;
        this.qps = qps;
        this.perQp = perQp;
        this.rxDepth = rxDepth;
        this.verify = verify;
        this.expected = expected;
        this.size = qps[0].layout.messageBytes;
        this.payloadOffset = qps[0].qp.type() == QpType.UD ? QpLayout.GRH_BYTES : 0;
        this.received = new long[qps.length];
        this.posted = new long[qps.length];
    }

    long elapsedNs()
    {
        return duration != null ? duration.measuredNs() : endNs - startNs;
    }

    /** Messages timed: after the warm-up, on every QP, or in -D's measurement. */
    long operations()
    {
        return duration != null ? duration.measured() : (perQp - warmupPerQp) * qps.length;
    }

    /** Posts the first receive WQEs: before the client may send. */
    void postReceives()
    {
        for (int i = 0; i < qps.length; i++)
        {
            final long first = Math.min(rxDepth, perQp);
            for (long k = 0; k < first; k++)
            {
                final int rc = qps[i].postReceive(k, verify ? k % qps[i].layout.slots : 0);
                if (rc != 0)
                {
                    throw new IllegalStateException("ibv_post_recv returned " + rc + " (receive depth " + rxDepth +
                        ")");
                }
                posted[i]++;
            }
        }
    }

    @Override
    public int doWork()
    {
        if (!running())
        {
            return 0;
        }
        final long nowNs = duration != null ? System.nanoTime() : 0;
        final int phase = duration != null ? duration.advance(nowNs) : DurationPhases.MEASURE;
        int work = 0;
        for (int i = 0; i < qps.length; i++)
        {
            final LocalQp q = qps[i];
            final int n = poll(q.recvCq, completions.length);
            if (duration != null && n > 0)
            {
                duration.count(n);
                lastArrivalNs = nowNs;
            }
            for (int c = 0; c < n; c++)
            {
                final WorkCompletion wc = completions[c];
                if (!checkCompletion(wc) || !check(q, wc))
                {
                    return 0;
                }
                received[i]++;
                if (++totalReceived == Math.max(1, warmupPerQp * qps.length))
                {
                    startNs = System.nanoTime();
                }
                if (posted[i] < perQp)
                {
                    final long k = posted[i]++;
                    final int rc = q.postReceive(k, verify ? k % q.layout.slots : 0);
                    if (rc != 0)
                    {
                        fail("ibv_post_recv returned " + rc);
                        return 0;
                    }
                }
            }
            work += n;
        }
        if (work > 0)
        {
            progress(totalReceived);
        }
        if (duration != null && duration.isInfinite() && lastArrivalNs != 0 &&
            nowNs - lastArrivalNs >= QUIET_AFTER_END_NS)
        {
            duration.stop(); // --run_infinitely: the client has stopped
        }
        if (duration != null ? phase == DurationPhases.END && nowNs - lastArrivalNs >= QUIET_AFTER_END_NS :
            totalReceived == perQp * qps.length)
        {
            endNs = System.nanoTime();
            finish();
        }
        return work;
    }

    private boolean check(final LocalQp q, final WorkCompletion wc)
    {
        if (wc.byteLength() != size + payloadOffset)
        {
            fail("message " + wc.wrId() + " on QP " + q.qp.qpn() + " has " + wc.byteLength() + " bytes, expected " +
                (size + payloadOffset));
            return false;
        }
        if (!verify)
        {
            return true;
        }
        if (immediate && (!wc.hasFlag(WorkCompletion.WITH_IMM) || wc.immediateData() != (int)wc.wrId()))
        {
            fail("verify: message " + wc.wrId() + " on QP " + q.qp.qpn() + " arrived " +
                (wc.hasFlag(WorkCompletion.WITH_IMM) ? "with immediate " + wc.immediateData() :
                "without immediate data"));
            return false;
        }
        final long slot = wc.wrId() % q.layout.slots;
        final long local = q.layout.areaBytes + slot * q.layout.slotBytes + payloadOffset;
        final long reference = slot * q.layout.slotBytes;
        final long at = MemorySegment.mismatch(q.region, local, local + size, expected, reference, reference + size);
        if (at >= 0)
        {
            fail("verify: message " + wc.wrId() + " on QP " + q.qp.qpn() + " byte " + at + " of " + size +
                " differs from what the client sent");
            return false;
        }
        return true;
    }
}
