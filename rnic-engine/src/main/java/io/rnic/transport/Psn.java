package io.rnic.transport;

/**
 * 24-bit packet sequence number arithmetic (IBTA 9.7.1): PSNs wrap, so "before" and "after" are decided by the
 * sign of the 24-bit difference, as rxe's {@code psn_compare} does: {@code ((a - b) << 8) >> 8}.
 */
public final class Psn
{
    public static final int MASK = 0xFF_FFFF;
    /** Half the PSN space: the largest distance at which order is still defined. */
    public static final int HALF_SPACE = 1 << 23;

    private Psn()
    {
    }

    /** Signed distance from {@code b} to {@code a}: negative when a is before b, 0 when equal, positive after. */
    public static int compare(final int a, final int b)
    {
        return ((a - b) << 8) >> 8;
    }

    public static boolean isBefore(final int a, final int b)
    {
        return compare(a, b) < 0;
    }

    public static boolean isAfter(final int a, final int b)
    {
        return compare(a, b) > 0;
    }

    public static int add(final int psn, final int delta)
    {
        return (psn + delta) & MASK;
    }

    public static int next(final int psn)
    {
        return (psn + 1) & MASK;
    }

    /** Number of PSNs from {@code from} (inclusive) to {@code to} (exclusive), going forward. */
    public static int distance(final int from, final int to)
    {
        return (to - from) & MASK;
    }
}
