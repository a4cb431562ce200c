package io.rnic.transport;

/** The transport's timer encodings: local ACK timeout and RNR NAK timer codes (IBTA 9.7.5.2.8, table 45). */
public final class Timeouts
{
    /** RNR timer codes 0..31 in nanoseconds; code 0 is the longest, 655.36 ms. */
    private static final long[] RNR_NS = {
        655_360_000L, 10_000L, 20_000L, 30_000L, 40_000L, 60_000L, 80_000L, 120_000L, 160_000L, 240_000L, 320_000L,
        480_000L, 640_000L, 960_000L, 1_280_000L, 1_920_000L, 2_560_000L, 3_840_000L, 5_120_000L, 7_680_000L,
        10_240_000L, 15_360_000L, 20_480_000L, 30_720_000L, 40_960_000L, 61_440_000L, 81_920_000L, 122_880_000L,
        163_840_000L, 245_760_000L, 327_680_000L, 491_520_000L };

    private Timeouts()
    {
    }

    public static long rnrTimerNs(final int code)
    {
        return RNR_NS[code & 0x1F];
    }

    /** Local ACK timeout: 4.096 us x 2^code; 0 means no timeout (returns 0). */
    public static long localAckTimeoutNs(final int code)
    {
        if (code == 0)
        {
            return 0;
        }
        return 4096L << Math.min(code, 31);
    }
}
