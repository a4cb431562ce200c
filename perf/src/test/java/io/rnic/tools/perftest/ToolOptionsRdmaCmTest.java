package io.rnic.tools.perftest;

import io.rnic.tools.ToolKind;
import io.rnic.tools.UsageException;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code -R} / {@code --rdma-cm}: perftest's flag, off by default, with clear errors where it does not apply. */
class ToolOptionsRdmaCmTest
{
    @Test
    void shouldTakePerftestsFlagInBothSpellings()
    {
        assertFalse(ToolOptions.parse(ToolKind.WRITE_BW, new String[0]).rdmaCm);
        assertTrue(ToolOptions.parse(ToolKind.WRITE_BW, new String[]{ "-R", "10.77.0.2" }).rdmaCm);
        assertEquals(4, ToolOptions.parse(ToolKind.WRITE_BW, new String[]{ "-R", "-q", "4", "10.77.0.2" }).qps,
            "one CM connection per QP, as perftest's");
        assertTrue(ToolOptions.parse(ToolKind.SEND_LAT, new String[]{ "--rdma-cm" }).rdmaCm);
        assertTrue(ToolOptions.synopsis(ToolKind.READ_BW).contains("[-R]"));
    }

    @Test
    void shouldExplainWhereItDoesNotApply()
    {
        assertMessage(ToolKind.RC_PINGPONG, "-R does not apply to rc-pingpong: it applies to write-lat", "-R");
        assertMessage(ToolKind.WRITE_BW, "--oob is the TCP exchange's address", "-R", "--oob", "127.0.0.1");
        assertMessage(ToolKind.WRITE_BW, "-m does not apply with -R", "-R", "-m", "1024");
        assertMessage(ToolKind.WRITE_LAT, "-u does not apply with -R", "-R", "-u", "17");
    }

    /** perftest's {@code -u}: the QP's local ACK timeout exponent, 14 (67 ms) unless given, 0..31. */
    @Test
    void shouldTakePerftestsQpTimeout()
    {
        assertEquals(14, ToolOptions.parse(ToolKind.WRITE_LAT, new String[0]).qpTimeout);
        assertEquals(17, ToolOptions.parse(ToolKind.WRITE_LAT, new String[]{ "-u", "17" }).qpTimeout);
        assertEquals(20, ToolOptions.parse(ToolKind.RC_PINGPONG, new String[]{ "--qp-timeout", "20" }).qpTimeout);
        assertMessage(ToolKind.WRITE_BW, "-u 32 out of range 0..31", "-u", "32");
    }

    private static void assertMessage(final ToolKind kind, final String expected, final String... args)
    {
        final UsageException ex = assertThrows(UsageException.class, () -> ToolOptions.parse(kind, args));
        assertTrue(ex.getMessage().contains(expected), ex.getMessage());
    }
}
