package io.rnic.cli;

import io.rnic.datapath.affinity.ThreadAffinity;
import io.rnic.tools.ToolKind;
import io.rnic.tools.UsageException;
import io.rnic.tools.perftest.ToolOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A tool's help shows only what the tool takes: every flag its usage lists (in the synopsis, at the start of a help
 * line, or among the long forms) is accepted by its parser, on a minimal command line with that flag.
 */
class ToolUsageTest
{
    private static final String FLAG = "-{1,2}[A-Za-z][\\w-]*";
    private static final Pattern SYNOPSIS_FLAG = Pattern.compile("(?:\\[|\\| )(" + FLAG + ")");
    private static final Pattern HELP_LINE_FLAGS = Pattern.compile("^  (" + FLAG + "(?:, " + FLAG + ")*)");
    private static final Pattern ANY_FLAG = Pattern.compile("(?<![\\w-])" + FLAG);
    /** The flags the launcher answers for every tool, before its parser. */
    private static final Set<String> LAUNCHER_FLAGS = Set.of("-h", "--help", "-V", "--version");

    @TempDir
    Path dir;

    @Test
    void shouldAcceptEveryFlagItsHelpLists()
    {
        final List<String> refused = new ArrayList<>();
        for (final ToolKind kind : ToolKind.values())
        {
            final String usage = help(kind.command());
            final Set<String> listed = listedFlags(usage);
            assertTrue(listed.contains("-s") && listed.contains("--help"), usage);
            for (final String flag : listed)
            {
                final List<String> args = sample(kind, flag);
                if (LAUNCHER_FLAGS.contains(flag))
                {
                    final List<String> command = new ArrayList<>(List.of(kind.command()));
                    command.addAll(args);
                    if (run(command.toArray(String[]::new)) != 0)
                    {
                        refused.add(kind.command() + " " + String.join(" ", args) + ": not answered");
                    }
                    continue;
                }
                try
                {
                    ToolOptions.parse(kind, args.toArray(String[]::new));
                }
                catch (final UsageException ex)
                {
                    refused.add(kind.command() + " " + String.join(" ", args) + ": " + ex.getMessage());
                }
            }
        }
        assertEquals(List.of(), refused, "flags a tool's help lists and its parser refuses");
    }

    /** What the issue found: the pingpongs listed perftest's -R, -a, -D and -q, and refused them. */
    @Test
    void shouldNotListPerftestsFlagsForThePingpongs()
    {
        for (final ToolKind kind : List.of(ToolKind.RC_PINGPONG, ToolKind.UD_PINGPONG, ToolKind.UC_PINGPONG))
        {
            final Set<String> listed = listedFlags(help(kind.command()));
            for (final String flag : List.of("-R", "-a", "-q", "-D", "-U", "--run_infinitely", "-t", "-V"))
            {
                assertFalse(listed.contains(flag), kind.command() + " lists " + flag);
            }
            assertTrue(listed.contains("-g") && listed.contains("-c") && listed.contains("-r"), listed.toString());
        }
        assertTrue(listedFlags(help("srq-pingpong")).contains("-q"));
        assertFalse(listedFlags(help("srq-pingpong")).contains("--verify"));
        assertTrue(listedFlags(help("write-bw")).containsAll(List.of("-R", "-a", "-q", "-D", "-x", "-t", "-V")));
        assertFalse(listedFlags(help("atomic-lat")).contains("-a"));
    }

    /** The flags {@code usage} lists: the synopsis', those that begin a help line, and the long forms. */
    static Set<String> listedFlags(final String usage)
    {
        final Set<String> flags = new LinkedHashSet<>();
        final String[] lines = usage.split("\n");
        final Matcher synopsis = SYNOPSIS_FLAG.matcher(lines[0]);
        while (synopsis.find())
        {
            flags.add(synopsis.group(1));
        }
        boolean longForms = false;
        for (int i = 1; i < lines.length; i++)
        {
            final String line = lines[i];
            longForms = line.startsWith("  Long forms:") || longForms && line.startsWith("    ");
            if (longForms)
            {
                final Matcher any = ANY_FLAG.matcher(line);
                while (any.find())
                {
                    flags.add(any.group());
                }
                continue;
            }
            final Matcher helpLine = HELP_LINE_FLAGS.matcher(line);
            if (helpLine.find())
            {
                flags.addAll(List.of(helpLine.group(1).split(", ")));
            }
        }
        return flags;
    }

    /** A minimal command line with {@code flag}: its value, and the flags it needs beside it. */
    private List<String> sample(final ToolKind kind, final String flag)
    {
        final Map<String, List<String>> samples = new HashMap<>();
        final String dpdk = "--port dpdk -d net_null0 --ip 10.0.0.1/24 ";
        for (final String[] each : new String[][]{
            { "-d lo", "-d", "--ib-dev", "--iface" }, { "-i 1", "-i", "--ib-port" }, { "-s 8", "-s", "--size" },
            { "-n 10", "-n", "--iters" }, { "-m 4096", "-m", "--mtu" }, { "-p 18515", "-p" },
            { "-x 0", "-x", "--gid-index", "-g", "--gid-idx" }, { "-q 1", "-q", "--qp" }, { "--warmup 10", "--warmup" },
            { "-u 14", "-u", "--qp-timeout" }, { "-r 64", "-r", "--rx-depth" }, { "--cpu " + firstCpu(), "--cpu" },
            { "-A CMP_AND_SWAP", "-A", "--atomic_type", "--atomic-type" }, { "--engines 1", "--engines" },
            { "--idle backoff", "--idle" }, { "--timeout-ms 1000", "--timeout-ms" }, { "--port afpacket", "--port" },
            { dpdk + "--eal --no-huge", "--eal" }, { dpdk + "--port-mtu 1500", "--port-mtu" }, { dpdk, "--ip" },
            { "--oob 127.0.0.1", "--oob" }, { "--cc dcqcn", "--cc" }, { "--cc dcqcn --cc-param g=1/256", "--cc-param" },
            { "--vlan 10", "--vlan" }, { "--cnp-dscp 48", "--cnp-dscp" }, { "--cnp-prio 6", "--cnp-prio" },
            { "-D 2", "-D", "--duration" }, { "--sge 1", "--sge" }, { "--accept-timeout-ms 100", "--accept-timeout-ms" },
            // perftest's letters and rdma-core's (the same -l, --sl and -c mean other things in the two)
            { "-I 0", "-I", "--inline_size" }, { "--tclass 0", "--tclass" }, { "-R -T 0", "-T", "--tos" },
            { "-S 0", "-S" }, { "-l 1", "-l", "--post_list", "--sl" }, { "-Q 1", "-Q", "--cq-mod" },
            { "-w 0", "-w", "--limit_bw" }, { "--rate_limit 1", "--rate_limit" }, { "--rate_units g", "--rate_units" },
            { "-o -P", "-P", "--prefetch" }, { "--rate_limit 1 --rate_limit_type SW", "--rate_limit_type" },
            { kind.isPingpong() ? "-c" : "-c RC", "-c" }, { "--connection RC", "--connection" },
            { "-t 16", "-t", "--tx-depth" } })
        {
            for (int i = 1; i < each.length; i++)
            {
                final List<String> args = new ArrayList<>(List.of(each[0].trim().split(" ")));
                args.set(args.indexOf(each[1]), each[i]); // the other spelling in place of the first
                samples.put(each[i], args);
            }
        }
        samples.put("--driver", List.of("--driver", dir.toString()));
        samples.put("--pcap", List.of("--pcap", dir.resolve("x.pcap").toString()));
        samples.put("--hlog", List.of("--hlog", dir.resolve("x.hlog").toString()));
        samples.put("--out_json_file", List.of("--out_json_file", dir.resolve("x.json").toString()));
        samples.put("--out-json-file", List.of("--out-json-file", dir.resolve("x.json").toString()));
        return samples.getOrDefault(flag, List.of(flag));
    }

    private static int firstCpu()
    {
        return ThreadAffinity.allowedCpus().nextSetBit(0);
    }

    private static String help(final String command)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertEquals(0, RnicCli.run(new String[]{ "help", command }, new PrintStream(out, true, StandardCharsets.UTF_8),
            System.err));
        final String text = out.toString(StandardCharsets.UTF_8);
        return text.substring("usage: rnic ".length());
    }

    private static int run(final String... args)
    {
        final PrintStream sink = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        return RnicCli.run(args, sink, sink);
    }
}
