package io.rnic.transport;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PsnTest
{
    @Test
    void shouldOrderAcrossTheWrap()
    {
        assertTrue(Psn.isBefore(0xFF_FFFF, 0));
        assertTrue(Psn.isAfter(0, 0xFF_FFFF));
        assertTrue(Psn.isBefore(0xFF_FFF0, 0x10));
        assertEquals(0x20, Psn.compare(0x10, 0xFF_FFF0));
        assertEquals(0, Psn.compare(0x123456, 0x123456));
        assertFalse(Psn.isBefore(0x123456, 0x123456));
    }

    @Test
    void shouldTreatHalfTheSpaceAsTheHorizon()
    {
        assertTrue(Psn.isAfter(Psn.HALF_SPACE - 1, 0));
        assertTrue(Psn.isBefore(Psn.HALF_SPACE, 0)); // exactly half way: the sign bit decides, as in rxe
        assertTrue(Psn.isBefore(Psn.HALF_SPACE + 1, 0));
    }

    @Test
    void shouldAddAndMeasureModulo24Bits()
    {
        assertEquals(0, Psn.next(0xFF_FFFF));
        assertEquals(4, Psn.add(0xFF_FFFE, 6));
        assertEquals(6, Psn.distance(0xFF_FFFE, 4));
        assertEquals(0xFF_FFFF, Psn.add(0, -1));
    }
}
