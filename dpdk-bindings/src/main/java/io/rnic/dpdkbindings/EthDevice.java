package io.rnic.dpdkbindings;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static io.rnic.dpdkbindings.DpdkBindings.RTE_ETH_STATS;
import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * One DPDK ethdev port, by id: information, configuration (queues, MTU, RSS over RoCEv2's UDP source port), queue
 * set-up, start/stop/close, statistics, link and MAC. Control path only: each call may allocate and throws a
 * {@link DpdkException} naming the call and DPDK's reason.
 */
public final class EthDevice
{
    /** The arguments of the virtual devices made by {@link #createVirtual}, by name. */
    private static final Map<String, String> CREATED_ARGS = new ConcurrentHashMap<>();

    private final short portId;
    private final String name;

    private EthDevice(final short portId, final String name)
    {
        this.portId = portId;
        this.name = name;
    }

    /** The port of a device named on the EAL command line ({@code --vdev=net_memif0,...}) or probed by EAL. */
    public static EthDevice byName(final String name)
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment id = arena.allocate(JAVA_SHORT);
            final int rc = DpdkBindings.rte_eth_dev_get_port_by_name(arena.allocateFrom(name), id);
            if (rc != 0)
            {
                throw new DpdkException("no DPDK port named '" + name + "' (ports: " + names() + "); name a " +
                    "virtual device in --eal, e.g. --vdev=" + name + ",...");
            }
            return new EthDevice(id.get(JAVA_SHORT, 0), name);
        }
    }

    /**
     * The arguments a virtual device was made with: what follows its name in EAL's {@code --vdev=NAME,ARGS}, or the
     * {@code args} of {@link #createVirtual}; empty when there are none (or the device is not virtual).
     */
    public String virtualDeviceArgs()
    {
        final String created = CREATED_ARGS.get(name);
        if (created != null)
        {
            return created;
        }
        final List<String> eal = Eal.arguments() != null ? Eal.arguments() : List.of();
        for (int i = 0; i < eal.size(); i++)
        {
            final String arg = eal.get(i);
            final String spec = arg.startsWith("--vdev=") ? arg.substring("--vdev=".length()) :
                "--vdev".equals(arg) && i + 1 < eal.size() ? eal.get(i + 1) : null;
            if (spec != null && spec.startsWith(name + ","))
            {
                return spec.substring(name.length() + 1);
            }
        }
        return "";
    }

    /** Creates a virtual device after EAL start-up ({@code rte_vdev_init}), e.g. {@code net_null0}, {@code size=64}. */
    public static EthDevice createVirtual(final String name, final String args)
    {
        try (Arena arena = Arena.ofConfined())
        {
            final int rc = DpdkBindings.rte_vdev_init(arena.allocateFrom(name), arena.allocateFrom(args));
            if (rc != 0)
            {
                throw DpdkException.of("rte_vdev_init " + name + "," + args, rc);
            }
        }
        CREATED_ARGS.put(name, args);
        return byName(name);
    }

    /** Removes a virtual device made by {@link #createVirtual} (after {@link #close}). */
    public static void destroyVirtual(final String name)
    {
        try (Arena arena = Arena.ofConfined())
        {
            CREATED_ARGS.remove(name);
            final int rc = DpdkBindings.rte_vdev_uninit(arena.allocateFrom(name));
            if (rc != 0)
            {
                throw DpdkException.of("rte_vdev_uninit " + name, rc);
            }
        }
    }

    /**
     * A net_ring port over {@code rte_ring}s, one pair per queue: what queue q sends goes into {@code txRings[q]},
     * what it receives comes from {@code rxRings[q]}. Two such ports with their rings crossed are a wire inside one
     * process.
     */
    public static EthDevice fromRings(final String name, final long[] rxRings, final long[] txRings)
    {
        final int port;
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment rx = arena.allocate(ADDRESS, rxRings.length);
            final MemorySegment tx = arena.allocate(ADDRESS, txRings.length);
            for (int i = 0; i < rxRings.length; i++)
            {
                rx.setAtIndex(JAVA_LONG, i, rxRings[i]);
            }
            for (int i = 0; i < txRings.length; i++)
            {
                tx.setAtIndex(JAVA_LONG, i, txRings[i]);
            }
            port = DpdkBindings.rte_eth_from_rings(arena.allocateFrom(name), rx, rxRings.length, tx, txRings.length,
                0);
            if (port < 0)
            {
                throw DpdkException.of("rte_eth_from_rings " + name, DpdkBindings.rte_errno());
            }
        }
        return new EthDevice((short)port, "net_ring_" + name); // the driver prefixes the name
    }

    /** {@link #fromRings(String, long[], long[])} with one queue. */
    public static EthDevice fromRings(final String name, final long rxRing, final long txRing)
    {
        return fromRings(name, new long[]{ rxRing }, new long[]{ txRing });
    }

    /** The names of every port DPDK knows. */
    public static List<String> names()
    {
        final List<String> names = new ArrayList<>();
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment buffer = arena.allocate(64);
            for (int port = 0; port < DpdkBindings.RTE_MAX_ETHPORTS; port++)
            {
                if (DpdkBindings.rte_eth_dev_is_valid_port((short)port) == 1 &&
                    DpdkBindings.rte_eth_dev_get_name_by_port((short)port, buffer) == 0)
                {
                    names.add(buffer.getString(0));
                }
            }
        }
        return names;
    }

    public short portId()
    {
        return portId;
    }

    public String name()
    {
        return name;
    }

    /**
     * What the driver says it can do. {@code maxRxPacketBytes} is the longest frame it receives (Ethernet header and
     * CRC included): ethdev refuses to configure an MTU whose frame is longer, whatever {@code maxMtu} says.
     * {@code txOffloads} are its transmit offload capabilities ({@code tx_offload_capa}).
     */
    public record Info(String driverName, int maxMtu, int maxRxQueues, int maxTxQueues, long rssOffloads,
        int maxRxPacketBytes, long txOffloads)
    {
        /** Whether it sends a frame chained over several mbufs ({@code RTE_ETH_TX_OFFLOAD_MULTI_SEGS}). */
        public boolean sendsChainedFrames()
        {
            return (txOffloads & DpdkBindings.RTE_ETH_TX_OFFLOAD_MULTI_SEGS) != 0;
        }

        /** The largest MTU ethdev accepts for the device: {@code maxMtu}, within {@code maxRxPacketBytes}. */
        public int largestMtu()
        {
            return Math.min(maxMtu, maxRxPacketBytes - 18); // Ethernet header 14 + CRC 4, as ethdev counts
        }
    }

    public Info info()
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment info = arena.allocate(DpdkBindings.RTE_ETH_DEV_INFO);
            check("rte_eth_dev_info_get", DpdkBindings.rte_eth_dev_info_get(portId, info));
            final MemorySegment driver = info.get(ADDRESS, DpdkBindings.INFO_DRIVER_NAME);
            return new Info(
                driver.equals(MemorySegment.NULL) ? "?" : driver.reinterpret(64).getString(0),
                info.get(JAVA_SHORT, DpdkBindings.INFO_MAX_MTU) & 0xFFFF,
                info.get(JAVA_SHORT, DpdkBindings.INFO_MAX_RX_QUEUES) & 0xFFFF,
                info.get(JAVA_SHORT, DpdkBindings.INFO_MAX_TX_QUEUES) & 0xFFFF,
                info.get(JAVA_LONG, DpdkBindings.INFO_FLOW_TYPE_RSS_OFFLOADS),
                info.get(JAVA_INT, DpdkBindings.INFO_MAX_RX_PKTLEN),
                info.get(JAVA_LONG, DpdkBindings.INFO_TX_OFFLOAD_CAPA));
        }
    }

    /**
     * Sets up {@code queues} receive and transmit queues. With several, receive-side scaling spreads flows over
     * them by IP addresses and UDP ports (RoCEv2's source port carries the flow's entropy), where the driver
     * supports it; {@code mtu} 0 keeps the driver's default.
     */
    public void configure(final int queues, final int mtu)
    {
        final Info info = info();
        if (queues < 1 || queues > info.maxRxQueues() || queues > info.maxTxQueues())
        {
            throw new DpdkException(name + " (" + info.driverName() + ") has at most " +
                Math.min(info.maxRxQueues(), info.maxTxQueues()) + " queue pairs; asked for " + queues);
        }
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment conf = arena.allocate(DpdkBindings.RTE_ETH_CONF);
            final long rss = info.rssOffloads() & DpdkBindings.RSS_ROCEV2;
            if (queues > 1 && rss != 0)
            {
                conf.set(JAVA_INT, DpdkBindings.CONF_MQ_MODE, DpdkBindings.RTE_ETH_MQ_RX_RSS);
                conf.set(JAVA_LONG, DpdkBindings.CONF_RSS_HF, rss);
            }
            conf.set(JAVA_INT, DpdkBindings.CONF_MTU, mtu);
            check("rte_eth_dev_configure " + queues + " queues, mtu " + mtu,
                DpdkBindings.rte_eth_dev_configure(portId, (short)queues, (short)queues, conf));
        }
    }

    public void setupRxQueue(final int queue, final int descriptors, final PacketMempool pool)
    {
        check("rte_eth_rx_queue_setup " + queue, DpdkBindings.rte_eth_rx_queue_setup(portId, (short)queue,
            (short)descriptors, socketId(), MemorySegment.NULL, pool.address()));
    }

    public void setupTxQueue(final int queue, final int descriptors)
    {
        check("rte_eth_tx_queue_setup " + queue, DpdkBindings.rte_eth_tx_queue_setup(portId, (short)queue,
            (short)descriptors, socketId(), MemorySegment.NULL));
    }

    public void start()
    {
        check("rte_eth_dev_start", DpdkBindings.rte_eth_dev_start(portId));
    }

    public void stop()
    {
        check("rte_eth_dev_stop", DpdkBindings.rte_eth_dev_stop(portId));
    }

    /** Releases the port (its queues give their mbufs back to the pool). */
    public void close()
    {
        check("rte_eth_dev_close", DpdkBindings.rte_eth_dev_close(portId));
    }

    /** Promiscuous mode, where the driver has it (false when it does not). */
    public boolean promiscuous()
    {
        return DpdkBindings.rte_eth_promiscuous_enable(portId) == 0;
    }

    public int socketId()
    {
        final int socket = DpdkBindings.rte_eth_dev_socket_id(portId);
        return socket < 0 ? DpdkBindings.SOCKET_ID_ANY : socket;
    }

    /** The port's MAC address in the low 48 bits. */
    public long macAddress()
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment address = arena.allocate(DpdkBindings.RTE_ETHER_ADDR);
            check("rte_eth_macaddr_get", DpdkBindings.rte_eth_macaddr_get(portId, address));
            long mac = 0;
            for (int i = 0; i < 6; i++)
            {
                mac = (mac << 8) | (address.get(JAVA_BYTE, i) & 0xFF);
            }
            return mac;
        }
    }

    /** Sets the port's MAC address (low 48 bits). */
    public void macAddress(final long mac)
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment address = arena.allocate(DpdkBindings.RTE_ETHER_ADDR);
            for (int i = 0; i < 6; i++)
            {
                address.set(JAVA_BYTE, i, (byte)(mac >>> (40 - 8 * i)));
            }
            check("rte_eth_dev_default_mac_addr_set", DpdkBindings.rte_eth_dev_default_mac_addr_set(portId, address));
        }
    }

    /** The configured MTU (the largest Ethernet payload). */
    public int mtu()
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment mtu = arena.allocate(JAVA_SHORT);
            check("rte_eth_dev_get_mtu", DpdkBindings.rte_eth_dev_get_mtu(portId, mtu));
            return mtu.get(JAVA_SHORT, 0) & 0xFFFF;
        }
    }

    /** Link state: speed in Mb/s (0 unknown) and up/down. */
    public record Link(int speedMbps, boolean up)
    {
    }

    public Link link()
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment link = arena.allocate(DpdkBindings.RTE_ETH_LINK);
            check("rte_eth_link_get_nowait", DpdkBindings.rte_eth_link_get_nowait(portId, link));
            // bit field order on x86-64: duplex (bit 0), autoneg (bit 1), status (bit 2)
            return new Link(link.get(JAVA_INT, 0), (link.get(JAVA_SHORT, 4) & 0b100) != 0);
        }
    }

    /** The port's totals since start. */
    public record Stats(long rxPackets, long txPackets, long rxBytes, long txBytes, long rxMissed, long rxErrors,
        long txErrors, long rxNoMbuf)
    {
    }

    public Stats stats()
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment s = arena.allocate(RTE_ETH_STATS);
            check("rte_eth_stats_get", DpdkBindings.rte_eth_stats_get(portId, s));
            return new Stats(field(s, "ipackets"), field(s, "opackets"), field(s, "ibytes"), field(s, "obytes"),
                field(s, "imissed"), field(s, "ierrors"), field(s, "oerrors"), field(s, "rx_nombuf"));
        }
    }

    private static long field(final MemorySegment stats, final String name)
    {
        return stats.get(JAVA_LONG, RTE_ETH_STATS.byteOffset(groupElement(name)));
    }

    private void check(final String what, final int rc)
    {
        if (rc < 0)
        {
            throw DpdkException.of(what + " on " + name, rc);
        }
    }

    @Override
    public String toString()
    {
        return name + " (port " + portId + ")";
    }
}
