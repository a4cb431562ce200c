package io.rnic.cli;

import io.rnic.sim.LinkConditions;
import io.rnic.simulation.SimulationReport;
import io.rnic.simulation.Workload;
import io.rnic.tools.UsageException;
import io.rnic.tools.options.CommandLine;
import io.rnic.tools.options.GivenOption;
import io.rnic.tools.options.OptionHelp;
import io.rnic.transport.Timeouts;
import io.rnic.verbs.MemoryRegionTable;
import io.rnic.verbs.PathMtu;

import java.io.PrintStream;
import java.lang.management.ManagementFactory;

/**
 * {@code rnic simulate}: runs a randomised RC workload between two engines over a simulated link that loses,
 * reorders, duplicates and corrupts frames (deterministically for a seed), checks every byte and completion, and
 * prints what it took: operations, bytes, retransmissions, NAKs by code, simulated and wall time.
 * Exit status 0 when everything matched, 1 on any mismatch or a stall.
 */
final class SimulateCommand
{
    static final String SYNOPSIS = OptionHelp.synopsis("simulate", "");
    static final String DETAILS = OptionHelp.help("simulate");

    /** The most QPs a run may have: each has its own regions and CQs on both engines. */
    static final int MAX_QPS = 1024;
    private static final double GIB = 1L << 30;

    private SimulateCommand()
    {
    }

    static int run(final String[] args, final PrintStream out, final PrintStream err)
    {
        return run(args, out, err, Progress.onTerminal(out));
    }

    /** As {@link #run(String[], PrintStream, PrintStream)}, its progress shown on a terminal only. */
    static int run(final String[] args, final PrintStream out, final PrintStream err, final Progress progress)
    {
        final Workload.Config config = new Workload.Config();
        final LinkConditions conditions = new LinkConditions();
        config.conditions = conditions;
        for (final GivenOption given : CommandLine.parse("simulate", args).optionsOnly())
        {
            switch (given.option())
            {
                case OPS -> config.operations = given.number();
                case SIMULATE_QPS -> config.qps = given.intValue();
                case MAX_SIZE -> config.maxSize = given.intValue();
                case LOSS -> conditions.loss(given.decimal());
                case REORDER -> conditions.reorder(given.decimal());
                case DUPLICATE -> conditions.duplicate(given.decimal());
                case CORRUPT -> conditions.corrupt(given.decimal());
                case DELAY_NS -> conditions.delayNs(given.number());
                case SEED -> config.seed = given.number();
                case MTU -> config.mtu = PathMtu.ofBytes(Integer.parseInt(given.text()));
                case OPS_MIX -> mix(config, given.text());
                case RETRY_CNT -> config.retryCount = given.intValue();
                case RNR_RETRY -> config.rnrRetry = given.intValue();
                case ACK_TIMEOUT -> config.timeout = given.intValue();
                default -> throw given.notHandled("simulate");
            }
        }
        if (conditions.loss >= 1.0)
        {
            throw new UsageException("--loss 1 loses every frame: nothing can complete");
        }
        checkMemory(config);

        out.printf("simulating %,d operations on %d QPs, sizes 0..%,d B, MTU %d, seed %d, link: %s%n",
            config.operations, config.qps, config.maxSize, config.mtu.bytes(), config.seed, conditions);
        out.printf("QPs: retry_cnt %d, rnr_retry %d, timeout %d (%s)%n", config.retryCount, config.rnrRetry,
            config.timeout, config.timeout == 0 ? "none" : String.format("%.3f ms",
            Timeouts.localAckTimeoutNs(config.timeout) / 1e6));
        if (progress.enabled())
        {
            config.progressIntervalNs = progress.intervalNs();
            config.progress = done -> progress.show(String.format("%,d of %,d operations completed", done,
                config.operations));
        }
        final SimulationReport report = Workload.run(config);
        progress.clear();
        out.print(report.summary());
        return report.passed() ? 0 : 1;
    }

    /**
     * Refuses, before anything is allocated, a run whose regions a memory region cannot hold or whose memory is more
     * than the machine has: each QP has a region on each side, a slot per operation in flight, each slot the next
     * power of two of {@code --max-size}.
     */
    private static void checkMemory(final Workload.Config config)
    {
        final long regionBytes = Workload.regionBytes(config);
        if (regionBytes > MemoryRegionTable.MAX_REGION_BYTES)
        {
            final long largest = Long.highestOneBit((MemoryRegionTable.MAX_REGION_BYTES - 4096) / config.inFlightPerQp);
            throw new UsageException("--max-size " + config.maxSize + " needs regions of " + regionBytes + " bytes (" +
                config.inFlightPerQp + " operations in flight per QP); a memory region holds at most " +
                MemoryRegionTable.MAX_REGION_BYTES + " (max_mr_size): use --max-size " + largest + " or less");
        }
        final long totalBytes = 2L * config.qps * regionBytes;
        final long machineBytes =
            ((com.sun.management.OperatingSystemMXBean)ManagementFactory.getOperatingSystemMXBean()).getTotalMemorySize();
        if (machineBytes > 0 && totalBytes > machineBytes)
        {
            throw new UsageException(String.format("--qps %d with --max-size %d needs %.1f GiB of regions (2 sides x " +
                "%d QPs x %,d bytes), more than this machine's %.1f GiB: lower --qps or --max-size", config.qps,
                config.maxSize, totalBytes / GIB, config.qps, regionBytes, machineBytes / GIB));
        }
    }

    private static void mix(final Workload.Config config, final String value)
    {
        config.writes = false;
        config.reads = false;
        config.sends = false;
        config.atomics = false;
        config.atomicWrites = false;
        config.flushes = false;
        for (final String op : value.split(","))
        {
            switch (op.trim())
            {
                case "write" -> config.writes = true;
                case "read" -> config.reads = true;
                case "send" -> config.sends = true;
                case "atomic" -> config.atomics = true;
                case "atomic_write" -> config.atomicWrites = true;
                case "flush" -> config.flushes = true;
                case "srq" ->
                {
                    config.sends = true; // SENDs, received through one SRQ all of B's QPs share
                    config.srq = true;
                }
                case "mw" -> config.windows = true;
                default -> throw new UsageException(
                    "--ops-mix takes write,read,send,atomic,atomic_write,flush,srq,mw; not '" + op + "'");
            }
        }
    }
}
