package io.rnic.icrc;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.lang.foreign.Arena;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Every implementation agrees with CRC32 over a masked copy, for every payload length, offset and memory kind. */
class IcrcEquivalenceTest
{
    private static final int MAX_PAYLOAD = 9000;
    private static final int CAPACITY = 64 + Icrc.IPV6_MASKED_LENGTH + MAX_PAYLOAD + 64;
    private static Arena arena;

    @BeforeAll
    static void openArena()
    {
        arena = Arena.ofShared();
    }

    @AfterAll
    static void closeArena()
    {
        arena.close();
    }

    private static Map<String, IcrcCalculator> calculators()
    {
        final Map<String, IcrcCalculator> all = new LinkedHashMap<>();
        all.put("Scalar", new ScalarIcrc());
        all.put("Crc32Copy", new Crc32CopyIcrc());
        all.put("Vector", new VectorIcrc());
        all.put("Vector(copy, copyLimit=0)", new VectorIcrc(VectorIcrc.Strategy.MASKED_COPY, 0));
        all.put("Vector(copy)", new VectorIcrc(VectorIcrc.Strategy.MASKED_COPY));
        all.put("Vector(copy, copyLimit=max)", new VectorIcrc(VectorIcrc.Strategy.MASKED_COPY, VectorIcrc.MAX_COPY_LIMIT));
        all.put("Seeded", new SeededIcrc());
        all.put("Seeded(public API)", new SeededIcrc(false));
        all.put("Adaptive", new AdaptiveIcrc());
        all.put("default", Icrc.defaultCalculator());
        return all;
    }

    @ParameterizedTest
    @EnumSource(IcrcTestSupport.Kind.class)
    void shouldMatchCrc32OverMaskedCopy(final IcrcTestSupport.Kind kind)
    {
        final Map<String, IcrcCalculator> calculators = calculators();
        final UnsafeBuffer buffer = kind.allocate(CAPACITY, arena);
        final SplittableRandom random = new SplittableRandom(0x1C2C_0001L + kind.ordinal());
        for (final boolean ipv6 : new boolean[]{ false, true })
        {
            final int headers = Icrc.maskedLength(ipv6);
            for (int payload = 0; payload <= MAX_PAYLOAD; payload++)
            {
                final byte[] region = new byte[headers + payload];
                random.nextBytes(region);
                for (final int ipOffset : new int[]{ 0, 14, 19 })
                {
                    buffer.putBytes(ipOffset, region);
                    final int icrcOffset = ipOffset + region.length;
                    final int expected = IcrcTestSupport.referenceIcrc(region, ipv6);
                    for (final Map.Entry<String, IcrcCalculator> e : calculators.entrySet())
                    {
                        final int actual = e.getValue().compute(buffer, ipOffset, ipv6, icrcOffset);
                        if (actual != expected)
                        {
                            assertEquals(expected, actual, e.getKey() + " " + kind + " ipv6=" + ipv6 +
                                " payload=" + payload + " ipOffset=" + ipOffset);
                        }
                    }
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(IcrcTestSupport.Kind.class)
    void shouldMaskOnlyTheBytesPresentWhenTheRegionIsShorterThanTheHeaders(final IcrcTestSupport.Kind kind)
    {
        final Map<String, IcrcCalculator> calculators = calculators();
        final UnsafeBuffer buffer = kind.allocate(256, arena);
        final SplittableRandom random = new SplittableRandom(7);
        for (final boolean ipv6 : new boolean[]{ false, true })
        {
            for (int length = 0; length <= Icrc.maskedLength(ipv6); length++)
            {
                final byte[] region = new byte[length];
                random.nextBytes(region);
                buffer.putBytes(3, region);
                final int expected = IcrcTestSupport.referenceIcrc(region, ipv6);
                for (final Map.Entry<String, IcrcCalculator> e : calculators.entrySet())
                {
                    assertEquals(expected, e.getValue().compute(buffer, 3, ipv6, 3 + length),
                        e.getKey() + " ipv6=" + ipv6 + " length=" + length);
                }
            }
        }
    }

    @Test
    void shouldRejectARegionOutsideTheBuffer()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[100]);
        for (final IcrcCalculator calculator : calculators().values())
        {
            assertThrows(IndexOutOfBoundsException.class, () -> calculator.compute(buffer, 10, false, 101));
            assertThrows(IndexOutOfBoundsException.class, () -> calculator.compute(buffer, -1, false, 60));
            assertThrows(IllegalArgumentException.class, () -> calculator.compute(buffer, 60, false, 59));
        }
    }

    @ParameterizedTest
    @EnumSource(IcrcTestSupport.Kind.class)
    void shouldComputeBurstsLikeSinglePackets(final IcrcTestSupport.Kind kind)
    {
        final int frame = 2048;
        final int frames = 77; // more than two chunks, and not a multiple of one
        final UnsafeBuffer ring = kind.allocate(frame * frames, arena);
        final SplittableRandom random = new SplittableRandom(42 + kind.ordinal());
        final byte[] noise = new byte[frame * frames];
        random.nextBytes(noise);
        ring.putBytes(0, noise);
        final IcrcBurst burst = new IcrcBurst();
        final AdaptiveIcrc adaptive = new AdaptiveIcrc();
        for (int round = 0; round < 200; round++)
        {
            final int count = random.nextInt(frames + 1);
            final int[] ip = new int[count];
            final int[] icrc = new int[count];
            final boolean[] v6 = new boolean[count];
            final int[] expected = new int[count];
            final UnsafeBuffer[] buffers = new UnsafeBuffer[count];
            for (int k = 0; k < count; k++)
            {
                v6[k] = random.nextBoolean();
                ip[k] = k * frame + random.nextInt(0, 24);
                final int length = random.nextInt(4) == 0 ?
                    random.nextInt(0, Icrc.maskedLength(v6[k]) + 1) :             // shorter than its headers
                    Icrc.maskedLength(v6[k]) + random.nextInt(0, frame - 24 - 60); // ACK-sized to ~2 KB
                icrc[k] = ip[k] + length;
                buffers[k] = ring;
                final byte[] region = new byte[length];
                ring.getBytes(ip[k], region);
                expected[k] = IcrcTestSupport.referenceIcrc(region, v6[k]);
            }
            final int[] results = new int[count];
            burst.compute(buffers, ip, v6, icrc, count, results);
            org.junit.jupiter.api.Assertions.assertArrayEquals(expected, results, "burst of " + count);
            final int[] fromOneBuffer = new int[count];
            adaptive.computeBurst(ring, ip, v6, icrc, count, fromOneBuffer);
            org.junit.jupiter.api.Assertions.assertArrayEquals(expected, fromOneBuffer, "one-buffer burst of " + count);
        }
    }
}
