package io.rnic.cli;

import io.rnic.bench.DpdkPingPong;
import io.rnic.tools.ToolKind;
import io.rnic.tools.UsageException;
import io.rnic.tools.mw.MwPeer;
import io.rnic.tools.options.CliOption;
import io.rnic.tools.options.OptionHelp;
import io.rnic.tools.perftest.PerftestFlags;
import io.rnic.tools.perftest.PerftestTool;
import io.rnic.tools.perftest.ToolOptions;
import io.rnic.tools.rping.Rping;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The entry point behind {@code bin/rnic}: one launcher, subcommands named for what users already know.
 * Exit status: 0 success, 1 the command ran and found a problem (a dropped frame, a mismatch), 2 bad usage or
 * an I/O error (with a message on stderr, never a stack trace).
 */
public final class RnicCli
{
    /** A subcommand: runs with its own arguments and returns the exit status. */
    interface Command
    {
        int run(String[] args, PrintStream out, PrintStream err) throws IOException;
    }

    private record Entry(String synopsis, String summary, String details, Command command)
    {
        Entry(final String synopsis, final String summary, final Command command)
        {
            this(synopsis, summary, "", command);
        }
    }

    private static final String JMH_DETAILS = String.join("\n",
        "JMH's own command line (bin/rnic jmh -h lists it all): a regular expression selects benchmarks,",
        "then for example:",
        "  -l              list the benchmarks (IcrcBenchmark, TransportThroughputBenchmark,",
        "                  InboundValidationBenchmark, ShaperBenchmark, IdleQpDutyCycleBenchmark, DpdkBurstBenchmark,",
        "                  DriverRingsBenchmark, DriverHandoffBenchmark)",
        "  -f N -wi N -i N forks, warm-up and measured iterations",
        "  -p NAME=V,...   a benchmark parameter's values (e.g. -p messageBytes=64)",
        "  -prof gc        bytes allocated per operation (the hot path's must be ~0)",
        "BENCHMARKS.md gives the command behind every recorded number.");

    private static final Map<String, Entry> COMMANDS = new LinkedHashMap<>();

    static
    {
        COMMANDS.put("inspect", new Entry(OptionHelp.synopsis("inspect", "FILE.pcap|FILE.pcapng ..."),
            "decode every frame, verify the ICRC, and give the verdict our RNIC would reach (accept, or drop + reason)",
            OptionHelp.help("inspect"), InspectCommand::run));
        COMMANDS.put("simulate", new Entry(SimulateCommand.SYNOPSIS,
            "run a verified RC workload (write/read/send/atomic) between two engines over a simulated link that " +
            "loses, reorders, duplicates and corrupts frames; prints retransmissions, NAKs and time; exit 1 on any " +
            "mismatch",
            SimulateCommand.DETAILS, SimulateCommand::run));
        COMMANDS.put("cc-sim", new Entry(CcSimCommand.SYNOPSIS,
            "congestion control on a simulated bottleneck (RED/ECN marking, tail drop): RC flows with DCQCN and " +
            "without; prints fairness, queue and drops, writes CSV and an HTML plot (into --out DIR, by default " +
            "rnic-cc-sim in the temporary directory, never the working directory); exit 1 if DCQCN is unfair or lossy",
            CcSimCommand.DETAILS, CcSimCommand::run));
        COMMANDS.put("demo", new Entry(OptionHelp.synopsis("demo", ""),
            "wire-format self-check: build every RoCEv2 opcode (IPv4/IPv6, with/without VLAN), write a pcap, read it " +
            "back through validation (to rnic-demo.pcap in the temporary directory unless --out), and check the shared " +
            "test vectors",
            OptionHelp.help("demo"), DemoCommand::run));
        COMMANDS.put("driver", new Entry(DriverCommand.SYNOPSIS,
            "one endpoint on one port shared by every application of the machine, as a hardware RNIC is: clients " +
            "(the tools with --driver DIR, DriverContext in the library) post and poll through shared memory; " +
            "counters, error log and heartbeat in DIR's CnC file",
            DriverCommand.DETAILS, DriverCommand::run));
        for (final ToolKind kind : ToolKind.values())
        {
            COMMANDS.put(kind.command(), new Entry(ToolOptions.synopsis(kind), toolSummary(kind),
                ToolOptions.help(kind),
                (args, out, err) -> PerftestTool.run(kind, args, out, err)));
        }
        COMMANDS.put("rping", new Entry(Rping.SYNOPSIS,
            "librdmacm's rping: an RC connection made with RDMA CM MADs on QP1 (REQ/REP/RTU, DREQ/DREP, as rdma_cm " +
            "does over RoCEv2), then COUNT pings (the client SENDs its buffers' address and key, the server RDMA " +
            "READs one and WRITEs it back into the other); -v prints each ping's data, -V checks it; interoperates " +
            "with rping -s / rping -c; with --driver DIR through a driver's RDMA CM",
            Rping.DETAILS, Rping::run));
        COMMANDS.put("mw-peer", new Entry(MwPeer.SYNOPSIS,
            "memory windows against deploy/interop/mw_peer.c (rdma-core verbs, e.g. on Linux Soft-RoCE): the peer's " +
            "type 1 and type 2 windows read, written and invalidated by SEND_WITH_INV from here, then ours from " +
            "there, every byte and completion checked on both sides",
            MwPeer.DETAILS, MwPeer::run));
        COMMANDS.put("stat", new Entry(StatCommand.SYNOPSIS,
            "the counters of a running driver, read from its CnC file as AeronStat reads a media driver's: pid, " +
            "heartbeat age, every counter (id: value - label, rxe's hw_counters names), the distinct errors; " +
            "--watch refreshes, --json prints one object per snapshot",
            StatCommand.DETAILS, StatCommand::run));
        COMMANDS.put("devinfo", new Entry(DevinfoCommand.SYNOPSIS,
            "the device of a running driver in ibv_devinfo's layout (-v: ibv_devinfo -v's, with the limits and the " +
            "GID table, GID[i] being the index the tools take as -x i)",
            DevinfoCommand.DETAILS, DevinfoCommand::run));
        COMMANDS.put("dpdk-pingpong", new Entry(DpdkPingPong.SYNOPSIS,
            "the floor of a DPDK round trip: one frame each way on the raw DPDK bindings (no RoCEv2), the server " +
            "sending every frame back; the client prints the round trips' percentiles as write-lat does",
            DpdkPingPong.DETAILS, DpdkPingPong::run));
        COMMANDS.put("jmh", new Entry("jmh [JMH ARGS]",
            "run the JMH benchmarks, from perf/jmh's jar beside this one (e.g. 'bin/rnic jmh IcrcBenchmark -prof gc')",
            JMH_DETAILS, RnicCli::jmh));
        COMMANDS.put("help", new Entry("help [COMMAND]", "this list, or one command's usage",
            (args, out, err) -> args.length == 0 ? help(out) : help(args[0], out, err)));
    }

    private RnicCli()
    {
    }

    /** bin/rnic runs JMH from perf/jmh's benchmarks.jar itself; only {@code java -jar rnic.jar jmh} gets here. */
    private static int jmh(final String[] args, final PrintStream out, final PrintStream err)
    {
        err.println("rnic: the JMH benchmarks are not in rnic.jar: run them with bin/rnic jmh, which builds and runs " +
            "perf/jmh/target/benchmarks.jar");
        return 2;
    }

    private static String toolSummary(final ToolKind kind)
    {
        final String what = switch (kind)
        {
            case RC_PINGPONG -> "RC SEND/RECV ping-pong";
            case UD_PINGPONG -> "UD SEND/RECV ping-pong";
            case UC_PINGPONG -> "UC SEND/RECV ping-pong";
            case SRQ_PINGPONG -> "RC SEND/RECV ping-pong on -q QPs (default 16) sharing one SRQ";
            default -> kind.operation().title().replace('_', ' ') + (kind.isLatency() ? " latency" : " bandwidth");
        };
        return what + " between two endpoints, like " + kind.original() + ": server without an address, client " +
            "with one" + (kind == ToolKind.SRQ_PINGPONG ? "; -r receives in the SRQ (500); -n counts the " +
            "messages of all QPs together, as the original; no -c" : "; --verify checks every byte") +
            (kind.isPingpong() ? "" : "; -R (--rdma-cm) connects with " +
            "the RDMA CM to port -p and runs perftest's exchange over SEND/RECV instead of TCP, as perftest's -R");
    }

    public static void main(final String[] args)
    {
        System.exit(run(args, System.out, System.err));
    }

    static int run(final String[] args, final PrintStream out, final PrintStream err)
    {
        if (args.length == 0)
        {
            help(err); // a script that forgot its command fails, as one with a bad command does
            return 2;
        }
        if ("-h".equals(args[0]) || "--help".equals(args[0]))
        {
            return help(out);
        }
        if ("--version".equals(args[0]) || "-V".equals(args[0]) || asksForVersion(args))
        {
            out.println("rnic " + version() + " (Java " + Runtime.version() + ")");
            return 0;
        }
        final Entry entry = COMMANDS.get(args[0]);
        if (entry == null)
        {
            err.println("rnic: unknown command '" + args[0] + "'. Run 'rnic help' for the list.");
            return 2;
        }
        if (!"jmh".equals(args[0]) && asksForHelp(args))
        {
            return help(args[0], out, err); // JMH has a -h of its own
        }
        try
        {
            return entry.command().run(Arrays.copyOfRange(args, 1, args.length), out, err);
        }
        catch (final UsageException ex)
        {
            err.println("rnic " + args[0] + ": " + ex.getMessage());
            err.println("usage: rnic " + entry.synopsis());
            return 2;
        }
        catch (final IOException ex)
        {
            err.println("rnic " + args[0] + ": " + describe(ex));
            return 2;
        }
        catch (final UncheckedIOException ex)
        {
            err.println("rnic " + args[0] + ": " + (ex.getCause() instanceof FileSystemException fs &&
                ex.getMessage().equals(fs.toString()) ? describe(fs) : ex.getMessage()));
            return 2;
        }
        catch (final RuntimeException ex)
        {
            // an environment problem the lower layers explain (no such interface, no privileges, no answer from the
            // peer): the message, not a stack trace, unless RNIC_DEBUG is set
            err.println("rnic " + args[0] + ": " + (ex.getMessage() != null ? ex.getMessage() : ex.toString()));
            if (System.getenv("RNIC_DEBUG") != null)
            {
                ex.printStackTrace(err);
            }
            return 2;
        }
    }

    /**
     * An I/O error in one line that names the file and the reason: a {@link FileSystemException}'s message is often
     * just the path (NoSuchFileException) or just the reason, so both are put together here.
     */
    static String describe(final IOException ex)
    {
        if (ex instanceof FileSystemException fs && fs.getFile() != null)
        {
            final String reason = fs.getReason() != null ? fs.getReason() : switch (fs)
            {
                case NoSuchFileException ignored -> "no such file or directory";
                case AccessDeniedException ignored -> "permission denied";
                case FileAlreadyExistsException ignored -> "already exists";
                case NotDirectoryException ignored -> "not a directory";
                case DirectoryNotEmptyException ignored -> "directory not empty";
                default -> fs.getClass().getSimpleName();
            };
            return fs.getFile() + (fs.getOtherFile() != null ? " -> " + fs.getOtherFile() : "") + ": " + reason;
        }
        return ex.getMessage() != null ? ex.getMessage() : ex.toString();
    }

    /** The table's {@code -h}/{@code --help} anywhere among a command's arguments (none takes it as a value). */
    private static boolean asksForHelp(final String[] args)
    {
        return given(CliOption.HELP, args);
    }

    /**
     * perftest's {@code -V} ({@code --version}) among a perftest tool's arguments: the table gives it to perftest's
     * tools only (rdma-core's pingpongs have no -V, and rping's {@code -V} validates the data).
     */
    private static boolean asksForVersion(final String[] args)
    {
        return CliOption.VERSION.appliesTo(args[0]) && given(CliOption.VERSION, args);
    }

    private static boolean given(final CliOption option, final String[] args)
    {
        for (int i = 1; i < args.length; i++)
        {
            if (option.spellings().contains(args[i]))
            {
                return true;
            }
        }
        return false;
    }

    /** rnic.jar's version (its manifest's, from the pom), or what runs when the classes are not in the jar. */
    static String version()
    {
        final String version = RnicCli.class.getPackage().getImplementationVersion();
        return version != null ? version : "(classes outside rnic.jar: no version)";
    }

    /** {@code rnic help COMMAND}: its synopsis, what it does, and the details of its flags where it has them. */
    static int help(final String command, final PrintStream out, final PrintStream err)
    {
        final Entry entry = COMMANDS.get(command);
        if (entry == null)
        {
            err.println("rnic help: unknown command '" + command + "'. Run 'rnic help' for the list.");
            return 2;
        }
        out.println("usage: rnic " + entry.synopsis());
        out.println();
        out.println(entry.summary());
        if (!entry.details().isEmpty())
        {
            out.println();
            out.println(entry.details());
        }
        return 0;
    }

    static int help(final PrintStream out)
    {
        out.println("rnic: a software RoCEv2 RNIC for the JVM");
        out.println();
        out.println("usage: bin/rnic COMMAND [ARGS]    (bin/rnic COMMAND --help, bin/rnic --version or -V)");
        out.println();
        for (final Entry entry : COMMANDS.values())
        {
            out.println("  " + entry.synopsis());
            out.println("      " + entry.summary());
        }
        out.println();
        out.println("Exit status: 0 ok, 1 a frame was dropped / a check failed, 2 bad usage or I/O error.");
        return 0;
    }
}
