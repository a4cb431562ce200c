package io.rnic.tools;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class ArgumentsTest
{
    @Test
    void shouldTakeTheValueAfterAnOption()
    {
        final String[] args = { "-d", "eth0", "--flows", "4" };
        assertEquals("eth0", Arguments.value(args, 1, "-d"));
        assertEquals("4", Arguments.optionValue(args, 3, "--flows"));
        assertEquals(4, Arguments.number(args, 3, "--flows", 1, 16));
    }

    @Test
    void shouldSayWhichOptionNeedsAValue()
    {
        final String[] args = { "-s", "-a" };
        assertMessage("-a needs a value", () -> Arguments.value(args, 2, "-a"));
        assertMessage("-a needs a value", () -> Arguments.number(args, 2, "-a", 0, 1));
        assertMessage("--flows needs a value", () -> Arguments.optionValue(new String[]{ "--flows" }, 1, "--flows"));
    }

    @Test
    void shouldCallALastWordThatIsNoOptionAnUnknownArgument()
    {
        assertMessage("unknown argument stray", () -> Arguments.optionValue(new String[]{ "stray" }, 1, "stray"));
    }

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

    private static void assertMessage(final String expected, final Runnable parse)
    {
        assertEquals(expected, assertThrows(UsageException.class, parse::run).getMessage());
    }
}
