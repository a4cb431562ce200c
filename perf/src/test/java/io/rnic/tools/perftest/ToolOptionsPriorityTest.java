package io.rnic.tools.perftest;

import io.rnic.tools.ToolKind;
import io.rnic.tools.UsageException;
import io.rnic.transport.LocalPort;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code --vlan}, {@code --cnp-dscp}, {@code --cnp-prio}: parsed, ranges enforced, the port's business with a driver. */
class ToolOptionsPriorityTest
{
    @Test
    void shouldBeUntaggedWithConnectXsCnpMarkingByDefault()
    {
        final ToolOptions options = ToolOptions.parse(ToolKind.WRITE_BW, new String[0]);
        assertEquals(LocalPort.NO_VLAN, options.vlanId);
        assertEquals(48, options.cnpDscp);
        assertEquals(6, options.cnpPriority);
    }

    @Test
    void shouldParseTheVlanAndTheCnpMarking()
    {
        final ToolOptions options = ToolOptions.parse(ToolKind.WRITE_BW, new String[]{ "--vlan", "10", "--cnp-dscp",
            "46", "--cnp-prio=5", "-S", "3", "--tclass", "104" });
        assertEquals(10, options.vlanId);
        assertEquals(46, options.cnpDscp);
        assertEquals(5, options.cnpPriority);
        assertEquals(3, options.flags.serviceLevel);
        assertEquals(104, options.flags.trafficClass);
    }

    @Test
    void shouldRefuseValuesOutOfRangeAndWithADriver()
    {
        assertMessage("--vlan", "--vlan", "4095");
        assertMessage("--cnp-dscp", "--cnp-dscp", "64");
        assertMessage("--cnp-prio", "--cnp-prio", "8");
        assertMessage("--vlan", "--driver", "/dev/shm/rnic-x", "--vlan", "10");
    }

    @Test
    void shouldNameTheFlagsInTheHelp()
    {
        final String help = ToolOptions.synopsis(ToolKind.WRITE_BW) + "\n" + ToolOptions.help(ToolKind.WRITE_BW);
        for (final String flag : new String[]{ "--vlan ID", "--cnp-dscp DSCP", "--cnp-prio PRIO" })
        {
            assertTrue(help.contains("[" + flag + "]"), flag + " in the synopsis:\n" + help);
            assertTrue(help.contains("  " + flag + " "), flag + " explained:\n" + help);
        }
    }

    private static void assertMessage(final String expected, final String... args)
    {
        final UsageException ex = assertThrows(UsageException.class, () -> ToolOptions.parse(ToolKind.WRITE_BW, args));
        assertTrue(ex.getMessage().contains(expected), ex.getMessage());
    }
}
