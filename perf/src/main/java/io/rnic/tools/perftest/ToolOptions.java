package io.rnic.tools.perftest;

import io.rnic.cc.DcqcnParameters;
import io.rnic.datapath.affinity.ThreadAffinity;
import io.rnic.tools.Arguments;
import io.rnic.tools.Ports;
import io.rnic.tools.QpLayout;
import io.rnic.tools.ToolKind;
import io.rnic.tools.UsageException;
import io.rnic.tools.options.CliOption;
import io.rnic.tools.options.CommandLine;
import io.rnic.tools.options.GivenOption;
import io.rnic.tools.options.OptionHelp;
import io.rnic.transport.LocalPort;
import io.rnic.verbs.MemoryRegionTable;
import io.rnic.verbs.QpType;
import io.rnic.tools.options.ToolDefaults;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static io.rnic.tools.Arguments.number;

/**
 * The command line of a perftest-style tool. Flags follow perftest ({@code -d -s -n -m -x -p -q -t -A}) and, for the
 * pingpongs, rdma-core ({@code -g} for the GID index, {@code -r} for the receive depth); our own are long options.
 * Server when no address is given, client otherwise.
 */
public final class ToolOptions
{
    public static final int DEFAULT_TCP_PORT = ToolDefaults.PERFTEST_TCP_PORT;
    /** The largest {@code -s}: the option table's ({@link CliOption#SIZE}). */
    public static final int MAX_SIZE_BYTES = (int)CliOption.SIZE.max();

    public final ToolKind kind;
    public String iface;
    public String portKind = "afpacket";
    public int size;
    public long iterations;
    /**
     * Iterations before the measurement at the current size: {@code --warmup}'s, else {@link #warmupFor} of the size
     * (see {@link #WARMUP_BYTES_MAX}).
     */
    public long warmup;
    /** {@code --warmup} (or -D, or a perftest peer) fixed the warm-up: the same count at every size. */
    private boolean warmupFixed;
    /**
     * The most bytes a default warm-up sends per QP: 5 000 (1 000 latency) iterations, but no more than this many
     * bytes of messages, and at least one. perftest runs none by default ({@code --perform_warm_up}: one TX depth);
     * ours lets the JIT compile the path before it is timed, which takes packets, not gigabytes: unbounded, {@code -s
     * 1M -n 64} spent 5 GiB on it and an {@code -a} sweep 84 GB.
     */
    public static final long WARMUP_BYTES_MAX = 64L << 20;
    static final long WARMUP_ITERATIONS_LATENCY = 1000;
    static final long WARMUP_ITERATIONS_BANDWIDTH = 5000;
    /** IB path MTU in bytes, or 0: the largest the interface carries (as rxe's active_mtu). */
    public int mtu;
    /** -1: the first IPv4 GID, else the first GID. */
    public int gidIndex = -1;
    public int tcpPort = DEFAULT_TCP_PORT;
    public int qps = 1;
    public int txDepth;
    /** Scatter/gather entries a send-queue work request's message is split over (perftest's --sge). */
    public int sges = 1;
    public int rxDepth;
    public boolean verify;
    /** SEND_WITH_IMM instead of SEND: the immediate carries the message number (checked with --verify). */
    public boolean immediate;
    public Path pcap;
    public Path hlog;
    public int cpu = -1;
    /** AF_PACKET: PACKET_QDISC_BYPASS (faster; tc qdiscs and tcpdump on the interface no longer see our frames). */
    public boolean qdiscBypass;
    /** Engine threads (port queues); QPs are sharded over them. */
    public int engines = 1;
    /** {@code --idle}, or null: spin for an embedded engine, backoff for the application thread with --driver. */
    public String idle;
    /** {@code --driver DIR}: run as a client of the rnic driver serving DIR; null: embed an engine. */
    public Path driver;
    /** The options given that set up the port: the driver's business with {@code --driver}. */
    private final List<String> portOptions = new ArrayList<>();
    public String server;
    public boolean atomicCompareSwap;
    /** {@code --port dpdk}: EAL arguments (split on white space), or null for the defaults. */
    public List<String> ealArgs;
    /** {@code --port-mtu}: the DPDK device's Ethernet MTU, 0 for the default (4200 where the device carries it). */
    public int portMtu;
    /** {@code --ip ADDR/PREFIX}: the port's addresses when it has no kernel interface to take them from (DPDK). */
    public final List<String> addresses = new ArrayList<>();
    /** {@code --oob HOST[:PORT]}: where the TCP exchange runs when not over the port's address (null: there). */
    public String oobHost;
    public int oobPort = -1;
    public long timeoutMs = 60_000;
    /** {@code -u}: perftest's QP timeout, the local ACK timeout 4.096 us x 2^N (14: 67 ms, perftest's default). */
    public int qpTimeout = 14;
    /** {@code -R}: perftest's exchange over a QP the RDMA CM connects (to port -p), and the test QPs by the CM. */
    public boolean rdmaCm;
    /** {@code --cc dcqcn} with any {@code --cc-param NAME=VALUE} applied, or null ({@code --cc none}, the default). */
    public DcqcnParameters congestionControl;
    /** {@code --vlan ID}: the 802.1Q VLAN the engine tags its frames with, PCP = the QP's SL; -1: none. */
    public int vlanId = LocalPort.NO_VLAN;
    /** {@code --cnp-dscp}: the DSCP of the CNPs the endpoint sends. */
    public int cnpDscp = LocalPort.CNP_DSCP_DEFAULT;
    /** {@code --cnp-prio}: their 802.1Q priority on a tagged port. */
    public int cnpPriority = LocalPort.CNP_PRIORITY_DEFAULT;
    private String ccName = "none";
    private final List<String> ccParams = new ArrayList<>();
    /** perftest's and rdma-core's flags users reach for: {@code -c -b -I -T -S -F -e -l -Q -w}, the pingpongs'. */
    public final PerftestFlags flags = new PerftestFlags();

    // output and measurement modes, as perftest's (--report_gbits, --out_json, -D, --run_infinitely, -U)
    /** {@code --report_gbits}: bandwidth in Gb/sec (10^9 bits) instead of MB/sec (2^20 bytes). */
    public boolean reportGbits;
    /** {@code --out_json} or {@code --out_json_file PATH}: perftest's JSON report, written there; null: none. */
    public Path outJson;
    /** perftest's file for {@code --out_json} without a file: in the working directory, as perftest writes it. */
    public static final String OUT_JSON_DEFAULT = ToolDefaults.PERFTEST_OUT_JSON;
    /** {@code -U}: print every latency sample, unsorted then sorted (perftest's -U implies -H), before its line. */
    public boolean reportAllLatencies;
    /**
     * {@code -D SECONDS}: run for a time instead of -n iterations, in perftest's phases (a warm-up of a quarter of
     * it in whole seconds, the measurement, a cool-down as long as the warm-up); 0: count iterations. With
     * {@code --run_infinitely}, the period of its reports (perftest's default: 5 s).
     */
    public int durationS;
    /** {@code --run_infinitely}: a bandwidth client reports every -D seconds until SIGINT or SIGTERM. */
    public boolean runInfinitely;
    /** perftest's period of --run_infinitely's reports without -D. */
    public static final int RUN_INFINITELY_PERIOD_DEFAULT_S = ToolDefaults.RUN_INFINITELY_PERIOD_S;
    /** {@code -a}: every size from 2 B to {@link #ALL_SIZES_MAX_BYTES}, powers of two, one line each. */
    public boolean allSizes;
    /** perftest's largest size with -a (its MAX_SIZE): 8 MiB. */
    public static final int ALL_SIZES_MAX_BYTES = 8 << 20;
    private ToolOptions(final ToolKind kind)
    {
        this.kind = kind;
        if (kind.isPingpong())
        {
            size = kind == ToolKind.UD_PINGPONG ? 2048 : 4096;
            iterations = 1000;
            rxDepth = 500;
            txDepth = 1;
            qps = kind == ToolKind.SRQ_PINGPONG ? 16 : 1;
        }
        else if (kind.isLatency())
        {
            size = kind.operation() == ToolKind.Operation.ATOMIC ? 8 : 2;
            iterations = 1000;
            warmup = WARMUP_ITERATIONS_LATENCY;
            txDepth = 1;
            rxDepth = 64;
        }
        else
        {
            size = kind.operation() == ToolKind.Operation.ATOMIC ? 8 : 65536;
            iterations = 5000;
            warmup = WARMUP_ITERATIONS_BANDWIDTH;
            txDepth = 128;
            rxDepth = 512;
        }
    }

    public boolean isServer()
    {
        return server == null;
    }

    /** The command and the options {@code kind} takes (see {@link CliOption}). */
    public static String synopsis(final ToolKind kind)
    {
        return OptionHelp.synopsis(kind.command(), "[SERVER_ADDRESS]");
    }

    public static ToolOptions parse(final ToolKind kind, final String[] args)
    {
        final ToolOptions options = new ToolOptions(kind);
        final CommandLine line = CommandLine.parse(kind.command(), args);
        for (final GivenOption given : line.options())
        {
            if (!options.flags.read(kind, given, options))
            {
                options.read(given);
            }
        }
        final List<String> positional = line.operands();
        if (positional.size() > 1)
        {
            throw new UsageException("one server address at most, got " + positional);
        }
        options.server = positional.isEmpty() ? null : positional.get(0);
        options.check();
        return options;
    }

    /** Sets what {@code given} says: one of the options the table gives the tool, other than perftest's letters. */
    private void read(final GivenOption given)
    {
        final CliOption option = given.option();
        if (setsUpThePort(option) && !(option == CliOption.PORT_KIND && startsWithDigit(given.text())))
        {
            portOptions.add(given.spelling());
        }
        switch (option)
        {
            case INTERFACE -> iface = Ports.interfaceOf(given.text());
            case IB_PORT -> Ports.ibPort(given.spelling(), given.text());
            case SIZE -> size = given.intValue();
            case ITERS -> iterations = given.number();
            case WARMUP -> warmup(given.number());
            case MTU -> mtu = Integer.parseInt(given.text());
            case GID_INDEX -> gidIndex = given.intValue();
            case PORT -> tcpPort = given.intValue();
            case PORT_KIND ->
            {
                // perftest's --port is the TCP port; ours also names the packet port kind
                if (startsWithDigit(given.text()))
                {
                    tcpPort = (int)number(given.spelling(), given.text(), 1, 65535);
                }
                else
                {
                    portKind = given.text(); // the port factory names the kinds it knows
                }
            }
            case QPS -> qps = given.intValue();
            case TX_DEPTH -> txDepth = given.intValue();
            case SGE -> sges = given.intValue();
            case RX_DEPTH -> rxDepth = given.intValue();
            case ATOMIC_TYPE -> atomicCompareSwap = given.text().equals("CMP_AND_SWAP");
            case PCAP -> pcap = given.path();
            case HLOG -> hlog = given.path();
            case CPU -> cpu = given.intValue();
            case ENGINES -> engines = given.intValue();
            case IDLE -> idle = given.text();
            case TIMEOUT_MS -> timeoutMs = given.number();
            case ACCEPT_TIMEOUT_MS -> acceptTimeoutMs = given.number();
            case QP_TIMEOUT -> qpTimeout = given.intValue();
            case EAL -> ealArgs = List.of(given.text().trim().split("\\s+"));
            case PORT_MTU -> portMtu = given.intValue();
            case IP -> addresses.add(address(given.text()));
            case OOB -> oob(given.text());
            case DRIVER -> driver = given.path();
            case CC -> ccName = given.text();
            case CC_PARAM -> ccParams.add(given.text());
            case VLAN -> vlanId = given.intValue();
            case CNP_DSCP -> cnpDscp = given.intValue();
            case CNP_PRIO -> cnpPriority = given.intValue();
            case VERIFY -> verify = true;
            case QDISC_BYPASS -> qdiscBypass = true;
            case RDMA_CM -> rdmaCm = true;
            case IMM -> immediate = true;
            case DEBUG -> debug = true;
            case REPORT_GBITS -> reportGbits = true;
            case OUT_JSON ->
            {
                if (outJson == null)
                {
                    outJson = Path.of(OUT_JSON_DEFAULT);
                }
            }
            case OUT_JSON_FILE -> outJson = given.path();
            case REPORT_UNSORTED -> reportAllLatencies = true;
            case DURATION -> durationS = given.intValue();
            case RUN_INFINITELY -> runInfinitely = true;
            case ALL_SIZES -> allSizes = true;
            default -> throw given.notHandled(kind.command());
        }
    }

    /** The output and measurement options that do not go together, or with the tool; their defaults. */
    private void checkOutputOptions()
    {
        if (allSizes)
        {
            if (verify || hlog != null || durationS > 0 || runInfinitely)
            {
                throw new UsageException("-a goes with none of --verify, --hlog, -D and --run_infinitely");
            }
            size = ALL_SIZES_MAX_BYTES; // the buffers hold the largest; each size runs in turn
        }
        if (durationS > 0 && kind == ToolKind.WRITE_LAT && size < 2)
        {
            throw new UsageException("write-lat -D needs -s 2 or more: the byte before the marker ends the run");
        }
        if ((durationS > 0 || runInfinitely) && verify)
        {
            throw new UsageException("--verify counts on -n: with -D or --run_infinitely the server cannot tell " +
                "how many operations to check");
        }
        if (runInfinitely && durationS == 0)
        {
            durationS = RUN_INFINITELY_PERIOD_DEFAULT_S;
        }
        if (outJson != null && outJson.toAbsolutePath().getParent() != null &&
            !Files.isDirectory(outJson.toAbsolutePath().getParent()))
        {
            throw new UsageException("--out_json_file " + outJson + ": no directory " +
                outJson.toAbsolutePath().getParent() + " to write it in");
        }
        if (durationS > 0)
        {
            warmup(0); // the warm-up is -D's first quarter
            // the peers exchange their results after the run: the wait for it outlasts the run
            timeoutMs = runInfinitely ? Math.max(timeoutMs, 86_400_000L * 365) : timeoutMs + durationS * 1000L;
        }
    }

    /** The options that set up the port (perftest's --port with a number is the TCP port, not one of them). */
    private static boolean setsUpThePort(final CliOption option)
    {
        return switch (option)
        {
            case INTERFACE, PORT_KIND, EAL, PORT_MTU, IP, ENGINES, QDISC_BYPASS, PCAP, CC, CC_PARAM, VLAN, CNP_DSCP,
                 CNP_PRIO -> true;
            default -> false;
        };
    }

    private static boolean startsWithDigit(final String value)
    {
        return !value.isEmpty() && Character.isDigit(value.charAt(0));
    }

    private void oob(final String value)
    {
        final int colon = value.lastIndexOf(':');
        // HOST, HOST:PORT, [V6]:PORT or a bare IPv6 address
        if (colon > 0 && (value.indexOf(':') == colon || value.startsWith("[")))
        {
            oobHost = value.substring(0, colon).replace("[", "").replace("]", "");
            oobPort = (int)number("--oob", value.substring(colon + 1), 1, 65535);
        }
        else
        {
            oobHost = value.replace("[", "").replace("]", "");
        }
        if (oobHost.isEmpty())
        {
            throw new UsageException("--oob takes HOST[:PORT], not '" + value + "'");
        }
    }

    /** ADDR/PREFIX (the prefix is checked and otherwise unused: peers are on the same link). */
    public static String address(final String value)
    {
        final int slash = value.indexOf('/');
        final String host = slash < 0 ? value : value.substring(0, slash);
        final boolean v6 = host.contains(":");
        if (slash >= 0)
        {
            number("--ip prefix", value.substring(slash + 1), 0, v6 ? 128 : 32);
        }
        if (!v6 && !host.matches("\\d{1,3}(\\.\\d{1,3}){3}") || v6 && !host.matches("[0-9a-fA-F:.]+"))
        {
            throw new UsageException("--ip takes an IPv4 or IPv6 address with an optional /PREFIX, not '" + value + "'");
        }
        return host;
    }

    /** The TCP port of the exchange: --oob's, else -p. */
    public int oobTcpPort()
    {
        return oobPort > 0 ? oobPort : tcpPort;
    }

    /** Fixes the warm-up at {@code iterations} for every size (--warmup; 0 for -D and against perftest). */
    public void warmup(final long iterations)
    {
        warmup = iterations;
        warmupFixed = true;
    }

    /**
     * The warm-up of messages of {@code messageBytes}: the fixed count, or the tool's default bounded by
     * {@link #WARMUP_BYTES_MAX} (a multiple of -l, as -n must be). Both sides of a SEND or latency test count it: it
     * depends on the size alone, like -n.
     */
    public long warmupFor(final int messageBytes)
    {
        if (warmupFixed || kind.isPingpong())
        {
            return warmup;
        }
        final long iterations = kind.isLatency() ? WARMUP_ITERATIONS_LATENCY : WARMUP_ITERATIONS_BANDWIDTH;
        final long postList = flags.postList;
        final long bounded = Math.max(1, Math.min(iterations, (WARMUP_BYTES_MAX + messageBytes - 1) / messageBytes));
        return (bounded + postList - 1) / postList * postList;
    }

    private void check()
    {
        checkOutputOptions();
        warmup = warmupFor(size); // -a sets it again for each size
        if (driver != null)
        {
            checkDriver();
        }
        if (kind.operation() == ToolKind.Operation.ATOMIC && size != 8)
        {
            throw new UsageException("atomic operations are 8 bytes; -s " + size + " does not apply");
        }
        if (kind == ToolKind.UD_PINGPONG && mtu != 0 && size > mtu)
        {
            throw new UsageException("a UD message is one packet: -s " + size + " is larger than the MTU " + mtu);
        }
        if ("dpdk".equals(portKind) && iface == null)
        {
            throw new UsageException("--port dpdk needs -d DEVICE: the DPDK port's name (a --vdev of --eal, e.g. " +
                "net_memif0)");
        }
        if ("dpdk".equals(portKind) && addresses.isEmpty())
        {
            throw new UsageException("--port dpdk needs --ip ADDR/PREFIX: a DPDK port has no kernel interface to " +
                "take addresses from");
        }
        if ("dpdk".equals(portKind) && !isServer() && oobHost == null)
        {
            // the exchange is TCP through the kernel, which owns none of a DPDK port's addresses: a connection to the
            // server's RoCE address would follow this host's routes, to whichever machine they reach
            throw new UsageException("--port dpdk needs --oob HOST: the TCP exchange cannot run over the DPDK " +
                "port, and a connection to " + server + " would follow this host's routes, maybe to another " +
                "machine; name the server's kernel address (--oob 127.0.0.1 when both ends run on this machine)");
        }
        if (!"dpdk".equals(portKind) && (ealArgs != null || !addresses.isEmpty() || portMtu != 0))
        {
            throw new UsageException("--eal, --ip and --port-mtu apply to --port dpdk (an AF_PACKET port takes " +
                "its interface's MTU: ip link set IFACE mtu N)");
        }
        congestionControl = congestionControl();
        if (rdmaCm)
        {
            checkRdmaCm();
        }
        if (kind == ToolKind.SRQ_PINGPONG && qps > rxDepth)
        {
            throw new UsageException("rx_depth " + rxDepth + " is too small for " + qps + " QPs -- must have at " +
                "least one receive per QP.");
        }
        if (kind != ToolKind.SRQ_PINGPONG && kind.isLatency() && qps != 1)
        {
            throw new UsageException("latency tests run one QP (-q 1)");
        }
        flags.check(this);
        checkBeforeAnyWork();
    }

    private void checkDriver()
    {
        if (!portOptions.isEmpty())
        {
            throw new UsageException(portOptions.get(0) + " sets up the port, which is the driver's business with " +
                "--driver: give it to bin/rnic driver");
        }
    }

    private void checkRdmaCm()
    {
        if (oobHost != null)
        {
            throw new UsageException("--oob is the TCP exchange's address; with -R the exchange runs over the RDMA " +
                "CM to the server address (port -p)");
        }
        if (mtu != 0)
        {
            throw new UsageException("-m does not apply with -R: the RDMA CM takes the path MTU from the port");
        }
        if ("dpdk".equals(portKind))
        {
            throw new UsageException("-R runs over --port afpacket");
        }
        if (qpTimeout != 14)
        {
            throw new UsageException("-u does not apply with -R: the RDMA CM sets the QP's timeout");
        }
    }

    /** DCQCN's ConnectX defaults changed by each --cc-param in order, or null for --cc none. */
    private DcqcnParameters congestionControl()
    {
        if (ccName.equals("none"))
        {
            if (!ccParams.isEmpty())
            {
                throw new UsageException("--cc-param applies to --cc dcqcn");
            }
            return null;
        }
        DcqcnParameters parameters = DcqcnParameters.connectX();
        for (final String param : ccParams)
        {
            try
            {
                parameters = parameters.with(param);
            }
            catch (final IllegalArgumentException ex)
            {
                final String message = ex.getMessage();
                throw new UsageException(message.startsWith("cc-param") ? "--" + message :
                    "--cc-param " + param + ": " + message);
            }
        }
        return parameters;
    }

    /** {@code --accept-timeout-ms}: how long a server waits for its client; 0 (the default): as long as it takes. */
    public long acceptTimeoutMs;
    /** {@code --debug}: a failed run also prints each QP's transport state. */
    public boolean debug;

    /** Everything {@code rnic help TOOL} prints after the synopsis and summary: the table's options, then notes. */
    public static String help(final ToolKind kind)
    {
        final List<String> notes = new ArrayList<>(List.of(OptionHelp.help(kind.command())));
        if (kind.isPingpong())
        {
            notes.add("  rdma-core's letters: -c is --chk, -l --sl; GIDs print as inet_ntop prints them " +
                "(::ffff:10.91.0.1, fd91::1).");
        }
        else
        {
            notes.add("  perftest's letters: -c is --connection, -l --post_list, -t --tx-depth. Results print in " +
                "perftest's\n  table (its header, columns and definitions), then rnic's percentiles.");
        }
        notes.add("  --port N is the TCP port (-p N), --port afpacket|dpdk the packet port.");
        return String.join("\n", notes);
    }

    /**
     * What can be known wrong before a port opens or memory is allocated: files that cannot be written, a region
     * larger than a memory region may be, CPUs this process may not run on.
     */
    private void checkBeforeAnyWork()
    {
        Arguments.checkWritable("--pcap", pcap);
        Arguments.checkWritable("--hlog", hlog);
        final long regionBytes = new QpLayout(size, kind.qpType() == QpType.UD).regionBytes * qps;
        if (regionBytes > MemoryRegionTable.MAX_REGION_BYTES)
        {
            throw new UsageException("-s " + size + " with -q " + qps + " needs a region of " + regionBytes +
                " bytes; a memory region holds at most " + MemoryRegionTable.MAX_REGION_BYTES + " (max_mr_size)");
        }
        if (cpu >= 0 && driver == null)
        {
            try
            {
                ThreadAffinity.checkAllowed("--cpu " + cpu + (engines > 1 ? " with --engines " + engines : ""), cpu,
                    engines);
            }
            catch (final IllegalArgumentException ex)
            {
                throw new UsageException(ex.getMessage());
            }
        }
    }
}
