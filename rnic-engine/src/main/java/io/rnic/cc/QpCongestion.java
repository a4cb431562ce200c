package io.rnic.cc;

/**
 * DCQCN for one QP, as the engine drives it: the reaction point (the rate Rc), the token bucket that paces the
 * QP's requester at Rc, and the notification point's CNP throttle for packets the QP receives. Engine thread only,
 * except {@link #rateBitsPerSec()}, which any thread may read while the engine runs. No allocation, no clock read.
 * <p>
 * The reaction point's timers are advanced lazily, when the QP tries to send ({@link #mayTransmit}) or gets a CNP:
 * the rate only matters when there is something to send, and {@link DcqcnReactionPoint#advance} catches up on any
 * gap in bounded work, so an idle QP needs no timer of its own.
 */
public final class QpCongestion
{
    /**
     * Depth of the shaper's bucket. A busy-polling engine looks at a QP once per duty cycle, so the bucket must hold
     * a cycle's worth of credit or the QP falls below its rate (8 KB is 6.5 µs at 10 Gb/s); a larger bucket lets a
     * QP throw a larger burst at a bottleneck queue. Two 4 KB-MTU frames.
     */
    public static final int SHAPER_BURST_BYTES_DEFAULT = 8 * 1024;

    private final DcqcnParameters parameters;
    private final DcqcnReactionPoint reactionPoint;
    private final TokenBucketShaper shaper;
    private final CnpThrottle cnpThrottle;
    /** Rc as last applied to the shaper, for readers on other threads. */
    private volatile long publishedRateBitsPerSec;

    public QpCongestion(final DcqcnParameters parameters, final long nowNs)
    {
        this(parameters, SHAPER_BURST_BYTES_DEFAULT, nowNs);
    }

    public QpCongestion(final DcqcnParameters parameters, final int shaperBurstBytes, final long nowNs)
    {
        this.parameters = parameters;
        reactionPoint = new DcqcnReactionPoint(parameters);
        shaper = new TokenBucketShaper(parameters.lineRateBitsPerSec(), shaperBurstBytes, nowNs);
        cnpThrottle = new CnpThrottle(parameters);
        publishedRateBitsPerSec = parameters.lineRateBitsPerSec();
    }

    public DcqcnParameters parameters()
    {
        return parameters;
    }

    /**
     * Whether the QP may put its next packet on the wire now. The frame's size is not known before it is built:
     * a packet goes while the bucket holds any credit and is charged in full afterwards ({@link #onTransmitted}),
     * which may leave the bucket in debt; the next packet waits for that debt to be paid, so the long-run rate is
     * exact.
     */
    public boolean mayTransmit(final long nowNs)
    {
        reactionPoint.advance(nowNs);
        followRate(nowNs);
        return shaper.mayTransmit(1, nowNs);
    }

    /** A frame of the QP's requester left at {@code nowNs}: charged to the bucket and to the byte counter. */
    public void onTransmitted(final int frameBytes, final long nowNs)
    {
        shaper.consume(frameBytes, nowNs);
        reactionPoint.onBytesSent(frameBytes, nowNs);
        followRate(nowNs);
    }

    /** Reaction point: a CNP for this QP arrived. */
    public void onCnp(final long nowNs)
    {
        reactionPoint.onCnp(nowNs);
        followRate(nowNs);
    }

    /** Notification point: a valid CE-marked packet for this QP arrived; true if a CNP is to be sent for it. */
    public boolean onCeMarked(final long nowNs)
    {
        return cnpThrottle.shouldSendCnp(nowNs);
    }

    /** Rc in bits/s, as of the QP's last send attempt or CNP. Any thread. */
    public long rateBitsPerSec()
    {
        return publishedRateBitsPerSec;
    }

    /** Rt: what the rate recovers towards. Engine thread. */
    public long targetRateBitsPerSec()
    {
        return reactionPoint.targetRateBitsPerSec();
    }

    /** Engine thread (tests and diagnostics). */
    public DcqcnReactionPoint reactionPoint()
    {
        return reactionPoint;
    }

    /** Engine thread (tests and diagnostics). */
    public CnpThrottle cnpThrottle()
    {
        return cnpThrottle;
    }

    /** ns until the shaper lets the next packet go (0: now). Engine thread. */
    public long nanosUntilAllowed(final long nowNs)
    {
        return shaper.nanosUntilAllowed(1, nowNs);
    }

    /** Back to line rate with a full bucket, counters at zero: the QP went through RESET. */
    public void reset(final long nowNs)
    {
        reactionPoint.reset();
        cnpThrottle.reset();
        followRate(nowNs);
    }

    private void followRate(final long nowNs)
    {
        final long rate = reactionPoint.rateBitsPerSec();
        if (rate != shaper.rateBitsPerSec())
        {
            shaper.rateBitsPerSec(rate, nowNs); // a division, only when the rate changes (CNP or increase event)
            publishedRateBitsPerSec = rate;
        }
    }
}
