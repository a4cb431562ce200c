package io.rnic.dpdkbindings;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * Every DPDK 22.11 declaration rnic uses, in one place and in jextract's shape: constants, struct layouts, one
 * {@code MethodHandle} and one static wrapper per function (jextract itself cannot be fetched here). The functions
 * come from Debian's {@code librte_*.so.23}; the {@code static inline} fast-path ones (burst, mbuf allocation,
 * {@code rte_errno}) from {@code librnic_dpdk_shim.so}, built from {@code src/main/c} during the Maven build.
 * <p>
 * Pointers are passed as {@code long} addresses: the fast path then creates no {@code MemorySegment} per call. Fast-
 * path calls are {@link Linker.Option#critical critical} (no thread-state transition; they never touch the Java heap
 * and never block). Loading never throws: when DPDK or the shim is missing, {@link #unavailableReason()} says why
 * and {@link #requireAvailable()} throws a {@link DpdkException} with that reason.
 */
public final class DpdkBindings
{
    /** The soname suffix of the DPDK ABI these declarations were written against (DPDK 22.11). */
    public static final String ABI = "23";
    public static final String SHIM_RESOURCE = "/io/rnic/dpdkbindings/native/librnic_dpdk_shim.so";

    public static final int RTE_MAX_ETHPORTS = 32;
    public static final int RTE_PKTMBUF_HEADROOM = 128;
    public static final int RTE_ETH_MQ_RX_NONE = 0;
    public static final int RTE_ETH_MQ_RX_RSS = 1;
    public static final long RTE_ETH_RSS_IPV4 = 1L << 2;
    public static final long RTE_ETH_RSS_NONFRAG_IPV4_UDP = 1L << 5;
    public static final long RTE_ETH_RSS_IPV6 = 1L << 8;
    public static final long RTE_ETH_RSS_NONFRAG_IPV6_UDP = 1L << 11;
    /** RoCEv2 spreads flows over its UDP source port: hash on IP and UDP ports. */
    public static final long RSS_ROCEV2 = RTE_ETH_RSS_IPV4 | RTE_ETH_RSS_NONFRAG_IPV4_UDP | RTE_ETH_RSS_IPV6 |
        RTE_ETH_RSS_NONFRAG_IPV6_UDP;
    public static final int SOCKET_ID_ANY = -1;
    public static final int ENOENT = 2;
    public static final int ENODEV = 19;
    public static final int EINVAL = 22;
    public static final int EEXIST = 17;
    public static final int ENOMEM = 12;
    public static final int EACCES = 13;
    public static final int ENOTSUP = 95;
    public static final int EALREADY = 114;

    /** {@code struct rte_mbuf}: the first cache line's fields rnic reads and writes (128 bytes in all). */
    public static final StructLayout RTE_MBUF = MemoryLayout.structLayout(
        JAVA_LONG.withName("buf_addr"),
        JAVA_LONG.withName("buf_iova"),
        JAVA_SHORT.withName("data_off"),
        JAVA_SHORT.withName("refcnt"),
        JAVA_SHORT.withName("nb_segs"),
        JAVA_SHORT.withName("port"),
        JAVA_LONG.withName("ol_flags"),
        JAVA_INT.withName("packet_type"),
        JAVA_INT.withName("pkt_len"),
        JAVA_SHORT.withName("data_len"),
        JAVA_SHORT.withName("vlan_tci"),
        JAVA_LONG.withName("hash").withByteAlignment(4),
        JAVA_SHORT.withName("vlan_tci_outer"),
        JAVA_SHORT.withName("buf_len"),
        JAVA_LONG.withName("pool"),
        JAVA_LONG.withName("next"),
        MemoryLayout.paddingLayout(56));
    public static final long MBUF_BUF_ADDR = RTE_MBUF.byteOffset(groupElement("buf_addr"));
    public static final long MBUF_DATA_OFF = RTE_MBUF.byteOffset(groupElement("data_off"));
    public static final long MBUF_NB_SEGS = RTE_MBUF.byteOffset(groupElement("nb_segs"));
    public static final long MBUF_PKT_LEN = RTE_MBUF.byteOffset(groupElement("pkt_len"));
    public static final long MBUF_DATA_LEN = RTE_MBUF.byteOffset(groupElement("data_len"));
    public static final long MBUF_BUF_LEN = RTE_MBUF.byteOffset(groupElement("buf_len"));
    public static final long MBUF_NEXT = RTE_MBUF.byteOffset(groupElement("next"));

    /** {@code struct rte_eth_rxmode}, 56 bytes. */
    public static final StructLayout RTE_ETH_RXMODE = MemoryLayout.structLayout(
        JAVA_INT.withName("mq_mode"),
        JAVA_INT.withName("mtu"),
        JAVA_INT.withName("max_lro_pkt_size"),
        MemoryLayout.paddingLayout(4),
        JAVA_LONG.withName("offloads"),
        MemoryLayout.sequenceLayout(2, JAVA_LONG).withName("reserved_64s"),
        MemoryLayout.sequenceLayout(2, ADDRESS).withName("reserved_ptrs"));
    /** {@code struct rte_eth_rss_conf}, 24 bytes. */
    public static final StructLayout RTE_ETH_RSS_CONF = MemoryLayout.structLayout(
        ADDRESS.withName("rss_key"),
        JAVA_BYTE.withName("rss_key_len"),
        MemoryLayout.paddingLayout(7),
        JAVA_LONG.withName("rss_hf"));
    /**
     * {@code struct rte_eth_conf}, 2272 bytes: rnic sets the receive mode and the RSS hash functions and leaves the
     * rest zero (the defaults), so the rest is opaque padding here.
     */
    public static final StructLayout RTE_ETH_CONF = MemoryLayout.structLayout(
        JAVA_INT.withName("link_speeds"),
        MemoryLayout.paddingLayout(4),
        RTE_ETH_RXMODE.withName("rxmode"),
        MemoryLayout.paddingLayout(56).withName("txmode"),
        JAVA_INT.withName("lpbk_mode"),
        MemoryLayout.paddingLayout(4),
        RTE_ETH_RSS_CONF.withName("rss_conf"),
        MemoryLayout.paddingLayout(2272 - 152));
    public static final long CONF_MQ_MODE = RTE_ETH_CONF.byteOffset(groupElement("rxmode"), groupElement("mq_mode"));
    public static final long CONF_MTU = RTE_ETH_CONF.byteOffset(groupElement("rxmode"), groupElement("mtu"));
    public static final long CONF_RSS_HF = RTE_ETH_CONF.byteOffset(groupElement("rss_conf"), groupElement("rss_hf"));

    /** {@code struct rte_eth_dev_info}, 376 bytes: the fields rnic reads, the rest opaque. */
    public static final StructLayout RTE_ETH_DEV_INFO = MemoryLayout.structLayout(
        ADDRESS.withName("device"),
        ADDRESS.withName("driver_name"),
        JAVA_INT.withName("if_index"),
        JAVA_SHORT.withName("min_mtu"),
        JAVA_SHORT.withName("max_mtu"),
        MemoryLayout.paddingLayout(12),
        JAVA_INT.withName("max_rx_pktlen"),
        MemoryLayout.paddingLayout(4),
        JAVA_SHORT.withName("max_rx_queues"),
        JAVA_SHORT.withName("max_tx_queues"),
        MemoryLayout.paddingLayout(32),
        JAVA_LONG.withName("tx_offload_capa"),
        MemoryLayout.paddingLayout(24),
        JAVA_LONG.withName("flow_type_rss_offloads"),
        MemoryLayout.paddingLayout(376 - 120));
    public static final long INFO_DRIVER_NAME = RTE_ETH_DEV_INFO.byteOffset(groupElement("driver_name"));
    public static final long INFO_MAX_MTU = RTE_ETH_DEV_INFO.byteOffset(groupElement("max_mtu"));
    public static final long INFO_MAX_RX_PKTLEN = RTE_ETH_DEV_INFO.byteOffset(groupElement("max_rx_pktlen"));
    public static final long INFO_MAX_RX_QUEUES = RTE_ETH_DEV_INFO.byteOffset(groupElement("max_rx_queues"));
    public static final long INFO_MAX_TX_QUEUES = RTE_ETH_DEV_INFO.byteOffset(groupElement("max_tx_queues"));
    public static final long INFO_TX_OFFLOAD_CAPA = RTE_ETH_DEV_INFO.byteOffset(groupElement("tx_offload_capa"));
    /** {@code RTE_ETH_TX_OFFLOAD_MULTI_SEGS}: the device sends a frame chained over several mbufs. */
    public static final long RTE_ETH_TX_OFFLOAD_MULTI_SEGS = 1L << 15;
    public static final long INFO_FLOW_TYPE_RSS_OFFLOADS =
        RTE_ETH_DEV_INFO.byteOffset(groupElement("flow_type_rss_offloads"));

    /** {@code struct rte_eth_stats}, 704 bytes: the port totals, then per-queue arrays rnic does not read. */
    public static final StructLayout RTE_ETH_STATS = MemoryLayout.structLayout(
        JAVA_LONG.withName("ipackets"),
        JAVA_LONG.withName("opackets"),
        JAVA_LONG.withName("ibytes"),
        JAVA_LONG.withName("obytes"),
        JAVA_LONG.withName("imissed"),
        JAVA_LONG.withName("ierrors"),
        JAVA_LONG.withName("oerrors"),
        JAVA_LONG.withName("rx_nombuf"),
        MemoryLayout.paddingLayout(704 - 64));

    /** {@code struct rte_eth_link}, 8 bytes: speed in Mb/s, then status bits (duplex, autoneg, up). */
    public static final StructLayout RTE_ETH_LINK = MemoryLayout.structLayout(
        JAVA_INT.withName("link_speed"),
        JAVA_SHORT.withName("link_bits"),
        MemoryLayout.paddingLayout(2));
    /** {@code struct rte_ether_addr}, 6 bytes. */
    public static final MemoryLayout RTE_ETHER_ADDR = MemoryLayout.sequenceLayout(6, JAVA_BYTE);

    /**
     * {@code struct rte_eth_fp_ops}, 128 bytes each in the exported array {@code rte_eth_fp_ops[RTE_MAX_ETHPORTS]}:
     * the burst functions of a started port and its queues' data, what {@code rte_eth_rx_burst} reads inline.
     */
    public static final StructLayout RTE_ETH_FP_OPS = MemoryLayout.structLayout(
        ADDRESS.withName("rx_pkt_burst"),
        ADDRESS.withName("rx_queue_count"),
        ADDRESS.withName("rx_descriptor_status"),
        ADDRESS.withName("rxq_data"),
        ADDRESS.withName("rxq_clbk"),
        MemoryLayout.paddingLayout(24),
        ADDRESS.withName("tx_pkt_burst"),
        ADDRESS.withName("tx_pkt_prepare"),
        ADDRESS.withName("tx_descriptor_status"),
        ADDRESS.withName("txq_data"),
        ADDRESS.withName("txq_clbk"),
        MemoryLayout.paddingLayout(24));
    public static final long FP_RX_PKT_BURST = RTE_ETH_FP_OPS.byteOffset(groupElement("rx_pkt_burst"));
    public static final long FP_RXQ_DATA = RTE_ETH_FP_OPS.byteOffset(groupElement("rxq_data"));
    public static final long FP_TX_PKT_BURST = RTE_ETH_FP_OPS.byteOffset(groupElement("tx_pkt_burst"));
    public static final long FP_TXQ_DATA = RTE_ETH_FP_OPS.byteOffset(groupElement("txq_data"));

    /** What {@code rnic_dpdk_layout()} reports, in its order, and what these declarations say. */
    public static final List<String> LAYOUT_NAMES = List.of(
        "sizeof(rte_mbuf)", "rte_mbuf.buf_addr", "rte_mbuf.data_off", "rte_mbuf.nb_segs", "rte_mbuf.pkt_len",
        "rte_mbuf.data_len", "rte_mbuf.buf_len", "rte_mbuf.next", "sizeof(rte_eth_conf)", "rxmode.mq_mode",
        "rxmode.mtu", "rss_conf.rss_hf", "sizeof(rte_eth_dev_info)", "dev_info.driver_name", "dev_info.max_mtu",
        "dev_info.max_rx_queues", "dev_info.max_tx_queues", "dev_info.flow_type_rss_offloads",
        "sizeof(rte_eth_stats)", "rte_eth_stats.imissed", "sizeof(rte_eth_link)", "sizeof(rte_eth_fp_ops)",
        "rte_eth_fp_ops.txq", "RTE_PKTMBUF_HEADROOM", "dev_info.max_rx_pktlen", "dev_info.tx_offload_capa",
        "RTE_ETH_TX_OFFLOAD_MULTI_SEGS");
    static final long[] DECLARED_LAYOUT = {
        RTE_MBUF.byteSize(), MBUF_BUF_ADDR, MBUF_DATA_OFF, MBUF_NB_SEGS, MBUF_PKT_LEN, MBUF_DATA_LEN, MBUF_BUF_LEN,
        MBUF_NEXT, RTE_ETH_CONF.byteSize(), CONF_MQ_MODE, CONF_MTU, CONF_RSS_HF, RTE_ETH_DEV_INFO.byteSize(),
        INFO_DRIVER_NAME, INFO_MAX_MTU, INFO_MAX_RX_QUEUES, INFO_MAX_TX_QUEUES, INFO_FLOW_TYPE_RSS_OFFLOADS,
        RTE_ETH_STATS.byteSize(), RTE_ETH_STATS.byteOffset(groupElement("imissed")), RTE_ETH_LINK.byteSize(),
        RTE_ETH_FP_OPS.byteSize(), FP_TXQ_DATA, RTE_PKTMBUF_HEADROOM, INFO_MAX_RX_PKTLEN, INFO_TX_OFFLOAD_CAPA,
        RTE_ETH_TX_OFFLOAD_MULTI_SEGS };

    private static final String UNAVAILABLE;
    private static final MemorySegment FP_OPS;

    private static final MethodHandle RTE_EAL_INIT;
    private static final MethodHandle RTE_EAL_CLEANUP;
    private static final MethodHandle RTE_EAL_GET_RUNTIME_DIR;
    private static final MethodHandle RTE_THREAD_REGISTER;
    private static final MethodHandle RTE_THREAD_UNREGISTER;
    private static final MethodHandle RTE_STRERROR;
    private static final MethodHandle RTE_SOCKET_ID;
    private static final MethodHandle RTE_VDEV_INIT;
    private static final MethodHandle RTE_VDEV_UNINIT;
    private static final MethodHandle RTE_PKTMBUF_POOL_CREATE;
    private static final MethodHandle RTE_MEMPOOL_FREE;
    private static final MethodHandle RTE_MEMPOOL_AVAIL_COUNT;
    private static final MethodHandle RTE_MEMPOOL_IN_USE_COUNT;
    private static final MethodHandle RTE_PKTMBUF_FREE_BULK;
    private static final MethodHandle RTE_RING_CREATE;
    private static final MethodHandle RTE_RING_FREE;
    private static final MethodHandle RTE_ETH_FROM_RINGS;
    private static final MethodHandle RTE_ETH_DEV_COUNT_AVAIL;
    private static final MethodHandle RTE_ETH_DEV_GET_PORT_BY_NAME;
    private static final MethodHandle RTE_ETH_DEV_GET_NAME_BY_PORT;
    private static final MethodHandle RTE_ETH_DEV_IS_VALID_PORT;
    private static final MethodHandle RTE_ETH_DEV_INFO_GET;
    private static final MethodHandle RTE_ETH_DEV_CONFIGURE;
    private static final MethodHandle RTE_ETH_RX_QUEUE_SETUP;
    private static final MethodHandle RTE_ETH_TX_QUEUE_SETUP;
    private static final MethodHandle RTE_ETH_DEV_START;
    private static final MethodHandle RTE_ETH_DEV_STOP;
    private static final MethodHandle RTE_ETH_DEV_CLOSE;
    private static final MethodHandle RTE_ETH_DEV_SOCKET_ID;
    private static final MethodHandle RTE_ETH_STATS_GET;
    private static final MethodHandle RTE_ETH_LINK_GET_NOWAIT;
    private static final MethodHandle RTE_ETH_MACADDR_GET;
    private static final MethodHandle RTE_ETH_DEV_GET_MTU;
    private static final MethodHandle RTE_ETH_DEV_DEFAULT_MAC_ADDR_SET;
    private static final MethodHandle RTE_ETH_PROMISCUOUS_ENABLE;
    private static final MethodHandle RNIC_DPDK_RX_BURST;
    private static final MethodHandle RNIC_DPDK_TX_BURST;
    private static final MethodHandle RNIC_DPDK_PKTMBUF_ALLOC_BULK;
    private static final MethodHandle RNIC_DPDK_ERRNO;
    private static final MethodHandle RNIC_DPDK_MEMPOOL_CACHE_FLUSH;
    private static final MethodHandle RNIC_DPDK_LAYOUT;
    private static final MethodHandle RNIC_DPDK_ATTACH_EXTBUF;
    private static final MethodHandle RNIC_DPDK_EXTBUF_PRIV_SIZE;
    private static final MethodHandle RTE_ETH_TX_DONE_CLEANUP;
    /** {@code uint16_t (*eth_rx_burst_t)(void *rxq, struct rte_mbuf **rx_pkts, uint16_t nb_pkts)}, and tx alike. */
    static final FunctionDescriptor BURST_FUNCTION = FunctionDescriptor.of(JAVA_SHORT, JAVA_LONG, JAVA_LONG, JAVA_SHORT);

    static
    {
        String unavailable = null;
        final MethodHandle[] h = new MethodHandle[44];
        MemorySegment fpOps = MemorySegment.NULL;
        try
        {
            final Linker linker = Linker.nativeLinker();
            final Arena arena = Arena.global();
            final SymbolLookup eal = library("librte_eal.so." + ABI, arena);
            final SymbolLookup mempool = library("librte_mempool.so." + ABI, arena);
            final SymbolLookup mbuf = library("librte_mbuf.so." + ABI, arena);
            final SymbolLookup ring = library("librte_ring.so." + ABI, arena);
            final SymbolLookup ethdev = library("librte_ethdev.so." + ABI, arena);
            final SymbolLookup vdev = library("librte_bus_vdev.so." + ABI, arena);
            final SymbolLookup netRing = library("librte_net_ring.so." + ABI, arena);
            final SymbolLookup shim = SymbolLookup.libraryLookup(extractShim(), arena);
            final SymbolLookup all = eal.or(mempool).or(mbuf).or(ring).or(ethdev).or(vdev).or(netRing).or(shim);
            final Linker.Option critical = Linker.Option.critical(false);
            int i = 0;
            h[i++] = bind(linker, all, "rte_eal_init", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));
            h[i++] = bind(linker, all, "rte_eal_cleanup", FunctionDescriptor.of(JAVA_INT));
            h[i++] = bind(linker, all, "rte_eal_get_runtime_dir",
                FunctionDescriptor.of(ADDRESS.withTargetLayout(MemoryLayout.sequenceLayout(4096, JAVA_BYTE))));
            h[i++] = bind(linker, all, "rte_thread_register", FunctionDescriptor.of(JAVA_INT));
            h[i++] = bind(linker, all, "rte_thread_unregister", FunctionDescriptor.ofVoid());
            h[i++] = bind(linker, all, "rte_strerror",
                FunctionDescriptor.of(ADDRESS.withTargetLayout(MemoryLayout.sequenceLayout(256, JAVA_BYTE)), JAVA_INT));
            h[i++] = bind(linker, all, "rte_socket_id", FunctionDescriptor.of(JAVA_INT));
            h[i++] = bind(linker, all, "rte_vdev_init", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
            h[i++] = bind(linker, all, "rte_vdev_uninit", FunctionDescriptor.of(JAVA_INT, ADDRESS));
            h[i++] = bind(linker, all, "rte_pktmbuf_pool_create",
                FunctionDescriptor.of(JAVA_LONG, ADDRESS, JAVA_INT, JAVA_INT, JAVA_SHORT, JAVA_SHORT, JAVA_INT));
            h[i++] = bind(linker, all, "rte_mempool_free", FunctionDescriptor.ofVoid(JAVA_LONG));
            h[i++] = bind(linker, all, "rte_mempool_avail_count", FunctionDescriptor.of(JAVA_INT, JAVA_LONG));
            h[i++] = bind(linker, all, "rte_mempool_in_use_count", FunctionDescriptor.of(JAVA_INT, JAVA_LONG));
            h[i++] = bind(linker, all, "rte_pktmbuf_free_bulk", FunctionDescriptor.ofVoid(JAVA_LONG, JAVA_INT),
                critical);
            h[i++] = bind(linker, all, "rte_ring_create",
                FunctionDescriptor.of(JAVA_LONG, ADDRESS, JAVA_INT, JAVA_INT, JAVA_INT));
            h[i++] = bind(linker, all, "rte_ring_free", FunctionDescriptor.ofVoid(JAVA_LONG));
            h[i++] = bind(linker, all, "rte_eth_from_rings",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT));
            h[i++] = bind(linker, all, "rte_eth_dev_count_avail", FunctionDescriptor.of(JAVA_SHORT));
            h[i++] = bind(linker, all, "rte_eth_dev_get_port_by_name",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
            h[i++] = bind(linker, all, "rte_eth_dev_get_name_by_port",
                FunctionDescriptor.of(JAVA_INT, JAVA_SHORT, ADDRESS));
            h[i++] = bind(linker, all, "rte_eth_dev_is_valid_port", FunctionDescriptor.of(JAVA_INT, JAVA_SHORT));
            h[i++] = bind(linker, all, "rte_eth_dev_info_get", FunctionDescriptor.of(JAVA_INT, JAVA_SHORT, ADDRESS));
            h[i++] = bind(linker, all, "rte_eth_dev_configure",
                FunctionDescriptor.of(JAVA_INT, JAVA_SHORT, JAVA_SHORT, JAVA_SHORT, ADDRESS));
            h[i++] = bind(linker, all, "rte_eth_rx_queue_setup",
                FunctionDescriptor.of(JAVA_INT, JAVA_SHORT, JAVA_SHORT, JAVA_SHORT, JAVA_INT, ADDRESS, JAVA_LONG));
            h[i++] = bind(linker, all, "rte_eth_tx_queue_setup",
                FunctionDescriptor.of(JAVA_INT, JAVA_SHORT, JAVA_SHORT, JAVA_SHORT, JAVA_INT, ADDRESS));
            h[i++] = bind(linker, all, "rte_eth_dev_start", FunctionDescriptor.of(JAVA_INT, JAVA_SHORT));
            h[i++] = bind(linker, all, "rte_eth_dev_stop", FunctionDescriptor.of(JAVA_INT, JAVA_SHORT));
            h[i++] = bind(linker, all, "rte_eth_dev_close", FunctionDescriptor.of(JAVA_INT, JAVA_SHORT));
            h[i++] = bind(linker, all, "rte_eth_dev_socket_id", FunctionDescriptor.of(JAVA_INT, JAVA_SHORT));
            h[i++] = bind(linker, all, "rte_eth_stats_get", FunctionDescriptor.of(JAVA_INT, JAVA_SHORT, ADDRESS));
            h[i++] = bind(linker, all, "rte_eth_link_get_nowait",
                FunctionDescriptor.of(JAVA_INT, JAVA_SHORT, ADDRESS));
            h[i++] = bind(linker, all, "rte_eth_macaddr_get", FunctionDescriptor.of(JAVA_INT, JAVA_SHORT, ADDRESS));
            h[i++] = bind(linker, all, "rte_eth_dev_get_mtu", FunctionDescriptor.of(JAVA_INT, JAVA_SHORT, ADDRESS));
            h[i++] = bind(linker, all, "rte_eth_dev_default_mac_addr_set",
                FunctionDescriptor.of(JAVA_INT, JAVA_SHORT, ADDRESS));
            h[i++] = bind(linker, all, "rte_eth_promiscuous_enable", FunctionDescriptor.of(JAVA_INT, JAVA_SHORT));
            h[i++] = bind(linker, all, "rnic_dpdk_rx_burst",
                FunctionDescriptor.of(JAVA_SHORT, JAVA_SHORT, JAVA_SHORT, JAVA_LONG, JAVA_SHORT), critical);
            h[i++] = bind(linker, all, "rnic_dpdk_tx_burst",
                FunctionDescriptor.of(JAVA_SHORT, JAVA_SHORT, JAVA_SHORT, JAVA_LONG, JAVA_SHORT), critical);
            h[i++] = bind(linker, all, "rnic_dpdk_pktmbuf_alloc_bulk",
                FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT), critical);
            h[i++] = bind(linker, all, "rnic_dpdk_errno", FunctionDescriptor.of(JAVA_INT), critical);
            h[i++] = bind(linker, all, "rnic_dpdk_mempool_cache_flush", FunctionDescriptor.ofVoid(JAVA_LONG));
            h[i++] = bind(linker, all, "rnic_dpdk_layout", FunctionDescriptor.of(JAVA_INT, ADDRESS));
            h[i++] = bind(linker, all, "rnic_dpdk_attach_extbuf",
                FunctionDescriptor.ofVoid(JAVA_LONG, JAVA_LONG, JAVA_SHORT, JAVA_LONG), critical);
            h[i++] = bind(linker, all, "rnic_dpdk_extbuf_priv_size", FunctionDescriptor.of(JAVA_INT));
            h[i++] = bind(linker, all, "rte_eth_tx_done_cleanup",
                FunctionDescriptor.of(JAVA_INT, JAVA_SHORT, JAVA_SHORT, JAVA_INT), critical);
            fpOps = all.find("rte_eth_fp_ops").orElseThrow()
                .reinterpret(RTE_ETH_FP_OPS.byteSize() * RTE_MAX_ETHPORTS);
        }
        catch (final RuntimeException | IOException | LinkageError ex)
        {
            unavailable = ex.getMessage();
        }
        UNAVAILABLE = unavailable;
        FP_OPS = fpOps;
        int i = 0;
        RTE_EAL_INIT = h[i++];
        RTE_EAL_CLEANUP = h[i++];
        RTE_EAL_GET_RUNTIME_DIR = h[i++];
        RTE_THREAD_REGISTER = h[i++];
        RTE_THREAD_UNREGISTER = h[i++];
        RTE_STRERROR = h[i++];
        RTE_SOCKET_ID = h[i++];
        RTE_VDEV_INIT = h[i++];
        RTE_VDEV_UNINIT = h[i++];
        RTE_PKTMBUF_POOL_CREATE = h[i++];
        RTE_MEMPOOL_FREE = h[i++];
        RTE_MEMPOOL_AVAIL_COUNT = h[i++];
        RTE_MEMPOOL_IN_USE_COUNT = h[i++];
        RTE_PKTMBUF_FREE_BULK = h[i++];
        RTE_RING_CREATE = h[i++];
        RTE_RING_FREE = h[i++];
        RTE_ETH_FROM_RINGS = h[i++];
        RTE_ETH_DEV_COUNT_AVAIL = h[i++];
        RTE_ETH_DEV_GET_PORT_BY_NAME = h[i++];
        RTE_ETH_DEV_GET_NAME_BY_PORT = h[i++];
        RTE_ETH_DEV_IS_VALID_PORT = h[i++];
        RTE_ETH_DEV_INFO_GET = h[i++];
        RTE_ETH_DEV_CONFIGURE = h[i++];
        RTE_ETH_RX_QUEUE_SETUP = h[i++];
        RTE_ETH_TX_QUEUE_SETUP = h[i++];
        RTE_ETH_DEV_START = h[i++];
        RTE_ETH_DEV_STOP = h[i++];
        RTE_ETH_DEV_CLOSE = h[i++];
        RTE_ETH_DEV_SOCKET_ID = h[i++];
        RTE_ETH_STATS_GET = h[i++];
        RTE_ETH_LINK_GET_NOWAIT = h[i++];
        RTE_ETH_MACADDR_GET = h[i++];
        RTE_ETH_DEV_GET_MTU = h[i++];
        RTE_ETH_DEV_DEFAULT_MAC_ADDR_SET = h[i++];
        RTE_ETH_PROMISCUOUS_ENABLE = h[i++];
        RNIC_DPDK_RX_BURST = h[i++];
        RNIC_DPDK_TX_BURST = h[i++];
        RNIC_DPDK_PKTMBUF_ALLOC_BULK = h[i++];
        RNIC_DPDK_ERRNO = h[i++];
        RNIC_DPDK_MEMPOOL_CACHE_FLUSH = h[i++];
        RNIC_DPDK_LAYOUT = h[i++];
        RNIC_DPDK_ATTACH_EXTBUF = h[i++];
        RNIC_DPDK_EXTBUF_PRIV_SIZE = h[i++];
        RTE_ETH_TX_DONE_CLEANUP = h[i++];
    }

    private DpdkBindings()
    {
    }

    /** Why DPDK cannot be used in this process, or null when it can. */
    public static String unavailableReason()
    {
        return UNAVAILABLE;
    }

    /** @throws DpdkException naming what is missing and the fallback. */
    public static void requireAvailable()
    {
        if (UNAVAILABLE != null)
        {
            throw new DpdkException("DPDK is not usable here: " + UNAVAILABLE + ". Install it with `apt-get " +
                "install dpdk libdpdk-dev pkg-config` and rebuild (the shim is compiled by the Maven build), or use " +
                "the AF_PACKET port (--port afpacket)");
        }
    }

    /** {@code rte_eth_fp_ops}, the exported per-port fast-path table ({@link #RTE_ETH_FP_OPS} × 32). */
    public static MemorySegment fpOps()
    {
        return FP_OPS;
    }

    private static SymbolLookup library(final String name, final Arena arena)
    {
        try
        {
            return SymbolLookup.libraryLookup(name, arena);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new IllegalStateException(name + " (DPDK 22.11) not found", ex);
        }
    }

    private static MethodHandle bind(
        final Linker linker, final SymbolLookup lookup, final String name, final FunctionDescriptor descriptor,
        final Linker.Option... options)
    {
        final MemorySegment symbol = lookup.find(name)
            .orElseThrow(() -> new IllegalStateException("symbol " + name + " not found in DPDK " + ABI));
        return linker.downcallHandle(symbol, descriptor, options);
    }

    /** The shim travels inside the jar; dlopen needs a file. */
    private static Path extractShim() throws IOException
    {
        try (InputStream in = DpdkBindings.class.getResourceAsStream(SHIM_RESOURCE))
        {
            if (in == null)
            {
                throw new IllegalStateException("the DPDK shim " + SHIM_RESOURCE + " is not in this build (DPDK's " +
                    "development files were missing when it was built)");
            }
            final Path file = Files.createTempFile("librnic_dpdk_shim", ".so");
            file.toFile().deleteOnExit();
            Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
            return file;
        }
    }

    /** A downcall failed inside the JVM (not in DPDK): a bug, never an expected condition. */
    private static IllegalStateException downcallFailed(final String name, final Throwable ex)
    {
        return new IllegalStateException(name + " downcall", ex);
    }

    // ---- EAL ---------------------------------------------------------------------------------------------------

    public static int rte_eal_init(final int argc, final MemorySegment argv)
    {
        try
        {
            return (int)RTE_EAL_INIT.invokeExact(argc, argv);
        }
        catch (final Throwable ex)
        {
            throw downcallFailed("rte_eal_init", ex);
        }
    }

    public static int rte_eal_cleanup()
    {
        try
        {
            return (int)RTE_EAL_CLEANUP.invokeExact();
        }
        catch (final Throwable ex)
        {
            throw downcallFailed("rte_eal_cleanup", ex);
        }
    }

    /** The directory EAL keeps its run-time files in, {@code /var/run/dpdk/<file-prefix>} as root. */
    public static String rte_eal_get_runtime_dir()
    {
        try
        {
            return ((MemorySegment)RTE_EAL_GET_RUNTIME_DIR.invokeExact()).getString(0);
        }
        catch (final Throwable ex)
        {
            throw downcallFailed("rte_eal_get_runtime_dir", ex);
        }
    }

    public static int rte_thread_register()
    {
        try
        {
            return (int)RTE_THREAD_REGISTER.invokeExact();
        }
        catch (final Throwable ex)
        {
            throw downcallFailed("rte_thread_register", ex);
        }
    }

    public static void rte_thread_unregister()
    {
        try
        {
            RTE_THREAD_UNREGISTER.invokeExact();
        }
        catch (final Throwable ex)
        {
            throw downcallFailed("rte_thread_unregister", ex);
        }
    }

    public static String rte_strerror(final int errnum)
    {
        try
        {
            return ((MemorySegment)RTE_STRERROR.invokeExact(errnum)).getString(0);
        }
        catch (final Throwable ex)
        {
            throw downcallFailed("rte_strerror", ex);
        }
    }

    public static int rte_socket_id()
    {
        try
        {
            return (int)RTE_SOCKET_ID.invokeExact();
        }
        catch (final Throwable ex)
        {
            throw downcallFailed("rte_socket_id", ex);
        }
    }

    /** rte_errno of the calling thread (a per-lcore variable, hence the shim). */
    public static int rte_errno()
    {
        try
        {
            return (int)RNIC_DPDK_ERRNO.invokeExact();
        }
        catch (final Throwable ex)
        {
            throw downcallFailed("rnic_dpdk_errno", ex);
        }
    }

    /** Empties the calling thread's lcore cache of the pool back into the pool (the shim). */
    public static void rte_mempool_cache_flush(final long mempool)
    {
        try
        {
            RNIC_DPDK_MEMPOOL_CACHE_FLUSH.invokeExact(mempool);
        }
        catch (final Throwable ex)
        {
            throw downcallFailed("rnic_dpdk_mempool_cache_flush", ex);
        }
    }

    public static int rte_vdev_init(final MemorySegment name, final MemorySegment args)
    {
        try
        {
            return (int)RTE_VDEV_INIT.invokeExact(name, args);
        }
        catch (final Throwable ex)
        {
            throw downcallFailed("rte_vdev_init", ex);
        }
    }

    public static int rte_vdev_uninit(final MemorySegment name)
    {
        try
        {
            return (int)RTE_VDEV_UNINIT.invokeExact(name);
        }
        catch (final Throwable ex)
        {
            throw downcallFailed("rte_vdev_uninit", ex);
        }
    }

    /** Fills {@code out} (24 longs) with the installed DPDK's sizes and offsets; returns how many. */
    public static int rnic_dpdk_layout(final MemorySegment out)
    {
        try
        {
            return (int)RNIC_DPDK_LAYOUT.invokeExact(out);
        }
        catch (final Throwable ex)
        {
            throw downcallFailed("rnic_dpdk_layout", ex);
        }
    }

    // ---- mempool, mbuf, ring -----------------------------------------------------------------------------------

    /** @return the {@code struct rte_mempool *}, or 0 with rte_errno set. */
    public static long rte_pktmbuf_pool_create(
        final MemorySegment name, final int n, final int cacheSize, final short privSize, final short dataRoomSize,
        final int socketId)
    {
        try
        {
            return (long)RTE_PKTMBUF_POOL_CREATE.invokeExact(name, n, cacheSize, privSize, dataRoomSize, socketId);
        }
        catch (final Throwable ex)
        {
            throw downcallFailed("rte_pktmbuf_pool_create", ex);
        }
    }

    public static void rte_mempool_free(final long mempool)
    {
        try
        {
            RTE_MEMPOOL_FREE.invokeExact(mempool);
        }
        catch (final Throwable ex)
        {
            throw downcallFailed("rte_mempool_free", ex);
        }
    }

    public static int rte_mempool_avail_count(final long mempool)
    {
        try
        {
            return (int)RTE_MEMPOOL_AVAIL_COUNT.invokeExact(mempool);
        }
        catch (final Throwable ex)
        {
            throw downcallFailed("rte_mempool_avail_count", ex);
        }
    }

    public static int rte_mempool_in_use_count(final long mempool)
    {
        try
        {
            return (int)RTE_MEMPOOL_IN_USE_COUNT.invokeExact(mempool);
        }
        catch (final Throwable ex)
        {
            throw downcallFailed("rte_mempool_in_use_count", ex);
        }
    }

    /** @param mbufs address of an array of {@code count} mbuf pointers. */
    public static void rte_pktmbuf_free_bulk(final long mbufs, final int count)
    {
        try
        {
            RTE_PKTMBUF_FREE_BULK.invokeExact(mbufs, count);
        }
        catch (final Throwable ex)
        {
            throw downcallFailed("rte_pktmbuf_free_bulk", ex);
        }
    }

    /** @return 0, or negative (nothing allocated) when the pool has fewer than {@code count} free mbufs. */
    public static int rte_pktmbuf_alloc_bulk(final long mempool, final long mbufs, final int count)
    {
        try
        {
            return (int)RNIC_DPDK_PKTMBUF_ALLOC_BULK.invokeExact(mempool, mbufs, count);
        }
        catch (final Throwable ex)
        {
            throw downcallFailed("rnic_dpdk_pktmbuf_alloc_bulk", ex);
        }
    }

    /** @return the {@code struct rte_ring *}, or 0 with rte_errno set. */
    public static long rte_ring_create(final MemorySegment name, final int count, final int socketId, final int flags)
    {
        try
        {
            return (long)RTE_RING_CREATE.invokeExact(name, count, socketId, flags);
        }
        catch (final Throwable ex)
        {
            throw downcallFailed("rte_ring_create", ex);
        }
    }

    public static void rte_ring_free(final long ring)
    {
        try
        {
            RTE_RING_FREE.invokeExact(ring);
        }
        catch (final Throwable ex)
        {
            throw downcallFailed("rte_ring_free", ex);
        }
    }

    /** net_ring: a port over existing rings. @return the port id, or -1 with rte_errno set. */
    public static int rte_eth_from_rings(
        final MemorySegment name, final MemorySegment rxRings, final int rxCount, final MemorySegment txRings,
        final int txCount, final int numaNode)
    {
        try
        {
            return (int)RTE_ETH_FROM_RINGS.invokeExact(name, rxRings, rxCount, txRings, txCount, numaNode);
        }
        catch (final Throwable ex)
        {
            throw downcallFailed("rte_eth_from_rings", ex);
        }
    }

    // ---- ethdev ------------------------------------------------------------------------------------------------

    public static short rte_eth_dev_count_avail()
    {
        try
        {
            return (short)RTE_ETH_DEV_COUNT_AVAIL.invokeExact();
        }
        catch (final Throwable ex)
        {
            throw downcallFailed("rte_eth_dev_count_avail", ex);
        }
    }

    public static int rte_eth_dev_get_port_by_name(final MemorySegment name, final MemorySegment portId)
    {
        try
        {
            return (int)RTE_ETH_DEV_GET_PORT_BY_NAME.invokeExact(name, portId);
        }
        catch (final Throwable ex)
        {
            throw downcallFailed("rte_eth_dev_get_port_by_name", ex);
        }
    }

    public static int rte_eth_dev_get_name_by_port(final short portId, final MemorySegment name)
    {
        try
        {
            return (int)RTE_ETH_DEV_GET_NAME_BY_PORT.invokeExact(portId, name);
        }
        catch (final Throwable ex)
        {
            throw downcallFailed("rte_eth_dev_get_name_by_port", ex);
        }
    }

    /** 1 when the port id names a port, 0 otherwise (without DPDK's error log). */
    public static int rte_eth_dev_is_valid_port(final short portId)
    {
        try
        {
            return (int)RTE_ETH_DEV_IS_VALID_PORT.invokeExact(portId);
        }
        catch (final Throwable ex)
        {
            throw downcallFailed("rte_eth_dev_is_valid_port", ex);
        }
    }

    public static int rte_eth_dev_info_get(final short portId, final MemorySegment info)
    {
        try
        {
            return (int)RTE_ETH_DEV_INFO_GET.invokeExact(portId, info);
        }
        catch (final Throwable ex)
        {
            throw downcallFailed("rte_eth_dev_info_get", ex);
        }
    }

    public static int rte_eth_dev_configure(
        final short portId, final short rxQueues, final short txQueues, final MemorySegment conf)
    {
        try
        {
            return (int)RTE_ETH_DEV_CONFIGURE.invokeExact(portId, rxQueues, txQueues, conf);
        }
        catch (final Throwable ex)
        {
            throw downcallFailed("rte_eth_dev_configure", ex);
        }
    }

    public static int rte_eth_rx_queue_setup(
        final short portId, final short queue, final short descriptors, final int socketId,
        final MemorySegment rxConf, final long mempool)
    {
        try
        {
            return (int)RTE_ETH_RX_QUEUE_SETUP.invokeExact(portId, queue, descriptors, socketId, rxConf, mempool);
        }
        catch (final Throwable ex)
        {
            throw downcallFailed("rte_eth_rx_queue_setup", ex);
        }
    }

    public static int rte_eth_tx_queue_setup(
        final short portId, final short queue, final short descriptors, final int socketId,
        final MemorySegment txConf)
    {
        try
        {
            return (int)RTE_ETH_TX_QUEUE_SETUP.invokeExact(portId, queue, descriptors, socketId, txConf);
        }
        catch (final Throwable ex)
        {
            throw downcallFailed("rte_eth_tx_queue_setup", ex);
        }
    }

    public static int rte_eth_dev_start(final short portId)
    {
        try
        {
            return (int)RTE_ETH_DEV_START.invokeExact(portId);
        }
        catch (final Throwable ex)
        {
            throw downcallFailed("rte_eth_dev_start", ex);
        }
    }

    public static int rte_eth_dev_stop(final short portId)
    {
        try
        {
            return (int)RTE_ETH_DEV_STOP.invokeExact(portId);
        }
        catch (final Throwable ex)
        {
            throw downcallFailed("rte_eth_dev_stop", ex);
        }
    }

    public static int rte_eth_dev_close(final short portId)
    {
        try
        {
            return (int)RTE_ETH_DEV_CLOSE.invokeExact(portId);
        }
        catch (final Throwable ex)
        {
            throw downcallFailed("rte_eth_dev_close", ex);
        }
    }

    public static int rte_eth_dev_socket_id(final short portId)
    {
        try
        {
            return (int)RTE_ETH_DEV_SOCKET_ID.invokeExact(portId);
        }
        catch (final Throwable ex)
        {
            throw downcallFailed("rte_eth_dev_socket_id", ex);
        }
    }

    public static int rte_eth_stats_get(final short portId, final MemorySegment stats)
    {
        try
        {
            return (int)RTE_ETH_STATS_GET.invokeExact(portId, stats);
        }
        catch (final Throwable ex)
        {
            throw downcallFailed("rte_eth_stats_get", ex);
        }
    }

    public static int rte_eth_link_get_nowait(final short portId, final MemorySegment link)
    {
        try
        {
            return (int)RTE_ETH_LINK_GET_NOWAIT.invokeExact(portId, link);
        }
        catch (final Throwable ex)
        {
            throw downcallFailed("rte_eth_link_get_nowait", ex);
        }
    }

    public static int rte_eth_macaddr_get(final short portId, final MemorySegment address)
    {
        try
        {
            return (int)RTE_ETH_MACADDR_GET.invokeExact(portId, address);
        }
        catch (final Throwable ex)
        {
            throw downcallFailed("rte_eth_macaddr_get", ex);
        }
    }

    public static int rte_eth_dev_get_mtu(final short portId, final MemorySegment mtu)
    {
        try
        {
            return (int)RTE_ETH_DEV_GET_MTU.invokeExact(portId, mtu);
        }
        catch (final Throwable ex)
        {
            throw downcallFailed("rte_eth_dev_get_mtu", ex);
        }
    }

    public static int rte_eth_dev_default_mac_addr_set(final short portId, final MemorySegment address)
    {
        try
        {
            return (int)RTE_ETH_DEV_DEFAULT_MAC_ADDR_SET.invokeExact(portId, address);
        }
        catch (final Throwable ex)
        {
            throw downcallFailed("rte_eth_dev_default_mac_addr_set", ex);
        }
    }

    public static int rte_eth_promiscuous_enable(final short portId)
    {
        try
        {
            return (int)RTE_ETH_PROMISCUOUS_ENABLE.invokeExact(portId);
        }
        catch (final Throwable ex)
        {
            throw downcallFailed("rte_eth_promiscuous_enable", ex);
        }
    }

    // ---- fast path (the shim) ----------------------------------------------------------------------------------

    /** {@code rte_eth_rx_burst}: mbuf pointers into the array at {@code mbufs}; returns how many (unsigned). */
    public static short rnic_dpdk_rx_burst(final short portId, final short queue, final long mbufs, final short count)
    {
        try
        {
            return (short)RNIC_DPDK_RX_BURST.invokeExact(portId, queue, mbufs, count);
        }
        catch (final Throwable ex)
        {
            throw downcallFailed("rnic_dpdk_rx_burst", ex);
        }
    }

    /** {@code rte_eth_tx_burst}: returns how many of the array's mbufs the device took (unsigned). */
    public static short rnic_dpdk_tx_burst(final short portId, final short queue, final long mbufs, final short count)
    {
        try
        {
            return (short)RNIC_DPDK_TX_BURST.invokeExact(portId, queue, mbufs, count);
        }
        catch (final Throwable ex)
        {
            throw downcallFailed("rnic_dpdk_tx_burst", ex);
        }
    }

    /**
     * Attaches {@code length} bytes of native memory at {@code address} to {@code mbuf} (of a pool made for
     * attaching: {@link #rnic_dpdk_extbuf_priv_size}) as its external buffer and whole data; freeing the mbuf later
     * adds 1 to the 64-bit counter at {@code released} and frees nothing else.
     */
    public static void rnic_dpdk_attach_extbuf(final long mbuf, final long address, final short length,
        final long released)
    {
        try
        {
            RNIC_DPDK_ATTACH_EXTBUF.invokeExact(mbuf, address, length, released);
        }
        catch (final Throwable ex)
        {
            throw downcallFailed("rnic_dpdk_attach_extbuf", ex);
        }
    }

    /** The private area of an attaching pool's mbufs (where each attachment's shared info lives). */
    public static int rnic_dpdk_extbuf_priv_size()
    {
        try
        {
            return (int)RNIC_DPDK_EXTBUF_PRIV_SIZE.invokeExact();
        }
        catch (final Throwable ex)
        {
            throw downcallFailed("rnic_dpdk_extbuf_priv_size", ex);
        }
    }

    /**
     * Asks the driver to free the mbufs of a transmit queue whose sending has completed (up to {@code count}, 0 for
     * all): a NIC otherwise frees them only when its ring needs the room. The queue's polling thread only. Returns
     * how many were freed, or a negative errno ({@code -ENOTSUP} when the driver has no such operation).
     */
    public static int rte_eth_tx_done_cleanup(final short portId, final short queue, final int count)
    {
        try
        {
            return (int)RTE_ETH_TX_DONE_CLEANUP.invokeExact(portId, queue, count);
        }
        catch (final Throwable ex)
        {
            throw downcallFailed("rte_eth_tx_done_cleanup", ex);
        }
    }
}
