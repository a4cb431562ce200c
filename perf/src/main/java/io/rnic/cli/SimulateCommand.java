package io.rnic.cli;

import io.rnic.sim.LinkConditions;
import io.rnic.simulation.SimulationReport;
import io.rnic.simulation.Workload;
import io.rnic.tools.Arguments;
import io.rnic.tools.UsageException;
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
    static final String SYNOPSIS = "simulate [--ops N] [--qps Q] [--max-size BYTES] [--loss P] [--reorder P] " +
        "[--dup P] [--corrupt P] [--delay-ns NS] [--seed S] [--mtu 256..4096] " +
        "[--ops-mix write,read,send,atomic,atomic_write,flush[,srq][,mw]] [--retry-cnt 0..7] [--rnr-retry 0..7] " +
        "[--timeout 0..31]";

    /** What {@code rnic help simulate} adds to the synopsis: the QP's retry knobs, in ibverbs' encodings, and the mix. */
    static final String DETAILS = String.join(System.lineSeparator(),
        "--max-size BYTES   the largest operation, 8..1073741824 bytes (default 1 MiB):",
        "                   " + Arguments.SIZE_FORMS,
        "--ops-mix LIST     operations drawn (all by default): write, read, send, atomic (FETCH_ADD/COMPARE_SWAP),",
        "                   atomic_write and flush (IBTA 1.5 ATOMIC WRITE and FLUSH, global visibility)",
        "--retry-cnt 0..7   retry_cnt of every QP: retries in a row without progress (lost requests, ACKs or READ",
        "                   responses) before the WQE fails with RETRY_EXC_ERR; default 7, the IBTA's maximum",
        "--rnr-retry 0..7   rnr_retry: RNR NAKs in a row before RNR_RETRY_EXC_ERR; 7 (the default) = infinite",
        "--timeout 0..31    local ACK timeout, 4.096 us x 2^T; default 8 (1.05 ms); 0 = none (a lost answer then",
        "                   stalls the QP until the run's time budget ends)",
        "--ops-mix ...,srq  SENDs (srq implies send) received through one shared receive queue that every QP of the",
        "                   responding side takes its receives from, each into whichever WQE its QP took first",
        "--ops-mix ...,mw   WRITEs through a type 2B memory window the responder's QP bound and READs through a",
        "                   type 1 window");

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
        for (int i = 0; i < args.length; i++)
        {
            final String option = args[i];
            final String value = Arguments.optionValue(args, ++i, option, SYNOPSIS);
            try
            {
                switch (option)
                {
                    case "--ops" -> config.operations = positiveLong(option, value);
                    case "--qps" -> config.qps = (int)Arguments.number(option, value, 1, MAX_QPS);
                    case "--max-size" -> config.maxSize = (int)Arguments.bytes(option, value, 8, 1 << 30);
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
                    case "--retry-cnt" -> config.retryCount = inRange(option, value, 7, "");
                    case "--rnr-retry" -> config.rnrRetry = inRange(option, value, 7, " (7 = infinite)");
                    case "--timeout" -> config.timeout = inRange(option, value, 31, " (4.096 us x 2^T, 0 = none)");
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

    private static long positiveLong(final String option, final String value)
    {
        final long n = Long.parseLong(value);
        if (n < 1)
        {
            throw new UsageException(option + " must be at least 1, not " + value);
        }
        return n;
    }

    /** An ibverbs attribute from 0 to {@code max}. */
    private static int inRange(final String option, final String value, final int max, final String meaning)
    {
        final int n = Integer.parseInt(value);
        if (n < 0 || n > max)
        {
            throw new UsageException(option + " must be between 0 and " + max + meaning + ", not " + value);
        }
        return n;
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
