package io.rnic.tools.options;

import io.rnic.datapath.agent.IdleStrategies;
import io.rnic.datapath.driver.ClientQuotas;
import io.rnic.tools.Arguments;
import io.rnic.tools.InterfaceState;
import io.rnic.tools.QpLayout;
import io.rnic.tools.ToolKind;
import io.rnic.transport.LocalPort;
import io.rnic.verbs.MemoryRegionTable;
import io.rnic.verbs.ScatterGatherList;

import java.util.List;
import java.util.function.Consumer;

import static io.rnic.tools.options.Scope.ATOMIC;
import static io.rnic.tools.options.Scope.BANDWIDTH;
import static io.rnic.tools.options.Scope.LATENCY;
import static io.rnic.tools.options.Scope.PERFTEST;
import static io.rnic.tools.options.Scope.PINGPONG;
import static io.rnic.tools.options.Scope.SIZED;
import static io.rnic.tools.options.Scope.TOOLS;
import static io.rnic.tools.options.Scope.of;
import static io.rnic.tools.options.Scope.tools;

/**
 * Every option of {@code bin/rnic}'s commands, declared once: its spellings (the first is the one the synopsis
 * shows; perftest's and rdma-core's letters where they have one), what its value is and its range, its default, its
 * help, and the commands it applies to. {@link CommandLine} parses every command's arguments from this table and
 * {@link OptionHelp} writes every command's synopsis and help from it, so that an option takes the same range and
 * is refused in the same words everywhere. The order is the synopsis' order.
 */
public enum CliOption
{
    // the device and the port
    INTERFACE(text("IFACE", "-d", "--ib-dev", "--iface")
        .in(TOOLS.or(of("driver", "stat", "devinfo", "mw-peer", "dpdk-pingpong")))
        .requiredIn(of("driver", "dpdk-pingpong"))
        .help("the interface (eth0) or the device on it by its name rnic_eth0 (devinfo's hca_id), as perftest's -d " +
            "names a device; with --port dpdk a DPDK device, a --vdev of --eal (net_memif0). A tool without it " +
            "takes the first interface up; stat and devinfo read the driver serving it (/dev/shm/rnic-IFACE). One " +
            "up without a carrier (just brought up) is waited for " + InterfaceState.GRACE_MS_DEFAULT + " ms, then " +
            "refused (RNIC_JAVA_OPTS=-D" + InterfaceState.GRACE_MS_PROP_NAME + "=MS for another grace). Without " +
            "--driver, an interface a driver holds is refused (its lock names --driver)")),
    RPING_INTERFACE(text("IFACE", "--iface", "--ib-dev").in(of("rping"))
        .help("the interface (default: the one of the default route), or its device's name rnic_IFACE (devinfo's " +
            "hca_id); not -d, which is rping's debug flag")),
    DRIVER(directory("DIR", "--driver").in(TOOLS.or(of("rping", "mw-peer"))).alternativeTo(INTERFACE, RPING_INTERFACE)
        .help("run as a client of the rnic driver serving DIR (bin/rnic driver -d IFACE, by default " +
            "/dev/shm/rnic-IFACE) instead of starting an engine on the port: QPs, memory and CQs are the driver's, " +
            "shared with its other clients, the test runs on one thread of the tool's own (--idle, backoff by " +
            "default; --cpu pins it) and rping connects through the driver's RDMA CM. The port is the driver's " +
            "business: -d, --iface, --port, --eal, --ip, --engines, --qdisc-bypass, --pcap, --cc, --cc-param, " +
            "--vlan, --cnp-dscp and --cnp-prio are refused with it (give the port's to bin/rnic driver)")),
    DIR(directory("DIR", "--dir").in(of("driver", "stat", "devinfo")).alternativeTo(INTERFACE)
        .help("the driver's directory (CnC file and lock); the driver's default is /dev/shm/rnic-IFACE, stat's and " +
            "devinfo's the only /dev/shm/rnic-* holding a cnc.dat")),
    IB_PORT(text("1", "-i", "--ib-port").in(TOOLS.or(of("devinfo")))
        .help("the device's port, as perftest's, rdma-core's and ibv_devinfo's -i: it has one, 1")),
    SIZE(size("SIZE", 1, largestMessageBytes(), "-s", "--size").in(TOOLS).byDefault("65536 bandwidth, 2 latency " +
        "(8 atomic), 4096 pingpong (2048 UD)")
        .help("the message size (a QP's two buffers share one region)")),
    ITERS(number("ITERS", 1, 1L << 40, "-n", "--iters").in(TOOLS.or(of("dpdk-pingpong")))
        .byDefault("5000 bandwidth, 1000 latency and pingpong, 100000 dpdk-pingpong")
        .help("measured iterations (both sides alike)")),
    MTU(choice("MTU", List.of("256", "512", "1024", "2048", "4096"), "-m", "--mtu").in(TOOLS.or(of("simulate")))
        .help("the IB path MTU in bytes (default: the tools the largest the interface carries, as rxe's " +
            "active_mtu; simulate 1024)")),
    /** perftest's {@code -x} and rdma-core's {@code -g}: every tool has always taken both. */
    GID_INDEX(number("GID_INDEX", 0, 15, "-x", "--gid-index", "-g", "--gid-idx").in(TOOLS.or(of("mw-peer")))
        .help("our source GID, as perftest's -x and rdma-core's -g: 0 the fe80:: EUI-64 GID, then the IPv4 " +
            "addresses, then the other IPv6 (devinfo -v lists them; default: the first IPv4 GID, else the first; " +
            "mw-peer 1)")),
    PORT(number("PORT", 1, 65535, "-p").in(TOOLS.or(of("rping", "mw-peer")))
        .help("where the peers meet: the TCP exchange's port (the tools, default " + ToolDefaults.PERFTEST_TCP_PORT +
            "; mw-peer " + ToolDefaults.MW_PEER_PORT + "; --port N too), the RDMA CM's with -R and for rping (default " +
            ToolDefaults.RPING_PORT + ")")),
    QPS(number("QPS", 1, 256, "-q", "--qp").in(PERFTEST.or(of("srq-pingpong")))
        .help("QPs (default 1; srq-pingpong 16)")),
    RDMA_CM(flag("-R", "--rdma-cm").in(PERFTEST)
        .help("perftest's -R: no TCP; the exchange runs over a QP the RDMA CM connects to port -p, and each test " +
            "QP (-q N, as perftest's: give both sides the same) over a CM connection of its own to that port. A " +
            "refused connection says \"rejected: reason N (NAME)\" (IB_CM_REJ_*). With --driver, the driver's " +
            "RDMA CM: a server's -p port is this client's while it listens")),
    WARMUP(number("N", 0, 1L << 40, "--warmup").in(TOOLS.or(of("dpdk-pingpong")))
        .help("iterations before the measurement, at every size (default 5000, latency tools 1000, but no more " +
            "than 64 MiB of messages: -s 1M warms up with 64; a multiple of -l; none against perftest; " +
            "dpdk-pingpong 20000)")),
    QP_TIMEOUT(number("QP_TIMEOUT", 0, 31, "-u", "--qp-timeout").in(TOOLS).byDefault("14 (67 ms), perftest's")
        .help("the local ACK timeout, 4.096 us x 2^N")),
    TX_DEPTH(number("TX_DEPTH", 1, 8192, "-t", "--tx-depth").in(PERFTEST).byDefault("128; latency tools 1")
        .help("send work requests in flight")),
    ATOMIC_TYPE(choice("CMP_AND_SWAP|FETCH_AND_ADD", List.of("CMP_AND_SWAP", "FETCH_AND_ADD"), "-A", "--atomic_type",
        "--atomic-type").in(ATOMIC).byDefault("FETCH_AND_ADD").help("the atomic operation")),
    RX_DEPTH(number("RX_DEPTH", 1, 8192, "-r", "--rx-depth").in(TOOLS)
        .byDefault("512 bandwidth, 64 latency, 500 pingpong").help("receives posted (the SEND tools)")),
    IMM(flag("--imm").in(tools(kind -> kind.operation() == ToolKind.Operation.SEND).except("srq-pingpong"))
        .help("SEND_WITH_IMM instead of SEND: the immediate carries the message number (checked with --verify)")),
    VERIFY(flag("--verify").in(TOOLS.except("srq-pingpong"))
        .help("check every byte of every message")),
    PCAP(file("FILE", "--pcap").in(TOOLS.or(of("rping", "mw-peer")))
        .help("write every frame the port sends and receives to FILE")),
    HLOG(file("FILE", "--hlog").in(TOOLS).help("write the latencies' HdrHistogram log to FILE")),
    /**
     * The CPUs a thread can be pinned to: {@code ThreadAffinity}'s mask for sched_setaffinity is glibc's
     * {@code cpu_set_t}, 128 bytes (CPU_SETSIZE 1024). The driver's 0..4095 was beyond it.
     */
    CPU(number("N", 0, 1023, "--cpu").in(TOOLS.or(of("driver", "dpdk-pingpong")))
        .help("pin the engine thread (with --driver, the tool's thread; dpdk-pingpong's polling thread) to CPU N, " +
            "one this process may run on: else refused at once, exit 2")),
    ENGINES(number("N", 1, 64, "--engines").in(TOOLS).byDefault("1")
        .help("engine threads (port queues); QPs are sharded over them, --cpu N pins them to N, N+1, ...")),
    QDISC_BYPASS(flag("--qdisc-bypass").in(TOOLS)
        .help("AF_PACKET's PACKET_QDISC_BYPASS: faster; tc qdiscs and tcpdump on the interface no longer see our " +
            "frames")),
    IDLE(text(IdleStrategies.NAMES.replace(", ", "|"), "--idle").in(TOOLS.or(of("driver", "rping")))
        .check(IdleStrategies::parse)
        .help("the idle strategy of the engine thread (spin by default) or of a driver's client (backoff)")),
    TIMEOUT_MS(number("MS", 1, 86_400_000, "--timeout-ms").in(TOOLS.or(of("rping", "mw-peer", "dpdk-pingpong")))
        .byDefault("60000; mw-peer 20000")
        .help("the time limit once connected: a tool's run that has not finished by then fails with its counters " +
            "(waiting for the peer's end, a side waits on while the peer's packets arrive); each of mw-peer's " +
            "completions; how long rping -P waits for its next client")),
    ACCEPT_TIMEOUT_MS(number("MS", 1, 86_400_000, "--accept-timeout-ms").in(TOOLS).helpOnly()
        .help("a server gives up when no client has connected within MS; without it a server waits for its client " +
            "as long as it takes, as perftest's does")),
    CLIENT_TIMEOUT_MS(number("N", 100, 3_600_000, "--client-timeout-ms").in(of("driver")).byDefault("10000")
        .help("a client without a keepalive for N ms is timed out and its QPs, CQs and regions destroyed; clients " +
            "also declare the driver gone after N ms without its heartbeat")),
    PORT_KIND(text("afpacket|dpdk", "--port").in(TOOLS.or(of("driver", "rping"))).byDefault("afpacket")
        .help("the packet port: AF_PACKET on a kernel interface, or DPDK (rping: afpacket); the tools' --port N " +
            "is perftest's, the TCP port (-p N)")),
    EAL(text("\"EAL ARGS\"", "--eal").in(TOOLS.or(of("driver", "dpdk-pingpong"))).requiredIn(of("dpdk-pingpong"))
        .help("DPDK: EAL's arguments, as one string (default --no-huge -m 512 --no-shconf --no-pci). EAL's start-up " +
            "output shows only its warnings and errors (all of it with RNIC_DEBUG set); a failure is one line")),
    PORT_MTU(number("BYTES", 576, 9600, "--port-mtu").in(TOOLS.or(of("driver")))
        .help("DPDK: the device's Ethernet MTU (default 4200, so path MTU 4096, where the device carries it: a " +
            "memif needs bsize=8192 in its --vdev, at both ends; else the device's own)")),
    IP(text("ADDR/PREFIX", "--ip").in(TOOLS.or(of("driver"))).repeatable()
        .help("DPDK: an address of the port (IPv4 or IPv6, the prefix optional), repeatable")),
    OOB(text("HOST[:PORT]", "--oob").in(TOOLS)
        .help("where the TCP exchange runs: the client connects there, the server listens there. A --port dpdk " +
            "client needs it: the kernel owns none of the port's addresses (--oob 127.0.0.1 when both ends run on " +
            "this machine)")),
    CC(choice("dcqcn|none", List.of("dcqcn", "none"), "--cc").in(TOOLS).byDefault("none")
        .help("congestion control: DCQCN with ConnectX's parameters, or none")),
    CC_PARAM(text("NAME=VALUE", "--cc-param").in(TOOLS.or(of("cc-sim"))).repeatable()
        .help("one DCQCN parameter changed (with --cc dcqcn; cc-sim: over --params)")),
    VLAN(number("ID", 0, LocalPort.MAX_VLAN_ID, "--vlan").in(TOOLS.or(of("driver", "rping")))
        .help("tag every frame with 802.1Q VLAN ID, PCP = the QP's service level (-S; rping's 0); with -d a kernel " +
            "VLAN device (veth0.10) the port finds its id and tags on its parent without it")),
    CNP_DSCP(number("DSCP", 0, 63, "--cnp-dscp").in(TOOLS.or(of("driver")))
        .byDefault(LocalPort.CNP_DSCP_DEFAULT + ", ConnectX's").help("the DSCP of the CNPs this endpoint sends")),
    CNP_PRIO(number("PRIO", 0, 7, "--cnp-prio").in(TOOLS.or(of("driver")))
        .byDefault(LocalPort.CNP_PRIORITY_DEFAULT + ", ConnectX's").help("their 802.1Q priority on a tagged port")),

    // output and measurement, as perftest's
    REPORT_GBITS(flag("--report_gbits", "--report-gbits").in(PERFTEST)
        .help("bandwidth in Gb/sec instead of MB/sec (2^20 bytes), as perftest's")),
    OUT_JSON(flag("--out_json", "--out-json").in(PERFTEST)
        .help("also write perftest's JSON report to " + ToolDefaults.PERFTEST_OUT_JSON + " (working directory)")),
    OUT_JSON_FILE(file("PATH", "--out_json_file", "--out-json-file").in(PERFTEST)
        .help("... to PATH instead")),
    REPORT_UNSORTED(flag("-U", "--report-unsorted").in(LATENCY)
        .help("print every sample (in order, then sorted), as perftest's -U")),
    DURATION(number("SECONDS", 1, 86_400, "-D", "--duration").in(PERFTEST)
        .help("run for a time: perftest's warm-up, measurement and cool-down (a quarter each side, whole seconds); " +
            "iterations count in the measurement only")),
    RUN_INFINITELY(flag("--run_infinitely", "--run-infinitely").in(BANDWIDTH)
        .help("a line every -D seconds (" + ToolDefaults.RUN_INFINITELY_PERIOD_S + ") until SIGINT or " +
            "SIGTERM")),
    ALL_SIZES(flag("-a", "--all").in(SIZED)
        .help("every size from 2 B to 8 MiB, one line each (RC and UC; not -c UD)")),
    SGE(number("N", 1, ScatterGatherList.MAX_SGE, "--sge").in(TOOLS).helpOnly().byDefault("1")
        .help("each message over N scatter/gather entries, contiguous")),
    DEBUG(flag("--debug").in(TOOLS).helpOnly()
        .help("when a run fails, also each QP's transport state (PSNs, timers, queues) and the port's receive ring " +
            "(frames waiting, the engine's next slot)")),

    // perftest's letters (perftest 4.5's perftest_parameters.c)
    CONNECTION(text("TYPE", "-c", "--connection").in(PERFTEST).helpOnly()
        .help("RC (default), UC (WRITE and SEND) or UD (SEND), the same on both sides")),
    INLINE_SIZE(number("N", 0, ToolDefaults.PERFTEST_MAX_INLINE, "-I", "--inline_size")
        .in(PERFTEST.and(tools(kind -> kind.operation() == ToolKind.Operation.WRITE ||
            kind.operation() == ToolKind.Operation.SEND))).helpOnly()
        .help("accepted and without effect: inline saves a NIC's DMA read of the payload; a software engine reads " +
            "it from memory either way (README)")),
    TCLASS(number("TC", 0, 255, "--tclass").in(PERFTEST).helpOnly()
        .help("GRH traffic class; its upper six bits are the DSCP of every packet")),
    TOS(number("TOS", 0, 255, "-T", "--tos").in(PERFTEST).helpOnly()
        .help("the RDMA CM's type of service, with -R: the DSCP of the test QP (the exchange's QP is connected " +
            "without it, as perftest's)")),
    SERVICE_LEVEL(number("SL", 0, 7, "-S", "--sl").in(PERFTEST).helpOnly()
        .help("service level in the address vector: the 802.1Q PCP of every frame on a tagged port (--vlan, or -d a " +
            "kernel VLAN device), else not on the wire")),
    CPU_FREQ(flag("-F", "--CPU-freq").in(PERFTEST).helpOnly().help("accepted (no cpufreq warning is printed)")),
    EVENTS(flag("-e", "--events")
        .in(PINGPONG.or(PERFTEST.and(tools(kind -> kind.operation() != ToolKind.Operation.WRITE))))
        .helpOnly().help("wait for completion events (the CQ's notification) instead of polling each cycle")),
    POST_LIST(number("N", 1, 8192, "-l", "--post_list").in(BANDWIDTH).helpOnly()
        .help("post N send WRs together (default 1); -Q defaults to N")),
    CQ_MOD(number("N", 1, ToolDefaults.PERFTEST_MAX_CQ_MOD, "-Q", "--cq-mod").in(BANDWIDTH).helpOnly()
        .byDefault("half of -t, at most 64")
        .help("signal one send in N")),
    LIMIT_BW(decimal("MBPS", 0, Double.MAX_VALUE, "-w", "--limit_bw").in(BANDWIDTH).helpOnly()
        .help("fail when the average bandwidth is below MBPS MB/sec")),
    RATE_LIMIT(decimal("R", 0, Double.MAX_VALUE, "--rate_limit").in(BANDWIDTH.and(ATOMIC.negate())).helpOnly()
        .help("software rate limiter, R above 0 in --rate_units")),
    RATE_UNITS(choice("g|M|p", List.of("g", "M", "p"), "--rate_units").in(BANDWIDTH.and(ATOMIC.negate())).helpOnly()
        .byDefault("g").help("--rate_limit in Gb/s, MB/sec or messages/s")),
    RATE_LIMIT_TYPE(choice("SW|HW|PP", List.of("SW", "HW", "PP"), "--rate_limit_type")
        .in(BANDWIDTH.and(ATOMIC.negate())).helpOnly().byDefault("SW")
        .help("the rate limiter: SW, the only one a software RNIC has")),
    BIDIRECTIONAL(flag("-b", "--bidirectional")
        .in(BANDWIDTH.and(tools(kind -> kind.operation() != ToolKind.Operation.SEND))).helpOnly()
        .help("both sides run the test; each prints its own figure and the sum (a SEND test's: not yet, run a " +
            "second pair the other way)")),

    // rdma-core's pingpongs' letters (libibverbs/examples/*_pingpong.c)
    CHK(flag("-c", "--chk").in(PINGPONG.except("srq-pingpong")).helpOnly()
        .help("check the data received (as --verify)")),
    PINGPONG_SERVICE_LEVEL(number("SL", 0, 7, "-l", "--sl").in(PINGPONG).helpOnly()
        .help("service level in the address vector; no VLAN is written, so not on the wire")),
    ODP(flag("-o", "--odp").in(PINGPONG).helpOnly()
        .help("accepted: the engine's regions are always resident, as an ODP region once faulted")),
    PREFETCH(flag("-P", "--prefetch").in(PINGPONG).helpOnly().help("accepted with -o (nothing to prefetch)")),
    TIMESTAMPS(flag("-t", "--ts").in(PINGPONG).refused("the engine does not timestamp completions")
        .help("completion timestamps")),

    // rping's (librdmacm's examples/rping.c)
    RPING_SERVER(flag("-s").in(of("rping")).help("server")),
    RPING_CLIENT(flag("-c").in(of("rping")).alternativeTo(RPING_SERVER).help("client")),
    RPING_VERBOSE(flag("-v").in(of("rping")).help("print the ping data")),
    RPING_VALIDATE(flag("-V").in(of("rping")).help("validate the ping data")),
    RPING_DEBUG(flag("-d").in(of("rping")).help("debug printfs: the connection's steps and, at the end, the CM's " +
        "counters")),
    RPING_PERSISTENT(flag("-P").in(of("rping"))
        .help("persistent server: serves one client after another, each on a new QP, until none has come for " +
            "--timeout-ms (rping -P serves until killed); a failed client is reported and the next one served")),
    RPING_ADDRESS(text("ADDR", "-a").in(of("rping"))
        .help("the server's address (a client needs it); a server without it listens on the port's first IPv4 " +
            "address (else its first), as rping binds 0.0.0.0")),
    RPING_SOURCE(text("ADDR", "-I").in(of("rping"))
        .help("client: the source address to bind to (one of the port's addresses)")),
    RPING_COUNT(number("COUNT", 0, Integer.MAX_VALUE, "-C").in(of("rping")).byDefault("0: until stopped")
        .help("pings")),
    RPING_SIZE(size("SIZE", ToolDefaults.RPING_MIN_SIZE, ToolDefaults.RPING_MAX_SIZE, "-S").in(of("rping"))
        .byDefault(String.valueOf(ToolDefaults.RPING_SIZE)).help("the ping's size")),
    RPING_TOS(number("TOS", 0, 255, "-t").in(of("rping")).byDefault("0")
        .help("the type of service of the connection (rdma_set_option RDMA_OPTION_ID_TOS), as ucmatose's -t " +
            "(rdma-core 44's rping has none): the client's REQ carries it as the traffic class, and both QPs' " +
            "packets its upper six bits as their DSCP")),

    // the driver's quotas per client
    MAX_CLIENT_QPS(number("N", 1, Integer.MAX_VALUE, "--max-client-qps").in(of("driver"))
        .byDefault(String.valueOf(ClientQuotas.QPS_DEFAULT))
        .help("QPs each client may hold: a create past it fails with ENOMEM naming the flag, counted in 'stat'")),
    MAX_CLIENT_CQS(number("N", 1, Integer.MAX_VALUE, "--max-client-cqs").in(of("driver"))
        .byDefault(String.valueOf(ClientQuotas.CQS_DEFAULT)).help("CQs each client may hold")),
    MAX_CLIENT_SRQS(number("N", 1, Integer.MAX_VALUE, "--max-client-srqs").in(of("driver"))
        .byDefault(String.valueOf(ClientQuotas.SRQS_DEFAULT)).help("SRQs each client may hold")),
    MAX_CLIENT_MRS(number("N", 1, Integer.MAX_VALUE, "--max-client-mrs").in(of("driver"))
        .byDefault(String.valueOf(ClientQuotas.MRS_DEFAULT)).help("memory regions each client may hold")),
    MAX_CLIENT_MR_BYTES(size("BYTES", 1, Long.MAX_VALUE, "--max-client-mr-bytes").in(of("driver"))
        .byDefault("the machine's memory").help("the lengths of a client's regions, summed")),
    MAX_CLIENT_QUEUE_BYTES(size("BYTES", 1, Long.MAX_VALUE, "--max-client-queue-bytes").in(of("driver"))
        .byDefault("a quarter of the device's, which is half of the driver's heap: RNIC_JAVA_OPTS=-Xmx...")
        .help("the driver's memory a client's QPs' work queues take")),

    // reading a driver
    WATCH(number("MS", 1, 3_600_000, "--watch").in(of("stat"))
        .help("a snapshot every MS milliseconds until Ctrl-C (the screen cleared before each on a terminal); it " +
            "ends, status 1, when the driver stops or its process is gone")),
    JSON(flag("--json").in(of("stat", "inspect"))
        .help("JSON: stat one object per snapshot (driver_pid, start_time_ms, heartbeat_age_ms, responding, " +
            "counters [{id, type_id, label, value}], errors [{count, first_ms, last_ms, error}]); inspect one " +
            "object per frame, with the shared vectors' field names plus verdict and drop_reason")),
    FILTER(text("REGEX", "--filter").in(of("stat"))
        .help("only the counters whose label contains a match (e.g. 'retry|rnr', '^qp 0x')")),
    VERBOSE(flag("-v", "--verbose").in(of("devinfo"))
        .help("also the limits (max_qp_wr, max_sge, ...), the netdev, MAC and the GID table")),

    // the offline commands
    ROCE_ONLY(flag("--roce-only").in(of("inspect"))
        .help("leave out frames that are not RoCEv2 at all (not IP, not UDP, not port 4791)")),
    DEMO_OUT(file("FILE.pcap", "--out").in(of("demo")).byDefault("rnic-demo.pcap in the temporary directory")
        .help("where the capture is written")),
    OPS(number("N", 1, Long.MAX_VALUE, "--ops").in(of("simulate")).help("operations")),
    SIMULATE_QPS(number("Q", 1, 1024, "--qps").in(of("simulate")).help("QPs (each with its regions and CQs on both " +
        "engines)")),
    MAX_SIZE(size("BYTES", 8, 1 << 30, "--max-size").in(of("simulate")).byDefault("1M").help("the largest operation")),
    LOSS(decimal("P", 0, 1, "--loss").in(of("simulate")).help("the probability a frame is lost (below 1)")),
    REORDER(decimal("P", 0, 1, "--reorder").in(of("simulate")).help("the probability a frame is reordered")),
    DUPLICATE(decimal("P", 0, 1, "--dup").in(of("simulate")).help("the probability a frame is duplicated")),
    CORRUPT(decimal("P", 0, 1, "--corrupt").in(of("simulate")).help("the probability a frame is corrupted")),
    DELAY_NS(number("NS", 0, Long.MAX_VALUE, "--delay-ns").in(of("simulate")).help("the link's delay")),
    SEED(number("S", Long.MIN_VALUE, Long.MAX_VALUE, "--seed").in(of("simulate", "cc-sim")).byDefault("1")
        .help("the random seed: a run is reproduced by its seed")),
    OPS_MIX(text("write,read,send,atomic,atomic_write,flush[,srq][,mw]", "--ops-mix").in(of("simulate"))
        .help("operations drawn (all but srq and mw by default): write, read, send, atomic (FETCH_ADD/COMPARE_SWAP), " +
            "atomic_write and flush (IBTA 1.5 ATOMIC WRITE and FLUSH, global visibility); srq: SENDs received " +
            "through one shared receive queue every QP of the responding side takes its receives from; mw: WRITEs " +
            "through a type 2B memory window the responder's QP bound and READs through a type 1 window")),
    RETRY_CNT(number("N", 0, 7, "--retry-cnt").in(of("simulate")).byDefault("7, the IBTA's maximum")
        .help("retry_cnt of every QP: retries in a row without progress (lost requests, ACKs or READ responses) " +
            "before the WQE fails with RETRY_EXC_ERR")),
    RNR_RETRY(number("N", 0, 7, "--rnr-retry").in(of("simulate")).byDefault("7 = infinite")
        .help("rnr_retry: RNR NAKs in a row before RNR_RETRY_EXC_ERR")),
    ACK_TIMEOUT(number("T", 0, 31, "--timeout").in(of("simulate")).byDefault("8 (1.05 ms)")
        .help("local ACK timeout, 4.096 us x 2^T; 0 = none (a lost answer then stalls the QP until the run's time " +
            "budget ends)")),
    FLOWS(number("N", 1, 16, "--flows").in(of("cc-sim")).help("RC flows through the bottleneck")),
    PARAMS(choice("paper|connectx", List.of("paper", "connectx"), "--params").in(of("cc-sim")).byDefault("connectx")
        .help("DCQCN's parameters: the paper's or ConnectX's")),
    DURATION_MS(number("MS", 1, 10_000, "--duration-ms").in(of("cc-sim")).help("simulated time")),
    SPACING_MS(number("MS", 0, 10_000, "--spacing-ms").in(of("cc-sim")).help("between the flows' starts")),
    CAPACITY_KB(number("KB", 16, 1 << 20, "--capacity-kb").in(of("cc-sim")).help("the bottleneck's buffer")),
    CC_SIM_OUT(directory("DIR", "--out").in(of("cc-sim")).byDefault("rnic-cc-sim in the temporary directory")
        .help("where the CSV and the HTML plot are written")),
    PINGPONG_SERVER(flag("--server").in(of("dpdk-pingpong")).help("send every frame back (MACs swapped)")),
    FRAME_BYTES(size("FRAME_BYTES", ToolDefaults.DPDK_PINGPONG_FRAME_BYTES_MIN, ToolDefaults.DPDK_PINGPONG_FRAME_BYTES_MAX, "-l")
        .in(of("dpdk-pingpong")).byDefault(ToolDefaults.DPDK_PINGPONG_FRAME_BYTES + ": a 64-byte RDMA WRITE's frame")
        .help("frame length")),

    // answered by the launcher before a command parses
    VERSION(flag("-V", "--version").in(PERFTEST).helpOnly()
        .help("rnic's version, as perftest's -V (bin/rnic --version)")),
    HELP(flag("-h", "--help").in(new Scope(command -> true)).helpOnly().help("this help"));

    private final Spec spec;

    CliOption(final Spec spec)
    {
        this.spec = spec;
    }

    /** The spellings, the first the synopsis'. */
    public List<String> spellings()
    {
        return spec.spellings;
    }

    /** The spelling the synopsis and the help show first. */
    public String spelling()
    {
        return spec.spellings.get(0);
    }

    public ValueKind kind()
    {
        return spec.kind;
    }

    public String valueName()
    {
        return spec.valueName;
    }

    public long min()
    {
        return spec.min;
    }

    public long max()
    {
        return spec.max;
    }

    public double decimalMin()
    {
        return spec.decimalMin;
    }

    public double decimalMax()
    {
        return spec.decimalMax;
    }

    public List<String> choices()
    {
        return spec.choices;
    }

    /** The default for the help, or null when the help says it or there is none. */
    public String defaultText()
    {
        return spec.defaultText;
    }

    public String help()
    {
        return spec.help;
    }

    public boolean appliesTo(final String command)
    {
        return spec.scope.includes(command);
    }

    public Scope scope()
    {
        return spec.scope;
    }

    public boolean isRequiredIn(final String command)
    {
        return spec.requiredIn.includes(command);
    }

    public boolean isRepeatable()
    {
        return spec.repeatable;
    }

    /** Whether the synopsis shows it (else the help alone does). */
    public boolean inSynopsis()
    {
        return !spec.helpOnly && spec.refusal == null;
    }

    /** Why a known spelling is refused (an option of the original tool rnic cannot honour), or null. */
    public String refusal()
    {
        return spec.refusal;
    }

    /** The options the synopsis shows this one with, as {@code [A | B]}, when both apply. */
    public List<CliOption> alternatives()
    {
        return spec.alternatives;
    }

    /** The extra check of a text value, throwing IllegalArgumentException with the reason, or null. */
    Consumer<String> check()
    {
        return spec.check;
    }

    public boolean takesValue()
    {
        return spec.kind != ValueKind.NONE;
    }

    /** The options that apply to {@code command}, in the table's order. */
    public static List<CliOption> forCommand(final String command)
    {
        return java.util.Arrays.stream(values()).filter(option -> option.appliesTo(command)).toList();
    }

    /**
     * The largest {@code -s}: a QP's send and receive buffers share one memory region, so a message is at most half
     * of what a region holds; and at most perftest's own limit, UINT_MAX / 2.
     */
    private static long largestMessageBytes()
    {
        return Math.min(Integer.MAX_VALUE, QpLayout.largestMessage(MemoryRegionTable.MAX_REGION_BYTES));
    }

    private static Spec flag(final String... spellings)
    {
        return new Spec(ValueKind.NONE, null, spellings);
    }

    private static Spec number(final String valueName, final long min, final long max, final String... spellings)
    {
        final Spec spec = new Spec(ValueKind.NUMBER, valueName, spellings);
        spec.min = min;
        spec.max = max;
        return spec;
    }

    private static Spec size(final String valueName, final long min, final long max, final String... spellings)
    {
        final Spec spec = new Spec(ValueKind.SIZE, valueName, spellings);
        spec.min = min;
        spec.max = max;
        return spec;
    }

    private static Spec decimal(final String valueName, final double min, final double max, final String... spellings)
    {
        final Spec spec = new Spec(ValueKind.DECIMAL, valueName, spellings);
        spec.decimalMin = min;
        spec.decimalMax = max;
        return spec;
    }

    private static Spec choice(final String valueName, final List<String> choices, final String... spellings)
    {
        final Spec spec = new Spec(ValueKind.CHOICE, valueName, spellings);
        spec.choices = choices;
        return spec;
    }

    private static Spec text(final String valueName, final String... spellings)
    {
        return new Spec(ValueKind.TEXT, valueName, spellings);
    }

    private static Spec directory(final String valueName, final String... spellings)
    {
        return new Spec(ValueKind.DIRECTORY, valueName, spellings);
    }

    private static Spec file(final String valueName, final String... spellings)
    {
        return new Spec(ValueKind.FILE, valueName, spellings);
    }

    /** One declaration, built in the table's rows. */
    private static final class Spec
    {
        final ValueKind kind;
        final String valueName;
        final List<String> spellings;
        long min;
        long max;
        double decimalMin;
        double decimalMax;
        List<String> choices = List.of();
        String defaultText;
        String help = "";
        Scope scope = new Scope(command -> false);
        Scope requiredIn = new Scope(command -> false);
        boolean repeatable;
        boolean helpOnly;
        String refusal;
        List<CliOption> alternatives = List.of();
        Consumer<String> check;

        Spec(final ValueKind kind, final String valueName, final String... spellings)
        {
            this.kind = kind;
            this.valueName = valueName;
            this.spellings = List.of(spellings);
        }

        Spec in(final Scope commands)
        {
            scope = commands;
            return this;
        }

        Spec requiredIn(final Scope commands)
        {
            requiredIn = commands;
            return this;
        }

        Spec byDefault(final String text)
        {
            defaultText = text;
            return this;
        }

        Spec help(final String text)
        {
            help = text;
            return this;
        }

        Spec repeatable()
        {
            repeatable = true;
            return this;
        }

        Spec helpOnly()
        {
            helpOnly = true;
            return this;
        }

        Spec refused(final String why)
        {
            refusal = why;
            return this;
        }

        Spec alternativeTo(final CliOption... options)
        {
            alternatives = List.of(options);
            return this;
        }

        Spec check(final Consumer<String> valueCheck)
        {
            check = valueCheck;
            return this;
        }
    }
}
