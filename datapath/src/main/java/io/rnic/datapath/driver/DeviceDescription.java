package io.rnic.datapath.driver;

import io.rnic.cnc.DeviceInfo;
import io.rnic.datapath.endpoint.InterfaceAddresses;
import io.rnic.device.DeviceLimits;
import io.rnic.device.RnicDevice;
import io.rnic.transport.LocalPort;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.MemoryRegionTable;
import io.rnic.verbs.PathMtu;
import io.rnic.verbs.QpAttributes;
import io.rnic.verbs.ScatterGatherList;
import org.agrona.concurrent.AtomicBuffer;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What a driver says of its device in the CnC file's {@link DeviceInfo} block, in {@code ibv_devinfo -v}'s vocabulary
 * and order, so that {@code bin/rnic devinfo} prints what RDMA users read on rxe or a ConnectX: {@code hca_id}
 * ({@code rnic_<port>}), {@code transport}, {@code fw_ver} (rnic's version), the GUIDs (the MAC's EUI-64, as rxe
 * derives them), rxe's {@code vendor_id}, the limits the verbs enforce, then port 1: {@code state},
 * {@code max_mtu}/{@code active_mtu} as {@code 4096 (5)}, {@code link_layer} and the GID table. Entries of rnic's
 * own ({@code netdev}, {@code port_kind}, {@code mac}, {@code ethernet_mtu}) sit where ibv_devinfo has none.
 * <p>
 * The GID table. rxe lists two entries per address of its netdev, RoCE v1 then RoCE v2 (link-local 0 and 1, the
 * first IPv4 address 2 and 3, ...). rnic speaks RoCE v2 only, so its table has one entry per address, each
 * {@code RoCE v2}, numbered as {@link LocalPort} numbers them ({@link InterfaceAddresses}: 0 the fe80:: EUI-64 GID,
 * then the IPv4 addresses as {@code ::ffff:a.b.c.d}, then the other IPv6 addresses): the index printed as
 * {@code GID[i]} is exactly the {@code -x}/{@code --gid-index} ({@code -g} for the pingpongs) a tool on this port
 * takes, and an address vector's source GID index. It is not the index rxe shows for the same address (rxe's v2 entry
 * of address {@code i} is {@code 2i + 1}); each side of a connection chooses its own index, so the two never meet.
 */
public final class DeviceDescription
{
    /** rxe's vendor id ({@code RXE_VENDOR_ID}): no IEEE OUI of our own. */
    public static final int VENDOR_ID = 0xFF_FFFF;
    public static final String PORT_KIND_AFPACKET = "afpacket";
    public static final String PORT_KIND_DPDK = "dpdk";
    /** What {@code hca_id} puts before the port's name: the device on eth0 is {@code rnic_eth0}. */
    public static final String DEVICE_NAME_PREFIX = "rnic_";
    /** The version when the classes do not come from rnic.jar (a build tree, a test). */
    public static final String VERSION_UNKNOWN = "dev";

    private DeviceDescription()
    {
    }

    /**
     * The entries of a device on {@code port}.
     *
     * @param portName the interface or DPDK port the driver serves ({@code hca_id} is {@code rnic_<portName>}).
     * @param portKind {@link #PORT_KIND_AFPACKET} or {@link #PORT_KIND_DPDK}.
     */
    public static List<Map.Entry<String, String>> of(final String portName, final String portKind, final LocalPort port)
    {
        return of(portName, portKind, port, DeviceLimits.forThisJvm(), null);
    }

    /**
     * The entries of a device on {@code port} holding at most {@code limits}, and, after the device's limits, the
     * quotas each client of its driver is held to (none when null): {@code max_client_qp}, {@code max_client_cq},
     * {@code max_client_srq}, {@code max_client_mr}, {@code max_client_mr_bytes}, {@code max_client_queue_bytes}.
     */
    public static List<Map.Entry<String, String>> of(
        final String portName, final String portKind, final LocalPort port, final DeviceLimits limits,
        final ClientQuotas quotas)
    {
        final List<Map.Entry<String, String>> entries = new ArrayList<>();
        final String guid = guid(InterfaceAddresses.eui64(port.mac()));
        final PathMtu activeMtu = PathMtu.forEthernetMtu(port.ethernetMtu());
        add(entries, "hca_id", DEVICE_NAME_PREFIX + portName);
        add(entries, "transport", "InfiniBand (0)"); // what ibv_devinfo prints for every RoCE device
        add(entries, "fw_ver", version());
        add(entries, "node_guid", guid);
        add(entries, "sys_image_guid", guid);
        add(entries, "vendor_id", String.format("0x%04x", VENDOR_ID));
        add(entries, "vendor_part_id", "0");
        add(entries, "hw_ver", "0x0");
        add(entries, "phys_port_cnt", "1");
        add(entries, "netdev", portName);
        add(entries, "port_kind", portKind);
        add(entries, "max_mr_size", "0x" + Long.toHexString(MemoryRegionTable.MAX_REGION_BYTES));
        add(entries, "max_qp", Integer.toString(limits.maxQp()));
        add(entries, "max_qp_wr", Integer.toString(RnicDevice.MAX_QP_WR));
        add(entries, "max_sge", Integer.toString(ScatterGatherList.MAX_SGE));
        add(entries, "max_cq", Integer.toString(limits.maxCq()));
        add(entries, "max_cqe", Integer.toString(CompletionQueue.MAX_ENTRIES));
        add(entries, "max_mr", Integer.toString(limits.maxMr()));
        add(entries, "max_qp_rd_atom", Integer.toString(QpAttributes.MAX_READ_ATOMIC));
        add(entries, "max_qp_init_rd_atom", Integer.toString(QpAttributes.MAX_READ_ATOMIC));
        add(entries, "max_mw", Integer.toString(limits.maxMw()));
        add(entries, "max_srq", Integer.toString(limits.maxSrq()));
        add(entries, "device_memory_bytes", Long.toString(limits.memoryBytes()));
        if (quotas != null)
        {
            add(entries, "max_client_qp", Integer.toString(quotas.qps()));
            add(entries, "max_client_cq", Integer.toString(quotas.cqs()));
            add(entries, "max_client_srq", Integer.toString(quotas.srqs()));
            add(entries, "max_client_mr", Integer.toString(quotas.mrs()));
            add(entries, "max_client_mr_bytes", Long.toString(quotas.registeredBytes()));
            add(entries, "max_client_queue_bytes", Long.toString(quotas.queueBytes()));
        }
        add(entries, "port", "1");
        add(entries, "state", "PORT_ACTIVE (4)");
        add(entries, "max_mtu", mtu(PathMtu.MTU_4096));
        add(entries, "active_mtu", mtu(activeMtu));
        add(entries, "sm_lid", "0"); // no subnet manager, no LIDs on Ethernet
        add(entries, "port_lid", "0");
        add(entries, "port_lmc", "0x00");
        add(entries, "link_layer", "Ethernet");
        add(entries, "mac", InterfaceAddresses.formatMac(port.mac()));
        add(entries, "ethernet_mtu", Integer.toString(port.ethernetMtu()));
        add(entries, "gid_tbl_len", Integer.toString(LocalPort.MAX_GIDS));
        for (int i = 0; i < port.gidCount(); i++)
        {
            add(entries, gidKey(i), gid(port.gidHigh(i), port.gidLow(i)) + ", RoCE v2");
        }
        return entries;
    }

    /** Writes the entries of a device on {@code port} into the CnC's device information block. */
    public static void write(
        final AtomicBuffer deviceInfo, final String portName, final String portKind, final LocalPort port)
    {
        DeviceInfo.write(deviceInfo, of(portName, portKind, port));
    }

    /** The key of GID index {@code index}: {@code GID[  0]}, as ibv_devinfo -v labels it. */
    public static String gidKey(final int index)
    {
        return String.format("GID[%3d]", index);
    }

    /** rnic's version: the Implementation-Version of rnic.jar's manifest, else {@link #VERSION_UNKNOWN}. */
    public static String version()
    {
        final String version = DeviceDescription.class.getPackage().getImplementationVersion();
        return version != null ? version : VERSION_UNKNOWN;
    }

    /** An IB MTU as ibv_devinfo prints it: bytes, then the {@code enum ibv_mtu} value ({@code 4096 (5)}). */
    static String mtu(final PathMtu mtu)
    {
        return mtu.bytes() + " (" + mtu.value() + ")";
    }

    /** A 64-bit GUID as ibv_devinfo prints it: four groups of four hex digits. */
    static String guid(final long guid)
    {
        return String.format("%04x:%04x:%04x:%04x",
            (guid >>> 48) & 0xFFFF, (guid >>> 32) & 0xFFFF, (guid >>> 16) & 0xFFFF, guid & 0xFFFF);
    }

    /**
     * A GID as ibv_devinfo -v prints it (glibc's {@code inet_ntop}): lower-case groups without leading zeros, the
     * longest run of two or more zero groups as {@code ::}, and an IPv4-mapped GID as {@code ::ffff:a.b.c.d}.
     */
    static String gid(final long high, final long low)
    {
        final int[] groups = new int[8];
        for (int i = 0; i < 4; i++)
        {
            groups[i] = (int)(high >>> (48 - 16 * i)) & 0xFFFF;
            groups[4 + i] = (int)(low >>> (48 - 16 * i)) & 0xFFFF;
        }
        int bestStart = -1;
        int bestLength = 0;
        for (int i = 0; i < 8; )
        {
            if (groups[i] != 0)
            {
                i++;
                continue;
            }
            int end = i;
            while (end < 8 && groups[end] == 0)
            {
                end++;
            }
            if (end - i > bestLength)
            {
                bestStart = i;
                bestLength = end - i;
            }
            i = end;
        }
        if (bestLength < 2)
        {
            bestStart = -1;
        }
        final StringBuilder text = new StringBuilder(45);
        for (int i = 0; i < 8; i++)
        {
            if (i == bestStart)
            {
                text.append(i == 0 ? "::" : ":");
                i += bestLength - 1;
                continue;
            }
            if (i == 6 && bestStart == 0 && (bestLength == 6 || bestLength == 5 && groups[5] == 0xFFFF))
            {
                text.append(String.format("%d.%d.%d.%d",
                    groups[6] >>> 8, groups[6] & 0xFF, groups[7] >>> 8, groups[7] & 0xFF));
                break;
            }
            text.append(Integer.toHexString(groups[i]));
            if (i < 7)
            {
                text.append(':');
            }
        }
        return text.toString();
    }

    private static void add(final List<Map.Entry<String, String>> entries, final String key, final String value)
    {
        entries.add(Map.entry(key, value));
    }
}
