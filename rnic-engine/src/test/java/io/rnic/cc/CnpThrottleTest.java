package io.rnic.cc;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CnpThrottleTest
{
    @Test
    void shouldCoalesceToOneCnpPerInterval()
    {
        final CnpThrottle throttle = new CnpThrottle(DcqcnParameters.defaults());
        assertEquals(50_000, throttle.cnpIntervalNs());
        final int windows = 20;
        final int[] cnpsInWindow = new int[windows];
        for (long t = 0; t < windows * 50_000L; t += 10_000)
        {
            final boolean cnp = throttle.shouldSendCnp(t);
            if (cnp)
            {
                cnpsInWindow[(int)(t / 50_000)]++;
            }
            assertEquals(t % 50_000 == 0, cnp, "the first CE packet of each window, at " + t);
        }
        for (int w = 0; w < windows; w++)
        {
            assertEquals(1, cnpsInWindow[w], "window " + w);
        }
        assertEquals(100, throttle.ceMarkedPackets());
        assertEquals(20, throttle.cnpsAllowed());
    }

    @Test
    void shouldAnswerTheFirstMarkedPacketAtOnceAndKeepTheIntervalForIrregularArrivals()
    {
        final long start = -7_000_000_000L; // nanoTime may be negative
        final CnpThrottle throttle = new CnpThrottle(50_000);
        assertTrue(throttle.shouldSendCnp(start));
        long last = start;
        for (long t = start + 7_000; t < start + 5_000_000; t += 7_000 + (t & 0x3ff))
        {
            final boolean expected = t - last >= 50_000;
            assertEquals(expected, throttle.shouldSendCnp(t), "at " + (t - start));
            if (expected)
            {
                last = t;
            }
        }
        assertTrue(throttle.cnpsAllowed() > 1);
    }

    @Test
    void shouldAnswerEveryMarkedPacketWithAZeroInterval()
    {
        final CnpThrottle throttle = new CnpThrottle(0);
        for (int i = 0; i < 10; i++)
        {
            assertTrue(throttle.shouldSendCnp(5));
        }
        assertEquals(10, throttle.cnpsAllowed());
    }

    @Test
    void shouldForgetOnReset()
    {
        final CnpThrottle throttle = new CnpThrottle(50_000);
        assertTrue(throttle.shouldSendCnp(0));
        assertFalse(throttle.shouldSendCnp(1));
        throttle.reset();
        assertEquals(0, throttle.ceMarkedPackets());
        assertEquals(0, throttle.cnpsAllowed());
        assertTrue(throttle.shouldSendCnp(2));
    }

    @Test
    void shouldRejectAnIntervalOutOfRange()
    {
        assertEquals("cnpIntervalNs must be in [0, 10000000000], was -1",
            assertThrows(IllegalArgumentException.class, () -> new CnpThrottle(-1)).getMessage());
    }
}
