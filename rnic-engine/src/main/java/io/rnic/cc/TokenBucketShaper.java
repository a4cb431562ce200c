package io.rnic.cc;

/**
 * Paces one QP at a rate in bits/s with a burst allowance in bytes: a token bucket of {@code burstBytes} filled at
 * the rate, kept as the time its debt is paid off (the GCRA "theoretical arrival time"), so a check is a
 * multiplication, an addition and a comparison: no division, no allocation, no clock read. Engine thread only.
 * <p>
 * A frame may go when, after sending it, the bucket would owe no more than the burst allowance, i.e. when its
 * bytes are in the bucket; a frame larger than the allowance goes when the bucket is full (so a too-small allowance
 * slows nothing down, it only forbids back-to-back frames). An idle QP gains no credit beyond a full bucket.
 * {@link #nanosUntilAllowed} tells a busy-polling engine how long to skip the QP.
 * <p>
 * Rate changes ({@link #rateBitsPerSec(long, long)}) keep the credit in bytes: the debt is converted to the new
 * rate, the bucket neither refills nor empties. Rates count the bytes passed in (whatever the caller counts: e.g.
 * the Ethernet frame without preamble and gap).
 */
public final class TokenBucketShaper
{
    /** Slowest supported rate: with {@link #MAX_FRAME_BYTES} the cost of a frame still fits in a long. */
    public static final long MIN_RATE_BITS_PER_SEC = 1_000;
    /** Fastest supported rate, 10 Tb/s: a byte still costs 839 units of 2^-20 ns (an error under 0.1 %). */
    public static final long MAX_RATE_BITS_PER_SEC = 10_000_000_000_000L;
    public static final int MAX_FRAME_BYTES = 1 << 20;
    public static final int MAX_BURST_BYTES = 1 << 30;

    /** Time is kept in fixed point with this many fraction bits of a nanosecond. */
    private static final int FRACTION_BITS = 20;
    private static final long FRACTION_MASK = (1L << FRACTION_BITS) - 1;
    private static final long NS_PER_SECOND_BITS = 8_000_000_000L; // ns per byte at 1 bit/s = 8e9

    private final int burstBytes;
    private long rateBitsPerSec;
    /** Cost of one byte in 2^-20 ns: 8e9·2^20 / rate, rounded. */
    private long nsPerByteFixed;
    /** How far ahead of now the debt may run: the burst allowance's worth of time, whole ns. */
    private long burstNs;
    /** When the bucket is full again: whole ns and the fraction in 2^-20 ns. At or before now: full. */
    private long fullAtNs;
    private long fullAtFraction;

    /**
     * @param rateBitsPerSec in [{@link #MIN_RATE_BITS_PER_SEC}, {@link #MAX_RATE_BITS_PER_SEC}].
     * @param burstBytes     bucket depth, in [1, {@link #MAX_BURST_BYTES}]; e.g. one or two maximum frames.
     * @param nowNs          the bucket starts full at this time.
     */
    public TokenBucketShaper(final long rateBitsPerSec, final int burstBytes, final long nowNs)
    {
        if (burstBytes < 1 || burstBytes > MAX_BURST_BYTES)
        {
            throw new IllegalArgumentException("burstBytes must be in [1, " + MAX_BURST_BYTES + "], was " + burstBytes);
        }
        this.burstBytes = burstBytes;
        this.fullAtNs = nowNs;
        setRate(rateBitsPerSec);
    }

    /** Whether a frame of {@code frameBytes} (1 to {@link #MAX_FRAME_BYTES}) may go now; changes nothing. */
    public boolean mayTransmit(final int frameBytes, final long nowNs)
    {
        if (fullAtNs - nowNs <= 0)
        {
            return true;
        }
        final long cost = frameBytes * nsPerByteFixed;
        final long endNs = fullAtNs + (cost >>> FRACTION_BITS) + ((fullAtFraction + (cost & FRACTION_MASK)) >>>
            FRACTION_BITS);
        return endNs - nowNs <= burstNs;
    }

    /** Charges a frame sent at {@code nowNs}, allowed or not (a frame that must go, e.g. an ACK, still counts). */
    public void consume(final int frameBytes, final long nowNs)
    {
        if (fullAtNs - nowNs < 0)
        {
            fullAtNs = nowNs; // idle: the bucket is full, no credit beyond it
            fullAtFraction = 0;
        }
        final long cost = frameBytes * nsPerByteFixed;
        final long fraction = fullAtFraction + (cost & FRACTION_MASK);
        fullAtNs += (cost >>> FRACTION_BITS) + (fraction >>> FRACTION_BITS);
        fullAtFraction = fraction & FRACTION_MASK;
    }

    /** {@link #mayTransmit} and, if so, {@link #consume}. */
    public boolean tryConsume(final int frameBytes, final long nowNs)
    {
        if (mayTransmit(frameBytes, nowNs))
        {
            consume(frameBytes, nowNs);
            return true;
        }
        return false;
    }

    /** 0 if the frame may go now, else how many ns until it may (given no other frame is charged meanwhile). */
    public long nanosUntilAllowed(final int frameBytes, final long nowNs)
    {
        if (fullAtNs - nowNs <= 0)
        {
            return 0;
        }
        final long cost = frameBytes * nsPerByteFixed;
        final long endNs = fullAtNs + (cost >>> FRACTION_BITS) + ((fullAtFraction + (cost & FRACTION_MASK)) >>>
            FRACTION_BITS);
        // allowed once endNs - t <= burstNs, or once the bucket is full (an oversize frame)
        final long allowedAtNs = Math.min(endNs - burstNs, fullAtNs);
        final long waitNs = allowedAtNs - nowNs;
        return waitNs > 0 ? waitNs : 0;
    }

    /** Changes the rate at {@code nowNs}, keeping the credit in bytes. Not for every packet: it divides. */
    public void rateBitsPerSec(final long rateBitsPerSec, final long nowNs)
    {
        if (rateBitsPerSec == this.rateBitsPerSec)
        {
            return;
        }
        final long oldNsPerByteFixed = nsPerByteFixed;
        setRate(rateBitsPerSec);
        if (fullAtNs - nowNs > 0)
        {
            final double debtNs = (fullAtNs - nowNs) + fullAtFraction / (double)(1L << FRACTION_BITS);
            final double newDebtNs = debtNs * nsPerByteFixed / oldNsPerByteFixed;
            final long wholeNs = (long)newDebtNs;
            fullAtNs = nowNs + wholeNs;
            fullAtFraction = Math.min((long)((newDebtNs - wholeNs) * (1L << FRACTION_BITS)), FRACTION_MASK);
        }
    }

    public long rateBitsPerSec()
    {
        return rateBitsPerSec;
    }

    public int burstBytes()
    {
        return burstBytes;
    }

    /** The bytes in the bucket at {@code nowNs}: {@link #burstBytes()} when full, negative after an oversize frame. */
    public long creditBytes(final long nowNs)
    {
        if (fullAtNs - nowNs <= 0)
        {
            return burstBytes;
        }
        final double debtFixed = (double)(fullAtNs - nowNs) * (1L << FRACTION_BITS) + fullAtFraction;
        return burstBytes - (long)Math.ceil(debtFixed / nsPerByteFixed);
    }

    private void setRate(final long rateBitsPerSec)
    {
        if (rateBitsPerSec < MIN_RATE_BITS_PER_SEC || rateBitsPerSec > MAX_RATE_BITS_PER_SEC)
        {
            throw new IllegalArgumentException("rateBitsPerSec must be in [" + MIN_RATE_BITS_PER_SEC + ", " +
                MAX_RATE_BITS_PER_SEC + "], was " + rateBitsPerSec);
        }
        this.rateBitsPerSec = rateBitsPerSec;
        nsPerByteFixed = ((NS_PER_SECOND_BITS << FRACTION_BITS) + rateBitsPerSec / 2) / rateBitsPerSec;
        // burstBytes·nsPerByteFixed can pass 2^63 at low rates: the 128-bit product, shifted
        final long high = Math.multiplyHigh(burstBytes, nsPerByteFixed);
        final long low = burstBytes * nsPerByteFixed;
        burstNs = high >>> (FRACTION_BITS - 1) != 0 ? Long.MAX_VALUE / 4 :
            (high << (64 - FRACTION_BITS)) | (low >>> FRACTION_BITS);
    }
}
