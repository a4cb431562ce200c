package io.rnic.cc;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TokenBucketShaperTest
{
    private static final long SECOND_NS = 1_000_000_000L;

    /** A busy-polling sender: sends whenever allowed, else skips ahead by nanosUntilAllowed. Returns bytes sent. */
    private static long saturate(final TokenBucketShaper shaper, final int frameBytes, final long fromNs,
        final long toNs)
    {
        long now = fromNs;
        long bytes = 0;
        while (true)
        {
            final long waitNs = shaper.nanosUntilAllowed(frameBytes, now);
            now += waitNs;
            if (now >= toNs)
            {
                return bytes;
            }
            assertTrue(shaper.tryConsume(frameBytes, now), "allowed after the wait it announced");
            bytes += frameBytes;
        }
    }

    @ParameterizedTest(name = "{0} bit/s, {1} B frames")
    @CsvSource({ "1000000000, 1024", "10000000, 64", "40000000000, 4096", "100000000, 1500", "1000000, 64",
        "400000000000, 65536" })
    void shouldHoldTheRateWithinOnePercentOverASecond(final long rateBitsPerSec, final int frameBytes)
    {
        final long start = 123_456_789L;
        final TokenBucketShaper shaper = new TokenBucketShaper(rateBitsPerSec, 2 * frameBytes, start);
        final long bytes = saturate(shaper, frameBytes, start, start + SECOND_NS);
        final double measured = bytes * 8.0;
        assertEquals(rateBitsPerSec, measured, rateBitsPerSec * 0.01);
        assertTrue(bytes <= rateBitsPerSec / 8 + 3L * frameBytes, "at most the rate plus the burst");
    }

    @Test
    void shouldApplyARateChangeMidStream()
    {
        final TokenBucketShaper shaper = new TokenBucketShaper(1_000_000_000L, 2048, 0);
        final long first = saturate(shaper, 1024, 0, SECOND_NS / 2);
        shaper.rateBitsPerSec(100_000_000L, SECOND_NS / 2);
        final long second = saturate(shaper, 1024, SECOND_NS / 2, SECOND_NS);
        assertEquals(1_000_000_000L / 16, first, 1_000_000_000L / 16 * 0.01);
        assertEquals(100_000_000L / 16, second, 100_000_000L / 16 * 0.01);
        assertEquals(100_000_000L, shaper.rateBitsPerSec());
    }

    @Test
    void shouldKeepTheCreditInBytesAcrossARateChange()
    {
        final TokenBucketShaper shaper = new TokenBucketShaper(1_000_000_000L, 16 * 1024, 0);
        for (int i = 0; i < 8; i++)
        {
            assertTrue(shaper.tryConsume(1024, 0));
        }
        assertEquals(8 * 1024, shaper.creditBytes(0));
        shaper.rateBitsPerSec(10_000_000_000L, 0);
        assertEquals(8 * 1024, shaper.creditBytes(0), 1, "faster: no refill");
        shaper.rateBitsPerSec(10_000_000L, 0);
        assertEquals(8 * 1024, shaper.creditBytes(0), 1, "slower: no loss");
        int sent = 0;
        while (shaper.tryConsume(1024, 0))
        {
            sent++;
        }
        assertEquals(8, sent);
        // the bucket is empty and refills at the new rate: 1 KB at 10 Mb/s
        assertEquals(1024 * 800, shaper.nanosUntilAllowed(1024, 0), 2);
    }

    @Test
    void shouldNotBurstBeyondTheAllowanceAfterIdle()
    {
        final TokenBucketShaper shaper = new TokenBucketShaper(1_000_000_000L, 8 * 1024, 0);
        saturate(shaper, 1024, 0, 1_000_000);
        final long afterIdle = 1_000_000 + 10 * SECOND_NS;
        assertEquals(8 * 1024, shaper.creditBytes(afterIdle));
        int sent = 0;
        while (shaper.tryConsume(1024, afterIdle))
        {
            sent++;
        }
        assertEquals(8, sent, "the burst allowance, not ten seconds of credit");
        final long bytes = saturate(shaper, 1024, afterIdle, afterIdle + 1_000_000);
        assertTrue(bytes <= 1_000_000 / 8 + 1024, "then the rate: " + bytes);

        shaper.rateBitsPerSec(2_000_000_000L, afterIdle + 2 * SECOND_NS);
        assertEquals(8 * 1024, shaper.creditBytes(afterIdle + 2 * SECOND_NS), "a full bucket stays full");
    }

    @Test
    void shouldTellHowLongUntilAFrameIsAllowed()
    {
        final TokenBucketShaper shaper = new TokenBucketShaper(1_000_000_000L, 4096, 1_000);
        assertEquals(0, shaper.nanosUntilAllowed(1024, 1_000));
        for (int i = 0; i < 4; i++)
        {
            assertTrue(shaper.tryConsume(1024, 1_000));
        }
        final long waitNs = shaper.nanosUntilAllowed(1024, 1_000);
        assertEquals(8_192, waitNs, "1 KB at 1 Gb/s");
        assertFalse(shaper.mayTransmit(1024, 1_000 + waitNs - 1));
        assertTrue(shaper.mayTransmit(1024, 1_000 + waitNs));
        assertEquals(waitNs - 100, shaper.nanosUntilAllowed(1024, 1_100));
        assertEquals(2 * 8_192, shaper.nanosUntilAllowed(2048, 1_000));
    }

    @Test
    void shouldLetAFrameLargerThanTheAllowanceGoWhenTheBucketIsFull()
    {
        final TokenBucketShaper shaper = new TokenBucketShaper(1_000_000_000L, 100, 0);
        assertTrue(shaper.tryConsume(1500, 0));
        assertFalse(shaper.mayTransmit(1500, 0));
        assertEquals(-1400, shaper.creditBytes(0));
        final long waitNs = shaper.nanosUntilAllowed(1500, 0);
        assertEquals(12_000, waitNs, "when the 1500 B are paid off");
        assertFalse(shaper.mayTransmit(1500, waitNs - 1));
        assertTrue(shaper.tryConsume(1500, waitNs));
    }

    @Test
    void shouldRejectRatesAndBurstsOutOfRange()
    {
        assertEquals("rateBitsPerSec must be in [1000, 10000000000000], was 999", assertThrows(
            IllegalArgumentException.class, () -> new TokenBucketShaper(999, 1024, 0)).getMessage());
        assertEquals("burstBytes must be in [1, 1073741824], was 0", assertThrows(
            IllegalArgumentException.class, () -> new TokenBucketShaper(1_000_000, 0, 0)).getMessage());
        final TokenBucketShaper shaper = new TokenBucketShaper(1_000_000, 1024, 0);
        assertThrows(IllegalArgumentException.class, () -> shaper.rateBitsPerSec(20_000_000_000_000L, 0));
        assertEquals(1_000_000, shaper.rateBitsPerSec());
    }

    @Test
    void shouldHandleTheExtremesWithoutOverflow()
    {
        final TokenBucketShaper slow = new TokenBucketShaper(TokenBucketShaper.MIN_RATE_BITS_PER_SEC,
            TokenBucketShaper.MAX_BURST_BYTES, 0);
        assertTrue(slow.tryConsume(TokenBucketShaper.MAX_FRAME_BYTES, 0));
        assertEquals(TokenBucketShaper.MAX_BURST_BYTES - TokenBucketShaper.MAX_FRAME_BYTES, slow.creditBytes(0));
        final TokenBucketShaper slowFrame = new TokenBucketShaper(TokenBucketShaper.MIN_RATE_BITS_PER_SEC, 1, 0);
        assertTrue(slowFrame.tryConsume(TokenBucketShaper.MAX_FRAME_BYTES, 0));
        assertEquals(TokenBucketShaper.MAX_FRAME_BYTES * 8_000_000L, slowFrame.nanosUntilAllowed(1, 0), 1);
    }
}
