package io.rnic.cc;

/**
 * The parameters of DCQCN (IBTA annex A17.9.3; Zhu et al., "Congestion Control for Large-Scale RDMA Deployments",
 * SIGCOMM 2015) for the reaction point ({@link DcqcnReactionPoint}) and the notification point ({@link CnpThrottle}).
 * Immutable; {@link #with(String, String)} returns a changed copy.
 * <p>
 * Two named sets:
 * <ul>
 *   <li>{@link #connectX()} — the ConnectX firmware defaults (mlx5 {@code rp_*}/{@code np_*} knobs). <b>This is the
 *   product default</b> ({@link #defaults()}): a peer running real NICs reacts the same way.</li>
 *   <li>{@link #paper()} — the values of the paper's simulations: g = 1/256, K = T = 55 µs, B = 10 MB, F = 5,
 *   R_AI = 40 Mb/s, R_HAI = 200 Mb/s.</li>
 * </ul>
 * Set {@code lineRateBitsPerSec} to the port's speed: it is the initial rate and the cap of every increase.
 * <p>
 * <b>Overrides</b> ({@code --cc-param NAME=VALUE}): NAME is one of the {@code *_PARAM_NAME} constants, which are the
 * accessor names; VALUE is a plain whole number whose unit is in the name ({@code rateIncreasePeriodNs=300000},
 * {@code additiveIncreaseBitsPerSec=40000000}; {@code _} separators allowed: {@code 40_000_000}). Only {@code g}
 * is a fraction, as a decimal ({@code 0.00390625}) or a ratio ({@code 1/256}, {@code 1019/1024}). Suffixes such as
 * {@code 40mbps} are rejected rather than guessed.
 */
public final class DcqcnParameters
{
    /** Alpha gain g: on a CNP {@code α = (1-g)·α + g}; every K without one {@code α = (1-g)·α}. In (0, 1]. */
    public static final String G_PARAM_NAME = "g";
    /** K: the alpha update period, nanoseconds. */
    public static final String ALPHA_UPDATE_PERIOD_NS_PARAM_NAME = "alphaUpdatePeriodNs";
    /** T: the rate-increase timer (ConnectX {@code rp_time_reset}), nanoseconds. */
    public static final String RATE_INCREASE_PERIOD_NS_PARAM_NAME = "rateIncreasePeriodNs";
    /** B: bytes sent per byte-counter increase event (ConnectX {@code rp_byte_reset}); 0 disables the counter. */
    public static final String BYTE_COUNTER_BYTES_PARAM_NAME = "byteCounterBytes";
    /** F: the fast-recovery threshold, in increase events of one counter (ConnectX {@code rp_threshold}). */
    public static final String FAST_RECOVERY_THRESHOLD_PARAM_NAME = "fastRecoveryThreshold";
    /** R_AI: target-rate step of additive increase (ConnectX {@code rp_ai_rate}), bits/s. */
    public static final String ADDITIVE_INCREASE_BITS_PER_SEC_PARAM_NAME = "additiveIncreaseBitsPerSec";
    /** R_HAI: target-rate step of hyper increase (ConnectX {@code rp_hai_rate}), bits/s. */
    public static final String HYPER_INCREASE_BITS_PER_SEC_PARAM_NAME = "hyperIncreaseBitsPerSec";
    /** The floor of the current rate (ConnectX {@code rp_min_rate}), bits/s. */
    public static final String MIN_RATE_BITS_PER_SEC_PARAM_NAME = "minRateBitsPerSec";
    /** The initial rate and the cap of every increase: the port's speed, bits/s. */
    public static final String LINE_RATE_BITS_PER_SEC_PARAM_NAME = "lineRateBitsPerSec";
    /**
     * One CNP keeps at least this percentage of the current rate (ConnectX {@code rp_min_dec_fac}). Since α ≤ 1
     * the DCQCN cut {@code 1 - α/2} never goes below 50 %, so only values above 50 change anything.
     */
    public static final String MIN_DECREASE_PERCENT_PARAM_NAME = "minDecreasePercent";
    /** Notification point: at most one CNP per QP per this interval (ConnectX {@code np_min_time_between_cnps}). */
    public static final String CNP_INTERVAL_NS_PARAM_NAME = "cnpIntervalNs";

    /** The names {@link #with(String, String)} knows, in the order of the constructor. */
    public static final String KNOWN_NAMES = String.join(", ", G_PARAM_NAME, ALPHA_UPDATE_PERIOD_NS_PARAM_NAME,
        RATE_INCREASE_PERIOD_NS_PARAM_NAME, BYTE_COUNTER_BYTES_PARAM_NAME, FAST_RECOVERY_THRESHOLD_PARAM_NAME,
        ADDITIVE_INCREASE_BITS_PER_SEC_PARAM_NAME, HYPER_INCREASE_BITS_PER_SEC_PARAM_NAME,
        MIN_RATE_BITS_PER_SEC_PARAM_NAME, LINE_RATE_BITS_PER_SEC_PARAM_NAME, MIN_DECREASE_PERCENT_PARAM_NAME,
        CNP_INTERVAL_NS_PARAM_NAME);

    /** ConnectX {@code rp_dce_tcp_g} = 1019, a 10-bit fixed-point fraction: g = 1019/1024 (see {@link #connectX()}). */
    public static final double G_DEFAULT = 1019.0 / 1024.0;
    /** Not on the ConnectX list of our reference card: the paper's 55 µs is kept. */
    public static final long ALPHA_UPDATE_PERIOD_NS_DEFAULT = 55_000;
    public static final long RATE_INCREASE_PERIOD_NS_DEFAULT = 300_000;
    public static final long BYTE_COUNTER_BYTES_DEFAULT = 32_767;
    public static final int FAST_RECOVERY_THRESHOLD_DEFAULT = 1;
    public static final long ADDITIVE_INCREASE_BITS_PER_SEC_DEFAULT = 5_000_000;
    public static final long HYPER_INCREASE_BITS_PER_SEC_DEFAULT = 50_000_000;
    public static final long MIN_RATE_BITS_PER_SEC_DEFAULT = 1_000_000;
    public static final long LINE_RATE_BITS_PER_SEC_DEFAULT = 100_000_000_000L;
    public static final int MIN_DECREASE_PERCENT_DEFAULT = 50;
    public static final long CNP_INTERVAL_NS_DEFAULT = 50_000;

    /** Rates are bounded so that the shaper's fixed-point arithmetic cannot overflow. */
    public static final long MIN_SUPPORTED_RATE_BITS_PER_SEC = TokenBucketShaper.MIN_RATE_BITS_PER_SEC;
    public static final long MAX_SUPPORTED_RATE_BITS_PER_SEC = TokenBucketShaper.MAX_RATE_BITS_PER_SEC;
    public static final long MAX_PERIOD_NS = 10_000_000_000L;
    public static final long MIN_PERIOD_NS = 1_000;
    public static final long MIN_BYTE_COUNTER_BYTES = 1_024;
    public static final long MAX_BYTE_COUNTER_BYTES = 1L << 40;
    public static final int MAX_FAST_RECOVERY_THRESHOLD = 1_000_000;

    private final double g;
    private final long alphaUpdatePeriodNs;
    private final long rateIncreasePeriodNs;
    private final long byteCounterBytes;
    private final int fastRecoveryThreshold;
    private final long additiveIncreaseBitsPerSec;
    private final long hyperIncreaseBitsPerSec;
    private final long minRateBitsPerSec;
    private final long lineRateBitsPerSec;
    private final int minDecreasePercent;
    private final long cnpIntervalNs;

    /** @throws IllegalArgumentException naming the first parameter out of its range, and the range. */
    public DcqcnParameters(
        final double g,
        final long alphaUpdatePeriodNs,
        final long rateIncreasePeriodNs,
        final long byteCounterBytes,
        final int fastRecoveryThreshold,
        final long additiveIncreaseBitsPerSec,
        final long hyperIncreaseBitsPerSec,
        final long minRateBitsPerSec,
        final long lineRateBitsPerSec,
        final int minDecreasePercent,
        final long cnpIntervalNs)
    {
        if (!(g > 0.0 && g <= 1.0))
        {
            throw new IllegalArgumentException(G_PARAM_NAME + " must be in (0, 1], was " + g);
        }
        check(ALPHA_UPDATE_PERIOD_NS_PARAM_NAME, alphaUpdatePeriodNs, MIN_PERIOD_NS, MAX_PERIOD_NS);
        check(RATE_INCREASE_PERIOD_NS_PARAM_NAME, rateIncreasePeriodNs, MIN_PERIOD_NS, MAX_PERIOD_NS);
        if (byteCounterBytes != 0)
        {
            check(BYTE_COUNTER_BYTES_PARAM_NAME + " (0 disables it)", byteCounterBytes,
                MIN_BYTE_COUNTER_BYTES, MAX_BYTE_COUNTER_BYTES);
        }
        check(FAST_RECOVERY_THRESHOLD_PARAM_NAME, fastRecoveryThreshold, 0, MAX_FAST_RECOVERY_THRESHOLD);
        check(LINE_RATE_BITS_PER_SEC_PARAM_NAME, lineRateBitsPerSec,
            MIN_SUPPORTED_RATE_BITS_PER_SEC, MAX_SUPPORTED_RATE_BITS_PER_SEC);
        final String upToLineRate = LINE_RATE_BITS_PER_SEC_PARAM_NAME + "=" + lineRateBitsPerSec;
        check(MIN_RATE_BITS_PER_SEC_PARAM_NAME, minRateBitsPerSec, MIN_SUPPORTED_RATE_BITS_PER_SEC, lineRateBitsPerSec,
            Long.toString(MIN_SUPPORTED_RATE_BITS_PER_SEC), upToLineRate);
        // zero steps would let the recovery stall below line rate, and the catch-up relies on progress
        check(ADDITIVE_INCREASE_BITS_PER_SEC_PARAM_NAME, additiveIncreaseBitsPerSec, 1, lineRateBitsPerSec,
            "1", upToLineRate);
        check(HYPER_INCREASE_BITS_PER_SEC_PARAM_NAME, hyperIncreaseBitsPerSec, 1, lineRateBitsPerSec,
            "1", upToLineRate);
        check(MIN_DECREASE_PERCENT_PARAM_NAME, minDecreasePercent, 1, 100);
        check(CNP_INTERVAL_NS_PARAM_NAME, cnpIntervalNs, 0, MAX_PERIOD_NS);

        this.g = g;
        this.alphaUpdatePeriodNs = alphaUpdatePeriodNs;
        this.rateIncreasePeriodNs = rateIncreasePeriodNs;
        this.byteCounterBytes = byteCounterBytes;
        this.fastRecoveryThreshold = fastRecoveryThreshold;
        this.additiveIncreaseBitsPerSec = additiveIncreaseBitsPerSec;
        this.hyperIncreaseBitsPerSec = hyperIncreaseBitsPerSec;
        this.minRateBitsPerSec = minRateBitsPerSec;
        this.lineRateBitsPerSec = lineRateBitsPerSec;
        this.minDecreasePercent = minDecreasePercent;
        this.cnpIntervalNs = cnpIntervalNs;
    }

    /** The product default: {@link #connectX()}. */
    public static DcqcnParameters defaults()
    {
        return connectX();
    }

    /**
     * ConnectX firmware defaults, from the mlx5 congestion knobs: time reset ({@code rp_time_reset}, the increase
     * timer T) 300 µs; byte reset ({@code rp_byte_reset}, the byte counter B) 32767 B; threshold F 1 (one fast
     * recovery step, then additive increase); AI 5 Mb/s; HAI 50 Mb/s; min rate 1 Mb/s; min decrease factor 50 %
     * (a CNP never cuts below half the current rate); CNP interval 50 µs; line rate 100 Gb/s (set the port's).
     * <p>
     * G = 1019 ({@code rp_dce_tcp_g}) is g in 10-bit fixed point, g = G/1024 ≈ 0.995, as our reference card has it.
     * With so large a gain α is ≈ 1 right after a CNP and ≈ 0.005·α one period K later: in effect each CNP halves
     * the rate (the 50 % floor) and the cut hardly depends on the history. K is not on the card; the paper's 55 µs
     * is used.
     */
    public static DcqcnParameters connectX()
    {
        return new DcqcnParameters(G_DEFAULT, ALPHA_UPDATE_PERIOD_NS_DEFAULT, RATE_INCREASE_PERIOD_NS_DEFAULT,
            BYTE_COUNTER_BYTES_DEFAULT, FAST_RECOVERY_THRESHOLD_DEFAULT, ADDITIVE_INCREASE_BITS_PER_SEC_DEFAULT,
            HYPER_INCREASE_BITS_PER_SEC_DEFAULT, MIN_RATE_BITS_PER_SEC_DEFAULT, LINE_RATE_BITS_PER_SEC_DEFAULT,
            MIN_DECREASE_PERCENT_DEFAULT, CNP_INTERVAL_NS_DEFAULT);
    }

    /**
     * The paper's simulation parameters: g = 1/256, K = 55 µs, T = 55 µs, B = 10 MB (10,000,000 bytes), F = 5,
     * R_AI = 40 Mb/s, R_HAI = 200 Mb/s, CNP interval 50 µs, line rate 40 Gb/s (the paper's testbed). The paper
     * gives no minimum rate and no minimum decrease factor: 10 Mb/s is our choice, and 50 % is no constraint
     * (α ≤ 1 never cuts more than half).
     */
    public static DcqcnParameters paper()
    {
        return new DcqcnParameters(1.0 / 256, 55_000, 55_000, 10_000_000, 5, 40_000_000, 200_000_000,
            10_000_000, 40_000_000_000L, 50, 50_000);
    }

    /** {@code --cc-param NAME=VALUE}: see {@link #with(String, String)}. */
    public DcqcnParameters with(final String nameEqualsValue)
    {
        final int equals = nameEqualsValue.indexOf('=');
        if (equals <= 0)
        {
            throw new IllegalArgumentException("cc-param '" + nameEqualsValue + "' is not NAME=VALUE; known names: " +
                KNOWN_NAMES);
        }
        return with(nameEqualsValue.substring(0, equals).trim(), nameEqualsValue.substring(equals + 1).trim());
    }

    /**
     * A copy with one parameter changed. NAME is a {@code *_PARAM_NAME} (case-sensitive); VALUE a plain whole number
     * in the unit the name carries ({@code _} separators allowed), or for {@code g} a decimal or {@code n/d}.
     *
     * @throws IllegalArgumentException for an unknown name (listing the known ones), a value that is not a number,
     *                                  or one out of range.
     */
    public DcqcnParameters with(final String name, final String value)
    {
        double g = this.g;
        long k = alphaUpdatePeriodNs;
        long t = rateIncreasePeriodNs;
        long b = byteCounterBytes;
        int f = fastRecoveryThreshold;
        long ai = additiveIncreaseBitsPerSec;
        long hai = hyperIncreaseBitsPerSec;
        long min = minRateBitsPerSec;
        long line = lineRateBitsPerSec;
        int dec = minDecreasePercent;
        long cnp = cnpIntervalNs;
        switch (name)
        {
            case G_PARAM_NAME -> g = parseFraction(name, value);
            case ALPHA_UPDATE_PERIOD_NS_PARAM_NAME -> k = parseWhole(name, value);
            case RATE_INCREASE_PERIOD_NS_PARAM_NAME -> t = parseWhole(name, value);
            case BYTE_COUNTER_BYTES_PARAM_NAME -> b = parseWhole(name, value);
            case FAST_RECOVERY_THRESHOLD_PARAM_NAME -> f = toInt(name, parseWhole(name, value));
            case ADDITIVE_INCREASE_BITS_PER_SEC_PARAM_NAME -> ai = parseWhole(name, value);
            case HYPER_INCREASE_BITS_PER_SEC_PARAM_NAME -> hai = parseWhole(name, value);
            case MIN_RATE_BITS_PER_SEC_PARAM_NAME -> min = parseWhole(name, value);
            case LINE_RATE_BITS_PER_SEC_PARAM_NAME -> line = parseWhole(name, value);
            case MIN_DECREASE_PERCENT_PARAM_NAME -> dec = toInt(name, parseWhole(name, value));
            case CNP_INTERVAL_NS_PARAM_NAME -> cnp = parseWhole(name, value);
            default -> throw new IllegalArgumentException("unknown cc-param '" + name + "'; known names: " +
                KNOWN_NAMES);
        }
        return new DcqcnParameters(g, k, t, b, f, ai, hai, min, line, dec, cnp);
    }

    public double g()
    {
        return g;
    }

    public long alphaUpdatePeriodNs()
    {
        return alphaUpdatePeriodNs;
    }

    public long rateIncreasePeriodNs()
    {
        return rateIncreasePeriodNs;
    }

    public long byteCounterBytes()
    {
        return byteCounterBytes;
    }

    public int fastRecoveryThreshold()
    {
        return fastRecoveryThreshold;
    }

    public long additiveIncreaseBitsPerSec()
    {
        return additiveIncreaseBitsPerSec;
    }

    public long hyperIncreaseBitsPerSec()
    {
        return hyperIncreaseBitsPerSec;
    }

    public long minRateBitsPerSec()
    {
        return minRateBitsPerSec;
    }

    public long lineRateBitsPerSec()
    {
        return lineRateBitsPerSec;
    }

    public int minDecreasePercent()
    {
        return minDecreasePercent;
    }

    public long cnpIntervalNs()
    {
        return cnpIntervalNs;
    }

    public String toString()
    {
        return G_PARAM_NAME + "=" + g + ' ' + ALPHA_UPDATE_PERIOD_NS_PARAM_NAME + "=" + alphaUpdatePeriodNs + ' ' +
            RATE_INCREASE_PERIOD_NS_PARAM_NAME + "=" + rateIncreasePeriodNs + ' ' +
            BYTE_COUNTER_BYTES_PARAM_NAME + "=" + byteCounterBytes + ' ' +
            FAST_RECOVERY_THRESHOLD_PARAM_NAME + "=" + fastRecoveryThreshold + ' ' +
            ADDITIVE_INCREASE_BITS_PER_SEC_PARAM_NAME + "=" + additiveIncreaseBitsPerSec + ' ' +
            HYPER_INCREASE_BITS_PER_SEC_PARAM_NAME + "=" + hyperIncreaseBitsPerSec + ' ' +
            MIN_RATE_BITS_PER_SEC_PARAM_NAME + "=" + minRateBitsPerSec + ' ' +
            LINE_RATE_BITS_PER_SEC_PARAM_NAME + "=" + lineRateBitsPerSec + ' ' +
            MIN_DECREASE_PERCENT_PARAM_NAME + "=" + minDecreasePercent + ' ' +
            CNP_INTERVAL_NS_PARAM_NAME + "=" + cnpIntervalNs;
    }

    private static void check(final String name, final long value, final long min, final long max)
    {
        check(name, value, min, max, Long.toString(min), Long.toString(max));
    }

    private static void check(
        final String name, final long value, final long min, final long max, final String minText, final String maxText)
    {
        if (value < min || value > max)
        {
            throw new IllegalArgumentException(name + " must be in [" + minText + ", " + maxText + "], was " + value);
        }
    }

    private static int toInt(final String name, final long value)
    {
        if (value > Integer.MAX_VALUE)
        {
            throw new IllegalArgumentException(name + "=" + value + " is too large");
        }
        return (int)value;
    }

    private static long parseWhole(final String name, final String value)
    {
        final String digits = value.replace("_", "");
        if (digits.isEmpty() || !digits.chars().allMatch(Character::isDigit))
        {
            throw new IllegalArgumentException("cc-param " + name + "=" + value + ": expected a plain whole number " +
                "(the unit is in the name, e.g. " + ADDITIVE_INCREASE_BITS_PER_SEC_PARAM_NAME + "=40_000_000)");
        }
        try
        {
            return Long.parseLong(digits);
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException("cc-param " + name + "=" + value + ": too large", ex);
        }
    }

    private static double parseFraction(final String name, final String value)
    {
        try
        {
            final int slash = value.indexOf('/');
            if (slash < 0)
            {
                return Double.parseDouble(value);
            }
            final double numerator = Double.parseDouble(value.substring(0, slash));
            final double denominator = Double.parseDouble(value.substring(slash + 1));
            return numerator / denominator; // 1/0 = ∞ and 0/0 = NaN fail the range check
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException("cc-param " + name + "=" + value +
                ": expected a fraction in (0, 1] as a decimal (0.00390625) or a ratio (1/256)", ex);
        }
    }
}
