package io.rnic.tools.perftest;

import io.rnic.datapath.agent.IdleStrategies;
import io.rnic.tools.Arguments;
import io.rnic.tools.InterfaceState;
import io.rnic.tools.ToolKind;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

import static io.rnic.tools.perftest.ToolFlag.flag;
import static io.rnic.tools.perftest.ToolFlag.helpOnly;

/**
 * The options of the perftest-style tools ({@link ToolOptions}'s own; perftest's and rdma-core's letters are
 * {@link PerftestFlags}'), each declared once with the tools that take it, in the synopsis' order. Each tool's
 * synopsis and help are built from the declarations that apply to it.
 */
final class ToolFlags
{
    static final Predicate<ToolKind> EVERY = kind -> true;
    static final Predicate<ToolKind> PERFTEST = kind -> !kind.isPingpong();
    static final Predicate<ToolKind> PINGPONG = ToolKind::isPingpong;
    static final Predicate<ToolKind> LATENCY = kind -> kind.isLatency() && !kind.isPingpong();
    static final Predicate<ToolKind> BANDWIDTH = kind -> !kind.isLatency();
    static final Predicate<ToolKind> ATOMIC = kind -> kind.operation() == ToolKind.Operation.ATOMIC;
    static final Predicate<ToolKind> SEND = kind -> kind.operation() == ToolKind.Operation.SEND;
    /** ibv_srq_pingpong has neither a data check nor SEND_WITH_IMM. */
    static final Predicate<ToolKind> NOT_SRQ = kind -> kind != ToolKind.SRQ_PINGPONG;
    /** -q: perftest's, and ibv_srq_pingpong's (the other pingpongs run one QP). */
    static final Predicate<ToolKind> QPS = PERFTEST.or(kind -> kind == ToolKind.SRQ_PINGPONG);
    /** -a: the tools whose message size varies (an atomic is 8 bytes; the pingpongs are not perftest's). */
    static final Predicate<ToolKind> SIZED = PERFTEST.and(ATOMIC.negate());

    private static final List<ToolFlag> FLAGS = List.of(
        flag("[-d IFACE | --driver DIR]", EVERY).help(
            "  -d, --ib-dev DEVICE     the interface (eth0) or the device on it by devinfo's hca_id (rnic_eth0), as",
            "                          perftest's -d names a device (default: the first interface up); --iface too.",
            "                          One up without a carrier (just brought up) is waited for " +
                InterfaceState.GRACE_MS_DEFAULT + " ms, then",
            "                          refused (RNIC_JAVA_OPTS=-D" + InterfaceState.GRACE_MS_PROP_NAME +
                "=MS for another grace)",
            "  --driver DIR            run as a client of the rnic driver serving DIR (bin/rnic driver -d IFACE, by",
            "                          default /dev/shm/rnic-IFACE) instead of starting an engine on the port: QPs,",
            "                          memory and CQs are the driver's, shared with its other clients; the test runs",
            "                          on one thread of the tool's own (--idle, backoff by default; --cpu pins it)",
            "                          and the counters shown are the driver's. The port is the driver's business:",
            "                          -d, --port, --eal, --ip, --engines, --qdisc-bypass, --pcap, --cc, --cc-param,",
            "                          --vlan, --cnp-dscp and --cnp-prio are refused with it (give the port's to",
            "                          bin/rnic driver). Without --driver, an interface a driver holds is refused",
            "                          (its lock names --driver)."),
        flag("[-i IB_PORT]", EVERY).help(
            "  -i, --ib-port 1         the device's port, as perftest's and rdma-core's -i: it has one, 1"),
        flag("[-s SIZE]", EVERY).help(
            "  -s, --size SIZE         the message size: " + Arguments.SIZE_FORMS + ";",
            "                          1.." + ToolOptions.MAX_SIZE_BYTES + " bytes (a QP's two buffers share one region)"),
        flag("[-n ITERS]", EVERY).longForms("-n --iters"),
        flag("[-m MTU]", EVERY).longForms("-m --mtu"),
        flag("[-x GID_INDEX]", PERFTEST).longForms("-x --gid-index"),
        flag("[-g GID_INDEX]", PINGPONG).longForms("-g --gid-idx"),
        flag("[-p TCP_PORT]", EVERY),
        flag("[-q QPS]", QPS).longForms("-q --qp"),
        flag("[-R]", PERFTEST).help(
            "  -R, --rdma-cm           perftest's -R: no TCP; the exchange runs over a QP the RDMA CM connects to",
            "                          port -p, and each test QP (-q N, as perftest's: give both sides the same)",
            "                          over a CM connection of its own to that port. A refused connection says",
            "                          \"rejected: reason N (NAME)\" (IB_CM_REJ_*). With --driver, the driver's RDMA",
            "                          CM: a server's -p port is this client's while it listens."),
        flag("[--warmup N]", EVERY).help(
            "  --warmup N              iterations before the measurement, at every size (default 5000, latency",
            "                          tools 1000, but no more than 64 MiB of messages: -s 1M warms up with 64;",
            "                          a multiple of -l; none against perftest)"),
        flag("[-u QP_TIMEOUT]", EVERY).longForms("-u --qp-timeout"),
        flag("[-t TX_DEPTH]", BANDWIDTH).longForms("-t --tx-depth"),
        flag("[-A CMP_AND_SWAP|FETCH_AND_ADD]", ATOMIC).longForms("-A --atomic_type --atomic-type"),
        flag("[-r RX_DEPTH]", SEND).longForms("-r --rx-depth"),
        flag("[--imm]", SEND.and(NOT_SRQ)),
        flag("[--verify]", NOT_SRQ),
        flag("[--pcap FILE]", EVERY),
        flag("[--hlog FILE]", EVERY),
        flag("[--cpu N]", EVERY),
        flag("[--engines N]", EVERY),
        flag("[--qdisc-bypass]", EVERY),
        flag("[--idle " + IdleStrategies.NAMES.replace(", ", "|") + "]", EVERY),
        flag("[--timeout-ms MS]", EVERY).help(
            "  --timeout-ms MS         the test's time limit once connected (default 60000): a run that has not",
            "                          finished by then fails with its counters. Waiting for the peer's end (a",
            "                          server through -a's sizes), a side waits on while the peer's packets arrive"),
        flag("[--port afpacket|dpdk]", EVERY),
        flag("[--eal \"EAL ARGS\"]", EVERY).help(
            "  --eal \"ARGS\"            DPDK: EAL's arguments (default --no-huge -m 512 --no-shconf --no-pci). EAL's",
            "                          start-up output shows only its warnings and errors (all of it with",
            "                          RNIC_DEBUG set); a failure is one line. No hugepages reserved: --no-huge -m 512"),
        flag("[--port-mtu BYTES]", EVERY).help(
            "  --port-mtu BYTES        DPDK: the device's Ethernet MTU (default 4200, so path MTU 4096, where the",
            "                          device carries it: a memif needs bsize=8192 in its --vdev, at both ends;",
            "                          else the device's own)"),
        flag("[--ip ADDR/PREFIX]...", EVERY),
        flag("[--oob HOST[:PORT]]", EVERY).help(
            "  --oob HOST[:PORT]       where the TCP exchange runs: the client connects there, the server listens",
            "                          there. A --port dpdk client needs it: the kernel owns none of the port's",
            "                          addresses (--oob 127.0.0.1 when both ends run on this machine)"),
        flag("[--cc dcqcn|none]", EVERY),
        flag("[--cc-param NAME=VALUE]...", EVERY),
        flag("[--vlan ID]", EVERY),
        flag("[--cnp-dscp DSCP]", EVERY),
        flag("[--cnp-prio PRIO]", EVERY),
        // output and measurement, as perftest's
        helpOnly(PERFTEST,
            "  Results print in perftest's table (its header, columns and definitions), then rnic's percentiles."),
        flag("[--report_gbits]", PERFTEST).help(
            "  --report_gbits          bandwidth in Gb/sec instead of MB/sec (2^20 bytes), as perftest's"),
        flag("[--out_json]", PERFTEST).help(
            "  --out_json              also write perftest's JSON report to perftest_out.json (working directory)"),
        flag("[--out_json_file PATH]", PERFTEST).help(
            "  --out_json_file PATH    ... to PATH instead"),
        flag("[-U]", LATENCY).help(
            "  -U, --report-unsorted   print every sample (in order, then sorted), as perftest's -U"),
        flag("[-D SECONDS]", PERFTEST).help(
            "  -D, --duration SECONDS  run for a time: perftest's warm-up, measurement and cool-down (a quarter each",
            "                          side, whole seconds); iterations count in the measurement only"),
        flag("[--run_infinitely]", BANDWIDTH).help(
            "  --run_infinitely        a line every -D seconds (5) until SIGINT or SIGTERM"),
        flag("[-a]", SIZED).help(
            "  -a, --all               every size from 2 B to 8 MiB, one line each (RC and UC; not -c UD)"),
        // rnic's own, in the help only
        helpOnly(EVERY,
            "  --sge N                 each message over N scatter/gather entries, contiguous (default 1; up to 16)",
            "  --accept-timeout-ms MS  a server gives up when no client has connected within MS; without it a server",
            "                          waits for its client as long as it takes, as perftest's does",
            "  --debug                 when a run fails, also each QP's transport state (PSNs, timers, queues)",
            "                          and the port's receive ring (frames waiting, the engine's next slot)"),
        helpOnly(PERFTEST,
            "  -V, --version           rnic's version, as perftest's -V (bin/rnic --version)"),
        helpOnly(EVERY,
            "  -h, --help              this help"));

    /** The widest line of the help. */
    private static final int HELP_WIDTH = 112;

    private ToolFlags()
    {
    }

    /** "Long forms: -n --iters, -m --mtu, ...", wrapped under itself at the help's width. */
    private static String longForms(final List<String> forms)
    {
        final StringBuilder text = new StringBuilder("  Long forms:");
        int lineStart = 0;
        for (int i = 0; i < forms.size(); i++)
        {
            final String form = forms.get(i) + (i == forms.size() - 1 ? "." : ",");
            if (text.length() - lineStart + 1 + form.length() > HELP_WIDTH)
            {
                text.append('\n');
                lineStart = text.length();
                text.append("             ");
            }
            text.append(' ').append(form);
        }
        return text.toString();
    }

    /** The command and the options {@code kind} takes. */
    static String synopsis(final ToolKind kind)
    {
        final StringBuilder text = new StringBuilder(kind.command());
        for (final ToolFlag flag : FLAGS)
        {
            if (flag.synopsis() != null && flag.appliesTo(kind))
            {
                text.append(' ').append(flag.synopsis());
            }
        }
        return text.append(" [SERVER_ADDRESS]").toString();
    }

    /** What {@code rnic help TOOL} prints after the synopsis and summary: the options {@code kind} takes. */
    static String help(final ToolKind kind)
    {
        final List<String> blocks = new ArrayList<>();
        final List<String> longForms = new ArrayList<>();
        for (final ToolFlag flag : FLAGS)
        {
            if (flag.appliesTo(kind) && flag.help() != null)
            {
                blocks.add(flag.help());
            }
            if (flag.appliesTo(kind) && flag.longForms() != null)
            {
                longForms.add(flag.longForms());
            }
        }
        blocks.add(PerftestFlags.details(kind).stripTrailing());
        blocks.add(longForms(longForms));
        blocks.add("  --port N is the TCP port (-p N), --port afpacket|dpdk the packet port.");
        return String.join("\n", blocks);
    }
}
