package io.rnic.tools.perftest;

import io.rnic.tools.ToolKind;
import io.rnic.tools.UsageException;
import io.rnic.verbs.QpType;

import static io.rnic.tools.Arguments.number;

/**
 * The flags perftest and rdma-core's pingpongs users reach for, with the letters, long names, defaults and refusals
 * of perftest 4.5 ({@code perftest_parameters.c}) and rdma-core ({@code libibverbs/examples/rc_pingpong.c}). Kept
 * apart from {@link ToolOptions}, which hands each option here first.
 * <p>
 * The same letter means different things in the two families: {@code -c} is perftest's connection type but the
 * pingpongs' {@code --chk}, {@code -l} perftest's post list but the pingpongs' service level, {@code -t} perftest's
 * TX depth but the pingpongs' {@code --ts}.
 */
public final class PerftestFlags
{
    /** perftest's {@code MAX_INLINE}. */
    public static final int MAX_INLINE = 1024;
    /** perftest's {@code MIN_CQ_MOD} and {@code MAX_CQ_MOD}. */
    public static final int MAX_CQ_MOD = 1024;

    /** {@code -c}: the QP type, null for the tool's own (RC, or the pingpong's). */
    public QpType connection;
    /** {@code -b}: both sides send (bandwidth tests). */
    public boolean bidirectional;
    /**
     * {@code -I}: perftest's maximum inline size, -1 when not given. Accepted and without effect: inline saves a
     * NIC's DMA read of the payload, and a software engine reads the payload from memory either way.
     */
    public int inlineSize = -1;
    /** {@code --tclass}: the GRH traffic class (DSCP in its upper six bits, written into the IP header). */
    public int trafficClass;
    /** {@code -T}/{@code --tos}: the RDMA CM's type of service (with {@code -R}), -1 when not given. */
    public int typeOfService = -1;
    /** {@code -S}/{@code --sl}, and the pingpongs' {@code -l}: the service level in the address vector. */
    public int serviceLevel;
    /** {@code -e}: wait for completion events (the CQ's notification) rather than polling every cycle. */
    public boolean events;
    /** {@code -l}: send work requests posted together; 1 posts one at a time. */
    public int postList = 1;
    /** {@code -Q}: one send in this many is signaled; 0 when not given (ours: half the TX depth, at most 64). */
    public int cqMod;
    /** {@code -w}/{@code --limit_bw}: the run fails below this average bandwidth in MB/sec (2^20 B/s); -1: none. */
    public double limitBwMbps = -1;
    /** {@code --rate_limit}: at most this many bits per second leave the sender (the software limiter); 0: none. */
    public double rateLimitBitsPerSec;
    private double rateLimit;
    private String rateUnits = "g";
    private String rateLimitType;
    /** The pingpongs' {@code -o}/{@code --odp} and {@code -P}/{@code --prefetch} (both no-ops here). */
    public boolean odp;
    public boolean prefetch;

    /** Whether {@code option} is one of ours that takes no value, for this kind of tool; sets it when so. */
    boolean consumeSwitch(final ToolKind kind, final String option, final ToolOptions options)
    {
        if (kind.isPingpong())
        {
            switch (option)
            {
                case "-c", "--chk" -> options.verify = true;
                case "-e", "--events" -> events = true;
                case "-o", "--odp" -> odp = true;
                case "-P", "--prefetch" -> prefetch = true;
                case "-t", "--ts" -> throw new UsageException(option + " (completion timestamps): the engine " +
                    "does not timestamp completions");
                default ->
                {
                    return false;
                }
            }
            return true;
        }
        switch (option)
        {
            case "-b", "--bidirectional" ->
            {
                if (kind.isLatency())
                {
                    throw new UsageException(" Bidirectional is only available in BW test");
                }
                bidirectional = true;
            }
            case "-e", "--events" -> events = true;
            case "-F", "--CPU-freq" ->
            {
                // perftest's -F silences its cpufreq warning; we print none
            }
            default ->
            {
                return false;
            }
        }
        return true;
    }

    /** Whether {@code option} is one of ours that takes a value; sets it when so. */
    boolean consumeValue(final ToolKind kind, final String option, final String value)
    {
        if (kind.isPingpong())
        {
            if (option.equals("-l") || option.equals("--sl"))
            {
                serviceLevel = (int)number(option, value, 0, 7);
                return true;
            }
            return false;
        }
        switch (option)
        {
            case "-c", "--connection" -> connection = connection(kind, value);
            case "-I", "--inline_size" ->
            {
                inlineSize = (int)number(option, value, 0, MAX_INLINE);
                final ToolKind.Operation operation = kind.operation();
                if (operation == ToolKind.Operation.READ || operation == ToolKind.Operation.ATOMIC)
                {
                    throw new UsageException(" Inline feature not available on READ/Atomic verbs");
                }
            }
            case "--tclass" -> trafficClass = (int)number(option, value, 0, 255);
            case "-T", "--tos" -> typeOfService = (int)number(option, value, 0, 255);
            case "-S", "--sl" -> serviceLevel = (int)number(option, value, 0, 7);
            case "-l", "--post_list" -> postList = (int)number(option, value, 1, 8192);
            case "-Q", "--cq-mod" -> cqMod = (int)number(option, value, 1, MAX_CQ_MOD);
            case "-w", "--limit_bw" -> limitBwMbps = positive(option, value, true);
            case "--rate_limit" -> rateLimit = positive(option, value, false);
            case "--rate_units" ->
            {
                if (!value.equals("M") && !value.equals("g") && !value.equals("p"))
                {
                    throw new UsageException(" Invalid rate limit units. Please use M,g or p");
                }
                rateUnits = value;
            }
            case "--rate_limit_type" ->
            {
                if (!value.equals("SW") && !value.equals("HW") && !value.equals("PP"))
                {
                    throw new UsageException(" Invalid rate limit type flag. Please use HW, SW or PP.");
                }
                rateLimitType = value;
            }
            default ->
            {
                return false;
            }
        }
        return true;
    }

    /** perftest's {@code change_conn_type}: what each verb allows, in its words. */
    private static QpType connection(final ToolKind kind, final String value)
    {
        final ToolKind.Operation operation = kind.operation();
        switch (value)
        {
            case "RC" ->
            {
                return QpType.RC;
            }
            case "UC" ->
            {
                if (operation == ToolKind.Operation.READ || operation == ToolKind.Operation.ATOMIC)
                {
                    throw new UsageException(" UC connection not possible in READ/ATOMIC verbs");
                }
                return QpType.UC;
            }
            case "UD" ->
            {
                if (operation != ToolKind.Operation.SEND)
                {
                    throw new UsageException(" UD connection only possible in SEND verb");
                }
                return QpType.UD;
            }
            case "XRC", "DC", "SRD", "RawEth" -> throw new UsageException(" " + value + " is not supported by rnic: " +
                "-c takes RC, UC or UD");
            default -> throw new UsageException(" Invalid Connection type. Please choose from {RC,UC,UD,XRC,DC,SRD}");
        }
    }

    private static double positive(final String option, final String value, final boolean zeroAllowed)
    {
        final double n;
        try
        {
            n = Double.parseDouble(value);
        }
        catch (final NumberFormatException ex)
        {
            throw new UsageException(option + " takes a number, not '" + value + "'");
        }
        if (!(n > 0 || zeroAllowed && n == 0) || Double.isInfinite(n))
        {
            throw new UsageException(option + " " + value + ": must be " + (zeroAllowed ? "0 or more" : "above 0"));
        }
        return n;
    }

    /** The QP type the tool runs: {@code -c}'s, else the tool's own. */
    public QpType qpType(final ToolKind kind)
    {
        return connection != null ? connection : kind.qpType();
    }

    /** The checks perftest makes once every option is read. */
    void check(final ToolOptions options)
    {
        final ToolKind kind = options.kind;
        final ToolKind.Operation operation = kind.operation();
        if (events && operation == ToolKind.Operation.WRITE)
        {
            throw new UsageException(" Events feature not available on WRITE verb");
        }
        if (typeOfService >= 0 && !options.rdmaCm)
        {
            throw new UsageException("-T/--tos sets the RDMA CM's type of service: available only with -R (use " +
                "--tclass for the traffic class of QPs connected without the CM)");
        }
        if (options.rdmaCm && (trafficClass != 0 || serviceLevel != 0))
        {
            throw new UsageException("--tclass and -S do not apply with -R: the RDMA CM sets the QP's address (-T " +
                "sets its type of service)");
        }
        if (options.rdmaCm && connection != null && connection != QpType.RC)
        {
            throw new UsageException("-R connects RC QPs: -c " + connection + " is not supported with it");
        }
        if (bidirectional)
        {
            checkBidirectional(options);
        }
        if (connection == QpType.UD && options.allSizes)
        {
            throw new UsageException("-a runs RC and UC: a UD message is one packet, and 8 MiB is not");
        }
        if (connection == QpType.UD && options.mtu != 0 && options.size > options.mtu)
        {
            throw new UsageException("a UD message is one packet: -s " + options.size + " is larger than the MTU " +
                options.mtu);
        }
        if (postList > 1)
        {
            checkPostList(options);
        }
        if (rateLimit > 0 || rateLimitType != null)
        {
            checkRateLimit(options);
        }
        if (limitBwMbps >= 0 && kind.isLatency())
        {
            throw new UsageException("-w (--limit_bw) applies to bandwidth tests");
        }
        if (cqMod > 0 && kind.isLatency())
        {
            throw new UsageException("-Q (--cq-mod) applies to bandwidth tests");
        }
        if (prefetch && !odp)
        {
            throw new UsageException("-P (--prefetch) prefetches an ODP region: it needs -o");
        }
    }

    /** {@code -b}: WRITE, READ and atomic bandwidth, both sides running the test; checked by neither. */
    private static void checkBidirectional(final ToolOptions options)
    {
        if (options.kind.operation() == ToolKind.Operation.SEND)
        {
            throw new UsageException("-b (bidirectional) is not supported by rnic for SEND yet: run a second pair " +
                "the other way");
        }
        if (options.verify)
        {
            throw new UsageException("-b does not run with --verify: each side checks only what its peer wrote when " +
                "it alone sends");
        }
        if (options.rdmaCm)
        {
            throw new UsageException("-b does not run with -R yet");
        }
    }

    private void checkPostList(final ToolOptions options)
    {
        if (options.kind.isLatency())
        {
            throw new UsageException("-l (--post_list) applies to bandwidth tests");
        }
        if (options.verify)
        {
            throw new UsageException(" --verify is incompatible with --post_list > 1");
        }
        if (options.iterations % postList != 0 || options.warmup % postList != 0)
        {
            throw new UsageException("Number of iterations must be a multiple of post list size (-n " +
                options.iterations + ", --warmup " + options.warmup + ", -l " + postList + ")");
        }
        if (postList > options.txDepth)
        {
            throw new UsageException("-l " + postList + " is more than the TX depth -t " + options.txDepth);
        }
        if (cqMod == 0)
        {
            cqMod = postList; // perftest: "Post List requested - CQ moderation will be the size of the post list"
        }
        else if (postList % cqMod != 0)
        {
            throw new UsageException("Post list size must be a multiple of CQ moderation");
        }
    }

    private void checkRateLimit(final ToolOptions options)
    {
        if (rateLimit <= 0)
        {
            throw new UsageException("--rate_limit_type needs --rate_limit=<rate>");
        }
        if (rateLimitType != null && !rateLimitType.equals("SW"))
        {
            throw new UsageException("--rate_limit_type " + rateLimitType + ": a software RNIC has no hardware " +
                "rate limiter; use SW (the default here)");
        }
        final ToolKind kind = options.kind;
        if (kind.isLatency() || kind.operation() == ToolKind.Operation.ATOMIC)
        {
            throw new UsageException("SW Rate limiter cann't be executed on non-BW, ATOMIC or bidirectional SEND / " +
                "SEND_IMM tests");
        }
        rateLimitBitsPerSec = switch (rateUnits)
        {
            case "M" -> rateLimit * 8 * (1 << 20);
            case "p" -> rateLimit * 8 * options.size;
            default -> rateLimit * 1e9;
        };
    }

    /** What {@code rnic help TOOL} shows of these flags. */
    public static String details(final ToolKind kind)
    {
        if (kind.isPingpong())
        {
            return String.join("\n",
                "  rdma-core's flags:",
                kind == ToolKind.SRQ_PINGPONG ? "  (no -c: ibv_srq_pingpong has none)" :
                "  -c, --chk       check the data received (as --verify)",
                "  -e, --events    wait for completion events (the CQ's notification) instead of polling each cycle",
                "  -l, --sl SL     service level (0-7) in the address vector; no VLAN is written, so not on the wire",
                "  -o, --odp       accepted: the engine's regions are always resident, as an ODP region once faulted",
                "  -P, --prefetch  accepted with -o (nothing to prefetch)",
                "  (no -t, --ts: the engine does not timestamp completions)",
                "  GIDs print as inet_ntop prints them (::ffff:10.91.0.1, fd91::1).");
        }
        final ToolKind.Operation operation = kind.operation();
        final StringBuilder text = new StringBuilder("  perftest's flags:\n");
        final String connections = switch (operation)
        {
            case SEND -> "RC, UC or UD";
            case WRITE -> "RC or UC";
            default -> "RC";
        };
        text.append("  -c, --connection TYPE  ").append(connections).append(" (default RC), the same on both sides\n");
        if (operation == ToolKind.Operation.WRITE || operation == ToolKind.Operation.SEND)
        {
            text.append("  -I, --inline_size N    0-1024, accepted and without effect: inline saves a NIC's DMA " +
                "read of the\n                         payload; a software engine reads it from memory either way " +
                "(README)\n");
        }
        text.append("  --tclass TC            GRH traffic class; its upper six bits are the DSCP of every packet\n");
        text.append("  -T, --tos TOS          the RDMA CM's type of service, with -R: the DSCP of the test QP (the " +
            "exchange's\n                         QP is connected without it, as perftest's)\n");
        text.append("  -S, --sl SL            service level (0-7) in the address vector: the 802.1Q PCP of every " +
            "frame on a\n                         tagged port (--vlan, or -d a kernel VLAN device), else not on " +
            "the wire\n");
        text.append("  --vlan ID              tag every frame with 802.1Q VLAN ID (0-4094), PCP = -S; with -d a " +
            "kernel VLAN\n                         device (veth0.10) the port finds its id and tags on its parent " +
            "itself\n");
        text.append("  --cnp-dscp DSCP        the DSCP of the CNPs this endpoint sends (0-63; default 48, " +
            "ConnectX's)\n");
        text.append("  --cnp-prio PRIO        the 802.1Q priority of its CNPs on a tagged port (0-7; default 6, " +
            "ConnectX's)\n");
        text.append("  -F, --CPU-freq         accepted (no cpufreq warning is printed)\n");
        if (operation != ToolKind.Operation.WRITE)
        {
            text.append("  -e, --events           wait for completion events (the CQ's notification) instead of " +
                "polling\n");
        }
        if (!kind.isLatency())
        {
            text.append("  -l, --post_list N      post N send WRs together (default 1); -Q defaults to N\n");
            text.append("  -Q, --cq-mod N         signal one send in N (1-1024; default half of -t, at most 64)\n");
            text.append("  -w, --limit_bw MBPS    fail when the average bandwidth is below MBPS MB/sec\n");
            if (operation != ToolKind.Operation.ATOMIC)
            {
                text.append("  --rate_limit R         software rate limiter (--rate_limit_type SW, the only one " +
                    "here)\n  --rate_units g|M|p     R in Gb/s (default), MB/sec or messages/s\n");
            }
            if (operation != ToolKind.Operation.SEND)
            {
                // a SEND test's -b is refused: not supported yet
                text.append("  -b, --bidirectional    both sides run the test; each prints its own figure and the sum\n");
            }
        }
        return text.toString();
    }
}
