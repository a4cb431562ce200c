package io.rnic.tools.perftest;

import io.rnic.tools.ToolKind;
import io.rnic.transport.LocalPort;
import io.rnic.verbs.PathMtu;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The tools' path MTU never exceeds what modify_qp accepts on the port. */
class PathMtuSelectionTest
{
    @Test
    void shouldNotChooseAPathMtuTheQpWouldRefuseOnAnIpv4Port()
    {
        // 4170 - IPv4 20 - UDP 8 - BTH 12 - 28 - ICRC 4 leaves 4098 bytes, but modify_qp reckons with IPv6's header
        final LocalPort port = new LocalPort(0x02_00_00_00_00_01L).ethernetMtu(4170);
        final int gidIndex = port.addIpv4(0x0A00_0001);

        final int chosen = PathMtuSelection.choose(port, "eth0", gidIndex, ToolOptions.parse(ToolKind.WRITE_BW,
            new String[0]));

        assertEquals(PathMtu.forEthernetMtu(4170).bytes(), chosen);
        assertEquals(2048, chosen);
    }
}
