package io.rnic.datapath.driver;

import io.rnic.cnc.CncFile;
import io.rnic.cnc.DeviceInfo;
import io.rnic.datapath.endpoint.InterfaceAddresses;
import io.rnic.device.DeviceLimits;
import io.rnic.transport.LocalPort;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.VerbsException;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DeviceDescriptionTest
{
    private static final long MAC = 0x52_54_00_12_34_56L;

    /** A port as {@link InterfaceAddresses#of} lays one out: fe80:: EUI-64, then IPv4, then the other IPv6. */
    private static LocalPort port(final int ethernetMtu)
    {
        final LocalPort port = new LocalPort(MAC).ethernetMtu(ethernetMtu);
        port.addGid(0xFE80_0000_0000_0000L, InterfaceAddresses.eui64(MAC));
        port.addIpv4(0x0A_00_00_01);
        port.addIpv4(0xC0_A8_01_0A);
        port.addGid(0x2001_0DB8_0000_0000L, 1);
        return port;
    }

    @Test
    void shouldDescribeTheDeviceInIbvDevinfosVocabularyAndOrder()
    {
        final List<Map.Entry<String, String>> entries = DeviceDescription.of("veth0", "afpacket", port(1500));

        assertEquals("hca_id", entries.get(0).getKey());
        assertEquals("rnic_veth0", entries.get(0).getValue());
        assertEquals("InfiniBand (0)", DeviceInfo.value(entries, "transport"));
        assertEquals(DeviceDescription.VERSION_UNKNOWN, DeviceInfo.value(entries, "fw_ver")); // classes, not rnic.jar
        assertEquals("5054:00ff:fe12:3456", DeviceInfo.value(entries, "node_guid")); // rxe: the MAC's EUI-64
        assertEquals("5054:00ff:fe12:3456", DeviceInfo.value(entries, "sys_image_guid"));
        assertEquals("0xffffff", DeviceInfo.value(entries, "vendor_id"));
        assertEquals("1", DeviceInfo.value(entries, "phys_port_cnt"));
        assertEquals("afpacket", DeviceInfo.value(entries, "port_kind"));
        assertEquals("PORT_ACTIVE (4)", DeviceInfo.value(entries, "state"));
        assertEquals("4096 (5)", DeviceInfo.value(entries, "max_mtu"));
        assertEquals("1024 (3)", DeviceInfo.value(entries, "active_mtu")); // 2048 + headers does not fit 1500
        assertEquals("Ethernet", DeviceInfo.value(entries, "link_layer"));
        assertEquals("52:54:00:12:34:56", DeviceInfo.value(entries, "mac"));
        assertTrue(indexOf(entries, "phys_port_cnt") < indexOf(entries, "max_qp_wr"));
        assertTrue(indexOf(entries, "max_qp_init_rd_atom") < indexOf(entries, "port"), "device entries, then port 1");
        assertTrue(indexOf(entries, "port") < indexOf(entries, "state"));
        assertTrue(indexOf(entries, "link_layer") < indexOf(entries, "GID[  0]"));
    }

    @Test
    void shouldGiveTheActiveMtuOfAJumboInterface()
    {
        assertEquals("4096 (5)", DeviceInfo.value(DeviceDescription.of("eth0", "dpdk", port(9000)), "active_mtu"));
    }

    @Test
    void shouldPrintTheGidTableAsIbvDevinfoWithTheIndexToolsTake() throws UnknownHostException
    {
        final LocalPort port = port(1500);
        final List<Map.Entry<String, String>> entries = DeviceDescription.of("veth0", "afpacket", port);

        assertEquals("fe80::5054:ff:fe12:3456, RoCE v2", DeviceInfo.value(entries, "GID[  0]"));
        assertEquals("::ffff:10.0.0.1, RoCE v2", DeviceInfo.value(entries, "GID[  1]"));
        assertEquals("::ffff:192.168.1.10, RoCE v2", DeviceInfo.value(entries, "GID[  2]"));
        assertEquals("2001:db8::1, RoCE v2", DeviceInfo.value(entries, "GID[  3]"));
        assertNull(DeviceInfo.value(entries, "GID[  4]"));
        for (int i = 0; i < port.gidCount(); i++) // GID[i] is LocalPort's index i: what -x i sends from
        {
            final String printed = DeviceInfo.value(entries, DeviceDescription.gidKey(i));
            final long[] gid = InterfaceAddresses.gidOf(
                InetAddress.getByName(printed.substring(0, printed.indexOf(", RoCE v2"))));
            assertEquals(port.gidHigh(i), gid[0], printed + " is GID " + i);
            assertEquals(port.gidLow(i), gid[1], printed + " is GID " + i);
        }
    }

    @Test
    void shouldFormatGidsAsInetNtopDoes()
    {
        assertEquals("::", DeviceDescription.gid(0, 0));
        assertEquals("::1", DeviceDescription.gid(0, 1));
        assertEquals("2001:db8:0:1:1:1:1:1", DeviceDescription.gid(0x2001_0DB8_0000_0001L, 0x0001_0001_0001_0001L));
        assertEquals("2001:db8::", DeviceDescription.gid(0x2001_0DB8_0000_0000L, 0));
        assertEquals("fe80::1:0:0:1", DeviceDescription.gid(0xFE80_0000_0000_0000L, 0x0001_0000_0000_0001L));
        assertEquals("::ffff:1.2.3.4", DeviceDescription.gid(0, 0x0000_FFFF_0102_0304L));
    }

    @Test
    void shouldPrintTheLimitsTheVerbsEnforce()
    {
        final List<Map.Entry<String, String>> entries = DeviceDescription.of("veth0", "afpacket", port(1500),
            DeviceLimits.ofMemory(1L << 30), new ClientQuotas(100, 200, 30, 400, 1L << 33, 1L << 28));

        assertEquals("65536", DeviceInfo.value(entries, "max_qp_wr"));
        assertEquals("16", DeviceInfo.value(entries, "max_sge"));
        assertEquals("16", DeviceInfo.value(entries, "max_qp_rd_atom"));
        assertEquals("262144", DeviceInfo.value(entries, "max_qp")); // 1 GiB of 4 KiB QPs (depth 1, 1 SGE)
        assertEquals(Integer.toString(DeviceLimits.ofMemory(1L << 30).maxCq()), DeviceInfo.value(entries, "max_cq"));
        assertEquals(Integer.toString(DeviceLimits.ofMemory(1L << 30).maxMr()), DeviceInfo.value(entries, "max_mr"));
        assertEquals("1073741824", DeviceInfo.value(entries, "device_memory_bytes"));
        assertEquals("100", DeviceInfo.value(entries, "max_client_qp"));
        assertEquals("200", DeviceInfo.value(entries, "max_client_cq"));
        assertEquals("30", DeviceInfo.value(entries, "max_client_srq"));
        assertEquals("400", DeviceInfo.value(entries, "max_client_mr"));
        assertEquals("8589934592", DeviceInfo.value(entries, "max_client_mr_bytes"));
        assertEquals("268435456", DeviceInfo.value(entries, "max_client_queue_bytes"));
        assertEquals("0x7fffffff", DeviceInfo.value(entries, "max_mr_size"));
        final int maxCqe = Integer.parseInt(DeviceInfo.value(entries, "max_cqe"));
        assertThrows(VerbsException.class, () -> new CompletionQueue(1, maxCqe + 1));
    }

    @Test
    void shouldFitTheCncsDeviceInfoBlockWithAFullGidTable()
    {
        final LocalPort port = new LocalPort(MAC);
        for (int i = 0; i < LocalPort.MAX_GIDS; i++)
        {
            port.addGid(0x2001_0DB8_FFFF_FFFFL, 0xFFFF_FFFF_FFFF_0000L | i);
        }
        final UnsafeBuffer block = new UnsafeBuffer(new byte[CncFile.Lengths.defaults().deviceInfoLength()]);

        DeviceDescription.write(block, "a-long-interface-name", "dpdk", port);

        final List<Map.Entry<String, String>> read = DeviceInfo.read(block);
        assertEquals(DeviceDescription.of("a-long-interface-name", "dpdk", port), read);
        assertEquals("2001:db8:ffff:ffff:ffff:ffff:ffff:f, RoCE v2", DeviceInfo.value(read, "GID[ 15]"));
    }

    private static int indexOf(final List<Map.Entry<String, String>> entries, final String key)
    {
        for (int i = 0; i < entries.size(); i++)
        {
            if (entries.get(i).getKey().equals(key))
            {
                return i;
            }
        }
        throw new AssertionError("no " + key + " in " + entries);
    }
}
