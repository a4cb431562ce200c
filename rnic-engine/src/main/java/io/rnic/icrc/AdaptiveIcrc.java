package io.rnic.icrc;

import org.agrona.DirectBuffer;

/**
 * The engine's default ({@link Icrc#defaultCalculator()}): the fastest exact implementation per size class, from
 * the measurements in {@code BENCHMARKS.md}.
 * <ul>
 *   <li>Regions (IP header to ICRC) up to {@link #SMALL_LIMIT} bytes: {@link VectorIcrc} masked copy. The whole
 *       packet, behind the 0xFF prefix, fits in one or two 64-byte vectors; one vector OR applies the masks and
 *       one short intrinsic call over the scratch does the rest.</li>
 *   <li>Without 64-byte vectors, regions up to {@link #SCALAR_LIMIT}: {@link ScalarIcrc}, slicing-by-16 tables.</li>
 *   <li>Larger: {@link SeededIcrc}, one in-place intrinsic pass from a starting register that folds the masks
 *       in (and hands the intrinsic whole 256-byte blocks when that pays).</li>
 * </ul>
 * For bursts, {@link #computeBurst} uses {@link IcrcBurst}, which moves the seeding off the critical path.
 * <p>
 * In a JVM started without {@code --add-modules jdk.incubator.vector} the vector class is never loaded (it could not
 * be) and the selection is the one for a CPU without 64-byte vectors.
 * <p>
 * Allocates nothing per packet. Single-threaded.
 */
public final class AdaptiveIcrc implements IcrcCalculator
{
    /**
     * Largest region (IP header to ICRC, so 8 more bytes of ICRC input) handled by the vector masked copy. Chosen
     * from the 2026-11-22 runs in BENCHMARKS.md: at 56 region bytes the copy is ~5 ns faster than the seeded
     * pass (16.9 vs 21.9 ns), at 88 and 120 they are level within noise (23.7 vs 24.0, 27.2 vs 29.8 ns); beyond 120
     * a whole copy needs a third vector and a longer copy for the CRC to read back, so the seeded pass takes over
     * (it is 29 ns at 152). 0 when the CPU has no native 64-byte vectors or the JVM no Vector API.
     */
    public static final int SMALL_LIMIT = VectorApi.ACCELERATED ? 120 : 0;

    /**
     * Without 64-byte vectors the intrinsic pass has a fixed latency of 40–60 ns, and the table-driven
     * {@link ScalarIcrc} is faster up to about 144 bytes of ICRC input, i.e. 136 region bytes (AMD Zen 3, measured
     * 2026-11-27 in BENCHMARKS.md, after the table lookups' XORs were grouped: scalar vs seeded 52.6 vs 68.8 ns at 128
     * input bytes, 59.3 vs 62.1 at 144, 66.0 vs 64.9 at 160, 76.6 vs 69.8 at 192; on Zen 2 before that change the
     * limit was 120).
     */
    public static final int SCALAR_LIMIT = VectorApi.ACCELERATED ? 0 : 136;

    private final ScalarIcrc scalar = new ScalarIcrc();

    /** Null when {@link #SMALL_LIMIT} is 0: {@link VectorIcrc} is then never loaded. */
    private final VectorIcrc small =
        SMALL_LIMIT > 0 ? new VectorIcrc(VectorIcrc.Strategy.MASKED_COPY, SMALL_LIMIT) : null;
    private final SeededIcrc large = new SeededIcrc();
    private final IcrcBurst burst = new IcrcBurst();

    @Override
    public int compute(final DirectBuffer buffer, final int ipOffset, final boolean ipv6, final int icrcOffset)
    {
        final int region = icrcOffset - ipOffset;
        if (SMALL_LIMIT > 0 && region <= SMALL_LIMIT)
        {
            return small.compute(buffer, ipOffset, ipv6, icrcOffset);
        }
        if (region <= SCALAR_LIMIT)
        {
            return scalar.compute(buffer, ipOffset, ipv6, icrcOffset);
        }
        return large.compute(buffer, ipOffset, ipv6, icrcOffset);
    }

    /** The ICRCs of a burst: see {@link IcrcBurst#compute(DirectBuffer[], int[], boolean[], int[], int, int[])}. */
    public void computeBurst(final DirectBuffer[] buffers, final int[] ipOffsets, final boolean[] ipv6,
        final int[] icrcOffsets, final int count, final int[] results)
    {
        burst.compute(buffers, ipOffsets, ipv6, icrcOffsets, count, results);
    }

    /** The ICRCs of a burst in one buffer: see {@link IcrcBurst#compute(DirectBuffer, int[], boolean[], int[], int, int[])}. */
    public void computeBurst(final DirectBuffer buffer, final int[] ipOffsets, final boolean[] ipv6,
        final int[] icrcOffsets, final int count, final int[] results)
    {
        burst.compute(buffer, ipOffsets, ipv6, icrcOffsets, count, results);
    }
}
