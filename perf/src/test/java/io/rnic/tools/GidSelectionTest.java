package io.rnic.tools;

import io.rnic.datapath.endpoint.InterfaceAddresses;
import io.rnic.transport.LocalPort;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class GidSelectionTest
{
    private static final long MAC = 0x02_00_00_00_00_01L;

    /** As an interface lists them: the link-local GID first, then an IPv4 and a global IPv6 address. */
    private static LocalPort port() throws Exception
    {
        final LocalPort port = new LocalPort(MAC);
        port.addGid(0xFE80_0000_0000_0000L, InterfaceAddresses.eui64(MAC));
        port.addIpv4(0x0A00_0001);
        final long[] global = gid("fd00::1");
        port.addGid(global[0], global[1]);
        return port;
    }

    private static long[] gid(final String address) throws Exception
    {
        return InterfaceAddresses.gidOf(InetAddress.getByName(address));
    }

    @Test
    void shouldTakeTheFirstIpv4GidUnlessOneIsAskedFor() throws Exception
    {
        final LocalPort port = port();
        assertEquals(1, GidSelection.byIndex(port, -1, "eth0"));
        assertEquals(2, GidSelection.byIndex(port, 2, "eth0"));
        final LocalPort ipv6Only = new LocalPort(MAC);
        ipv6Only.addGid(0xFE80_0000_0000_0000L, InterfaceAddresses.eui64(MAC));
        assertEquals(0, GidSelection.byIndex(ipv6Only, -1, "eth0"));
    }

    @Test
    void shouldListTheGidsThereAreWhenTheAskedOneIsNot() throws Exception
    {
        final UsageException ex = assertThrows(UsageException.class, () -> GidSelection.byIndex(port(), 3, "eth0"));
        assertEquals("GID index 3 does not exist on eth0 (it has 3 GIDs: 0=fe80:0:0:0:0:ff:fe00:1, 1=10.0.0.1, " +
            "2=fd00:0:0:0:0:0:0:1)", ex.getMessage());
    }

    @Test
    void shouldFindTheGidOfAnAddressOnlyWhenItIsOurs() throws Exception
    {
        final LocalPort port = port();
        assertEquals(1, GidSelection.ofAddress(port, gid("10.0.0.1")));
        assertEquals(2, GidSelection.ofAddress(port, gid("fd00::1")));
        assertEquals(-1, GidSelection.ofAddress(port, gid("10.0.0.2")));
    }

    @Test
    void shouldTakeOurFirstGidOfThePeersFamilyAndScope() throws Exception
    {
        final LocalPort port = port();
        assertEquals(1, GidSelection.ofFamily(port, gid("10.9.9.9")));
        assertEquals(2, GidSelection.ofFamily(port, gid("fd00::99")));
        assertEquals(0, GidSelection.ofFamily(port, gid("fe80::99")));
        final LocalPort ipv4Only = new LocalPort(MAC);
        ipv4Only.addIpv4(0x0A00_0001);
        assertEquals(-1, GidSelection.ofFamily(ipv4Only, gid("fd00::99")));
    }

    @Test
    void shouldTellAnIpv4MappedGid() throws Exception
    {
        assertTrue(GidSelection.isIpv4(gid("192.168.1.1")));
        assertFalse(GidSelection.isIpv4(gid("fd00::1")));
        assertFalse(GidSelection.isIpv4(gid("::1")));
    }
}
