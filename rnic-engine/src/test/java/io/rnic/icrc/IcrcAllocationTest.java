package io.rnic.icrc;

import io.rnic.testing.SteadyStateAllocation;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The per-packet paths allocate nothing: 100k calls after warm-up, measured with the thread's allocated-bytes
 * counter. An allocation test, not a timing test.
 */
class IcrcAllocationTest
{
    private static final int CALLS = 100_000;
    private static final int LIMIT = 400;
    private static final int[] REGION_LENGTHS = { 44, 56, 64, 120, 248, 1016, 4088, 4136, 9000 };

    private final ByteBuffer backing = ByteBuffer.allocateDirect(16384);
    private final UnsafeBuffer offHeap = new UnsafeBuffer(org.agrona.BufferUtil.address(backing), 16384);
    private final UnsafeBuffer heap = new UnsafeBuffer(new byte[16384]);

    IcrcAllocationTest()
    {
        final byte[] noise = new byte[16384];
        new SplittableRandom(3).nextBytes(noise);
        offHeap.putBytes(0, noise);
        heap.putBytes(0, noise);
    }

    @Test
    void shouldComputeWithoutAllocating()
    {
        final Map<String, IcrcCalculator> calculators = new LinkedHashMap<>();
        calculators.put("Scalar", new ScalarIcrc());
        calculators.put("Crc32Copy", new Crc32CopyIcrc());
        if (VectorIcrc.isAccelerated())
        {
            // 64-byte vectors are only intrinsified (and free of boxing) on CPUs that have them (AVX-512); elsewhere
            // the engine does not use VectorIcrc at all (AdaptiveIcrc picks the scalar and seeded passes)
            calculators.put("Vector", new VectorIcrc());
            calculators.put("Vector(gather)", new VectorIcrc(VectorIcrc.Strategy.GATHER_SEED));
            calculators.put("Vector(copy)", new VectorIcrc(VectorIcrc.Strategy.MASKED_COPY));
        }
        calculators.put("Seeded", new SeededIcrc());
        calculators.put("Adaptive", Icrc.defaultCalculator());
        for (final Map.Entry<String, IcrcCalculator> e : calculators.entrySet())
        {
            final IcrcCalculator calculator = e.getValue();
            final int calls = e.getKey().equals("Scalar") ? CALLS / 10 : CALLS;
            final Runnable work = () ->
            {
                int sink = 0;
                for (int i = 0; i < calls; i++)
                {
                    final UnsafeBuffer buffer = (i & 1) == 0 ? offHeap : heap;
                    final int ip = 14 + (i & 7);
                    final boolean ipv6 = (i & 8) != 0;
                    final int length = REGION_LENGTHS[i % REGION_LENGTHS.length];
                    sink += calculator.compute(buffer, ip, ipv6, ip + length);
                }
                blackhole = sink;
            };
            // up to 120 rounds: under a loaded machine C2 may take many rounds to compile the Vector API's path, whose
            // C1 form allocates (one run at load 10 still allocated ~1 KB a packet after 30)
            final long allocated = SteadyStateAllocation.leastBytes(work, LIMIT, 120);
            assertTrue(allocated < LIMIT, e.getKey() + ": " + calls + " packets allocated " + allocated + " bytes");
        }
    }

    @Test
    void shouldComputeBurstsWithoutAllocating()
    {
        final IcrcBurst burst = new IcrcBurst();
        final int count = 40;
        final int[] ip = new int[count];
        final int[] icrc = new int[count];
        final boolean[] ipv6 = new boolean[count];
        final int[] results = new int[count];
        final UnsafeBuffer[] buffers = new UnsafeBuffer[count];
        for (int k = 0; k < count; k++)
        {
            ip[k] = 14 + (k & 3) * 300;
            ipv6[k] = (k & 4) != 0;
            icrc[k] = ip[k] + (k % 5 == 0 ? 248 : 44 + (k & 3) * 16);
            buffers[k] = (k & 1) == 0 ? offHeap : heap;
        }
        final Runnable work = () ->
        {
            for (int i = 0; i < CALLS / count; i++)
            {
                burst.compute(buffers, ip, ipv6, icrc, count, results);
                burst.compute(offHeap, ip, ipv6, icrc, count, results);
            }
        };
        final long allocated = SteadyStateAllocation.leastBytes(work, LIMIT, 30);
        assertTrue(allocated < LIMIT, "bursts of " + 2 * CALLS + " packets allocated " + allocated + " bytes");
    }

    static volatile int blackhole;

}
