package io.rnic.datapath.afpacket;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * How an AF_PACKET port tells a kernel VLAN device from a plain interface: the 8021q module's
 * {@code /proc/net/vlan/config} (this machine's kernel has no 802.1Q support, so the text is the module's, as Linux
 * 6.1 prints it).
 */
class KernelVlanTest
{
    private static final String CONFIG = """
        VLAN Dev name	 | VLAN ID
        Name-Type: VLAN_NAME_TYPE_RAW_PLUS_VID_NO_PAD
        veth0.10       | 10  | veth0
        eth1.4094      | 4094  | eth1
        """;

    @TempDir
    Path directory;

    @Test
    void shouldFindTheVlanIdAndParentOfAVlanDevice() throws Exception
    {
        final Path config = Files.writeString(directory.resolve("config"), CONFIG);
        assertArrayEquals(new String[]{ "10", "veth0" }, AfPacketPort.kernelVlan("veth0.10", config));
        assertArrayEquals(new String[]{ "4094", "eth1" }, AfPacketPort.kernelVlan("eth1.4094", config));
    }

    @Test
    void shouldTakeAPlainInterfaceOrAKernelWithout8021qForNoVlan() throws Exception
    {
        final Path config = Files.writeString(directory.resolve("config"), CONFIG);
        assertNull(AfPacketPort.kernelVlan("veth0", config));
        assertNull(AfPacketPort.kernelVlan("VLAN Dev name", config), "the header is no device");
        assertNull(AfPacketPort.kernelVlan("veth0.10", directory.resolve("absent")));
    }
}
