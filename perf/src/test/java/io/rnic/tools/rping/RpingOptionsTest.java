package io.rnic.tools.rping;

import io.rnic.tools.UsageException;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** rping's command line: refused before any port opens, in the words every rnic command uses. */
class RpingOptionsTest
{
    @Test
    void shouldWordABadNumberAsTheOtherToolsDo()
    {
        assertMessage("-p takes a whole number, not 'port'", "-c", "-a", "10.0.0.1", "-p", "port");
        assertMessage("-S 25 out of range 26..65536 bytes", "-c", "-a", "10.0.0.1", "-S", "25");
        assertMessage("-S 65K (66560 bytes) out of range 26..65536 bytes", "-c", "-a", "10.0.0.1", "-S", "65K");
        assertMessage("-C needs a value: -C COUNT", "-s", "-a", "10.0.0.1", "-C");
    }

    /** rping's letters: -d is debug (the interface is --iface), -P a server's, -I a client's, -a a client's must. */
    @Test
    void shouldReadRpingsLettersAsRpingDoes()
    {
        assertMessage("-a ADDR is required (the server's address)", "-c", "-d");
        assertMessage("-P (persistent server) applies to the server (-s)", "-c", "-P", "-a", "10.0.0.1");
        assertMessage("-I (the source address) applies to the client (-c); a server listens on -a", "-s", "-I",
            "10.0.0.2");
        assertMessage("unexpected argument 'eth0': rping takes options only", "-s", "-d", "eth0");
        assertMessage("--iface needs a value: --iface IFACE", "-s", "--iface");
    }

    private static void assertMessage(final String expected, final String... args)
    {
        final PrintStream sink = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        final UsageException ex = assertThrows(UsageException.class, () -> Rping.run(args, sink, sink));
        assertEquals(expected, ex.getMessage());
    }
}
