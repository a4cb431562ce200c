package io.rnic.tools.perftest;

import io.rnic.tools.ToolKind;
import io.rnic.tools.UsageException;
import io.rnic.tools.options.GivenOption;
import io.rnic.verbs.QpType;
import io.rnic.tools.options.ToolDefaults;

/**
 * The flags perftest and rdma-core's pingpongs users reach for, with the letters, long names, defaults and refusals
 * of perftest 4.5 ({@code perftest_parameters.c}) and rdma-core ({@code libibverbs/examples/rc_pingpong.c}). Declared
 * in the option table ({@link io.rnic.tools.options.CliOption}) with the tools that take them; kept apart from
 * {@link ToolOptions}, which hands each option here first.
 * <p>
 * The same letter means different things in the two families: {@code -c} is perftest's connection type but the
 * pingpongs' {@code --chk}, {@code -l} perftest's post list but the pingpongs' service level, {@code -t} perftest's
 * TX depth but the pingpongs' {@code --ts}.
 */
public final class PerftestFlags
{
    /** perftest's {@code MAX_INLINE}. */
    public static final int MAX_INLINE = ToolDefaults.PERFTEST_MAX_INLINE;
    /** perftest's {@code MIN_CQ_MOD} and {@code MAX_CQ_MOD}. */
    public static final int MAX_CQ_MOD = ToolDefaults.PERFTEST_MAX_CQ_MOD;

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

    /**
     * Whether {@code given} is one of perftest's or rdma-core's letters; sets it when so. The option table gives
     * each tool the ones it takes (perftest's {@code -c} is the pingpongs' {@code --chk}, and so on).
     */
    boolean read(final ToolKind kind, final GivenOption given, final ToolOptions options)
    {
        switch (given.option())
        {
            case CHK -> options.verify = true;
            case EVENTS -> events = true;
            case ODP -> odp = true;
            case PREFETCH -> prefetch = true;
            case PINGPONG_SERVICE_LEVEL, SERVICE_LEVEL -> serviceLevel = given.intValue();
            case BIDIRECTIONAL -> bidirectional = true;
            case CPU_FREQ ->
            {
                // perftest's -F silences its cpufreq warning; we print none
            }
            case CONNECTION -> connection = connection(kind, given.text());
            case INLINE_SIZE -> inlineSize = given.intValue();
            case TCLASS -> trafficClass = given.intValue();
            case TOS -> typeOfService = given.intValue();
            case POST_LIST -> postList = given.intValue();
            case CQ_MOD -> cqMod = given.intValue();
            case LIMIT_BW -> limitBwMbps = given.decimal();
            case RATE_LIMIT ->
            {
                if (given.decimal() <= 0 || Double.isInfinite(given.decimal()))
                {
                    throw new UsageException(given.spelling() + " " + given.text() + ": must be above 0");
                }
                rateLimit = given.decimal();
            }
            case RATE_UNITS -> rateUnits = given.text();
            case RATE_LIMIT_TYPE -> rateLimitType = given.text();
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

    /** The QP type the tool runs: {@code -c}'s, else the tool's own. */
    public QpType qpType(final ToolKind kind)
    {
        return connection != null ? connection : kind.qpType();
    }

    /** The checks perftest makes once every option is read. */
    void check(final ToolOptions options)
    {
        final ToolKind kind = options.kind;
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
        if (prefetch && !odp)
        {
            throw new UsageException("-P (--prefetch) prefetches an ODP region: it needs -o");
        }
    }

    /** {@code -b}: WRITE, READ and atomic bandwidth, both sides running the test; checked by neither. */
    private static void checkBidirectional(final ToolOptions options)
    {
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
        rateLimitBitsPerSec = switch (rateUnits)
        {
            case "M" -> rateLimit * 8 * (1 << 20);
            case "p" -> rateLimit * 8 * options.size;
            default -> rateLimit * 1e9;
        };
    }
}
