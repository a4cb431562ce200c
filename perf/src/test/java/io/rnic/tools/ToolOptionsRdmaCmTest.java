package io.rnic.tools;

import io.rnic.cli.UsageException;
import org.junit.jupiter.api.Test;

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
        assertTrue(ToolOptions.parse(ToolKind.SEND_LAT, new String[]{ "--rdma-cm" }).rdmaCm);
        assertTrue(ToolOptions.synopsis(ToolKind.READ_BW).contains("[-R]"));
    }

    @Test
    void shouldExplainWhereItDoesNotApply()
    {
        assertMessage(ToolKind.RC_PINGPONG, "-R applies to the perftest tools", "-R");
        assertMessage(ToolKind.WRITE_BW, "-R connects one QP: -q 2 is not supported with it", "-R", "-q", "2");
        assertMessage(ToolKind.WRITE_BW, "--oob is the TCP exchange's address", "-R", "--oob", "127.0.0.1");
        assertMessage(ToolKind.WRITE_BW, "-m does not apply with -R", "-R", "-m", "1024");
    }

    private static void assertMessage(final ToolKind kind, final String expected, final String... args)
    {
        final UsageException ex = assertThrows(UsageException.class, () -> ToolOptions.parse(kind, args));
        assertTrue(ex.getMessage().contains(expected), ex.getMessage());
    }
}
