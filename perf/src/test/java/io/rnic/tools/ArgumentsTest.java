package io.rnic.tools;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class ArgumentsTest
{
    @Test
    void shouldNameTheOptionOfABadNumber()
    {
        assertMessage("-p takes a whole number, not 'port'", () -> Arguments.number("-p", "port", 1, 65535));
        assertMessage("-p takes a whole number, not '1.5'", () -> Arguments.number("-p", "1.5", 1, 65535));
        assertMessage("-p 0 out of range 1..65535", () -> Arguments.number("-p", "0", 1, 65535));
        assertMessage("-p 65536 out of range 1..65535", () -> Arguments.number("-p", "65536", 1, 65535));
        assertEquals(65535, Arguments.number("-p", "65535", 1, 65535));
        assertEquals(Long.MAX_VALUE, Arguments.number("--seed", String.valueOf(Long.MAX_VALUE), 0, Long.MAX_VALUE));
    }

    @Test
    void shouldReadASizeInEveryFormInBytes()
    {
        assertEquals(64, Arguments.bytes("-s", "64", 1, 1L << 40));
        for (final String kib : new String[]{ "4K", "4k", "4096" })
        {
            assertEquals(4096, Arguments.bytes("-s", kib, 1, 1L << 40), kib);
        }
        assertEquals(1L << 20, Arguments.bytes("-s", "1M", 1, 1L << 40));
        assertEquals(1L << 30, Arguments.bytes("-s", "1024m", 1, 1L << 40));
        assertEquals(2L << 30, Arguments.bytes("-s", "2G", 1, 1L << 40));
        assertEquals(3L << 30, Arguments.bytes("-s", "3g", 1, 1L << 40));
    }

    /** The range is checked on the bytes, whichever form the size was given in, and named in bytes. */
    @Test
    void shouldCheckASizesRangeInBytes()
    {
        assertEquals(1L << 30, Arguments.bytes("-s", "1024M", 1, 1L << 30));
        assertEquals(1L << 30, Arguments.bytes("-s", "1G", 1, 1L << 30));
        assertMessage("-s 2G (2147483648 bytes) out of range 1..1073741824 bytes",
            () -> Arguments.bytes("-s", "2G", 1, 1L << 30));
        assertMessage("-s 1025M (1074790400 bytes) out of range 1..1073741824 bytes",
            () -> Arguments.bytes("-s", "1025M", 1, 1L << 30));
        assertMessage("-s 0 out of range 1..1073741824 bytes", () -> Arguments.bytes("-s", "0", 1, 1L << 30));
        assertMessage("-s -1K (-1024 bytes) out of range 1..1073741824 bytes",
            () -> Arguments.bytes("-s", "-1K", 1, 1L << 30));
        assertMessage("-s 99999999999999G out of range 1..1073741824 bytes",
            () -> Arguments.bytes("-s", "99999999999999G", 1, 1L << 30));
    }

    @Test
    void shouldNameTheFormsOfASize()
    {
        for (final String bad : new String[]{ "2P", "K", "1.5M", "", "64 K", "0x40" })
        {
            assertMessage("-s takes a size (" + Arguments.SIZE_FORMS + "), not '" +
                bad + "'", () -> Arguments.bytes("-s", bad, 1, 1L << 30));
        }
    }

    private static void assertMessage(final String expected, final Runnable parse)
    {
        assertEquals(expected, assertThrows(UsageException.class, parse::run).getMessage());
    }
}
