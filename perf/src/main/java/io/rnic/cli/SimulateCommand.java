package io.rnic.cli;

import io.rnic.sim.LinkConditions;
import io.rnic.sim.SimulationReport;
import io.rnic.sim.Workload;
import io.rnic.verbs.PathMtu;

import java.io.PrintStream;

/**
 * {@code rnic simulate}: runs a randomised RC workload between two engines over a simulated link that loses,
 * reorders, duplicates and corrupts frames (deterministically for a seed), checks every byte and completion, and
 * prints what it took: operations, bytes, retransmissions, NAKs by code, simulated and wall time.
 * Exit status 0 when everything matched, 1 on any mismatch or a stall.
 */
final class SimulateCommand
{
    static final String SYNOPSIS = "simulate [--ops N] [--qps Q] [--max-size BYTES] [--loss P] [--reorder P] " +
        "[--dup P] [--corrupt P] [--delay-ns NS] [--seed S] [--mtu 256..4096] [--ops-mix write,read,send,atomic]";

    private SimulateCommand()
    {
    }

    static int run(final String[] args, final PrintStream out, final PrintStream err)
    {
        final Workload.Config config = new Workload.Config();
        final LinkConditions conditions = new LinkConditions();
        config.conditions = conditions;
        for (int i = 0; i < args.length; i++)
        {
            final String option = args[i];
            if (i + 1 >= args.length)
            {
                throw new UsageException(option.startsWith("--") ? option + " needs a value" : "unknown argument " + option);
            }
            final String value = args[++i];
            try
            {
                switch (option)
                {
                    case "--ops" -> config.operations = positiveLong(option, value);
                    case "--qps" -> config.qps = (int)Math.min(1024, positiveLong(option, value));
                    case "--max-size" ->
                    {
                        final long size = Long.parseLong(value);
                        if (size < 8 || size > (1 << 30))
                        {
                            throw new UsageException("--max-size must be between 8 and 1073741824 bytes, not " + value);
                        }
                        config.maxSize = (int)size;
                    }
                    case "--loss" -> conditions.loss(Double.parseDouble(value));
                    case "--reorder" -> conditions.reorder(Double.parseDouble(value));
                    case "--dup" -> conditions.duplicate(Double.parseDouble(value));
                    case "--corrupt" -> conditions.corrupt(Double.parseDouble(value));
                    case "--delay-ns" -> conditions.delayNs(Long.parseLong(value));
                    case "--seed" -> config.seed = Long.parseLong(value);
                    case "--mtu" ->
                    {
                        config.mtu = PathMtu.ofBytes(Integer.parseInt(value));
                        if (config.mtu == null)
                        {
                            throw new UsageException("--mtu must be 256, 512, 1024, 2048 or 4096, not " + value);
                        }
                    }
                    case "--ops-mix" -> mix(config, value);
                    default -> throw new UsageException("unknown option " + option);
                }
            }
            catch (final NumberFormatException ex)
            {
                throw new UsageException(option + " takes a number, not '" + value + "'");
            }
            catch (final IllegalArgumentException ex)
            {
                throw new UsageException(ex.getMessage());
            }
        }
        if (conditions.loss >= 1.0)
        {
            throw new UsageException("--loss 1 loses every frame: nothing can complete");
        }

        out.printf("simulating %,d operations on %d QPs, sizes 0..%,d B, MTU %d, seed %d, link: %s%n",
            config.operations, config.qps, config.maxSize, config.mtu.bytes(), config.seed, conditions);
        final SimulationReport report = Workload.run(config);
        out.print(report.summary());
        return report.passed() ? 0 : 1;
    }

    private static long positiveLong(final String option, final String value)
    {
        final long n = Long.parseLong(value);
        if (n < 1)
        {
            throw new UsageException(option + " must be at least 1, not " + value);
        }
        return n;
    }

    private static void mix(final Workload.Config config, final String value)
    {
        config.writes = false;
        config.reads = false;
        config.sends = false;
        config.atomics = false;
        for (final String op : value.split(","))
        {
            switch (op.trim())
            {
                case "write" -> config.writes = true;
                case "read" -> config.reads = true;
                case "send" -> config.sends = true;
                case "atomic" -> config.atomics = true;
                default -> throw new UsageException("--ops-mix takes write,read,send,atomic; not '" + op + "'");
            }
        }
    }
}
