package io.rnic.cli;

import io.rnic.tools.Arguments;
import io.rnic.tools.UsageException;

import io.rnic.cc.DcqcnParameters;
import io.rnic.simulation.CongestionPlot;
import io.rnic.simulation.CongestionScenario;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code rnic cc-sim}: the congestion-control scenario of {@link CongestionScenario} (RC flows into one bottleneck
 * with RED/ECN marking, on a virtual clock), run with DCQCN and without congestion control; prints the figures of
 * both and writes their time series (CSV) and one HTML page of charts. Exit status 1 when DCQCN does not converge to
 * a fair share without loss.
 */
final class CcSimCommand
{
    static final String SYNOPSIS = "cc-sim [--flows N] [--params paper|connectx] [--cc-param NAME=VALUE]... " +
        "[--duration-ms MS] [--spacing-ms MS] [--capacity-kb KB] [--seed S] [--out DIR]";

    private CcSimCommand()
    {
    }

    static int run(final String[] args, final PrintStream out, final PrintStream err) throws IOException
    {
        return run(args, out, err, Progress.onTerminal(out));
    }

    /** As {@link #run(String[], PrintStream, PrintStream)}, its progress shown on a terminal only. */
    static int run(final String[] args, final PrintStream out, final PrintStream err, final Progress progress)
        throws IOException
    {
        final CongestionScenario.Config config = new CongestionScenario.Config();
        final List<String> params = new ArrayList<>();
        // not the working directory unless asked: a run from a checkout would leave its files in the repository
        Path outDir = Path.of(System.getProperty("java.io.tmpdir"), "rnic-cc-sim");
        for (int i = 0; i < args.length; i++)
        {
            final String option = args[i];
            final String value = Arguments.optionValue(args, ++i, option, SYNOPSIS);
            switch (option)
            {
                case "--flows" -> config.flows = (int)Arguments.number(option, value, 1, 16);
                case "--params" -> config.dcqcn = switch (value)
                {
                    case "connectx" -> DcqcnParameters.connectX();
                    case "paper" -> DcqcnParameters.paper();
                    default -> throw new UsageException("--params takes connectx or paper, not '" + value + "'");
                };
                case "--cc-param" -> params.add(value);
                case "--duration-ms" -> config.durationNs = Arguments.number(option, value, 1, 10_000) * 1_000_000;
                case "--spacing-ms" -> config.flowStartSpacingNs = Arguments.number(option, value, 0, 10_000) * 1_000_000;
                case "--capacity-kb" -> config.bottleneck.capacityBytes((int)Arguments.number(option, value, 16, 1 << 20) * 1024);
                case "--seed" -> config.seed = Arguments.number(option, value, 0, Long.MAX_VALUE);
                case "--out" -> outDir = Path.of(value);
                default -> throw new UsageException("unknown option " + option);
            }
        }
        for (final String param : params)
        {
            try
            {
                config.dcqcn = config.dcqcn.with(param);
            }
            catch (final IllegalArgumentException ex)
            {
                throw new UsageException(ex.getMessage());
            }
        }
        if ((config.flows - 1) * config.flowStartSpacingNs >= config.durationNs)
        {
            throw new UsageException("the last flow starts after the end: --duration-ms must exceed (flows-1) x " +
                "--spacing-ms");
        }

        if (Files.exists(outDir) && !Files.isDirectory(outDir))
        {
            throw new UsageException("--out " + outDir + ": is a file, not a directory");
        }
        Files.createDirectories(outDir); // before the run: a directory that cannot be made fails now, not after it

        out.println(config.describe());
        final long wallStartNs = System.nanoTime();
        final String[] phase = { "with DCQCN" };
        if (progress.enabled())
        {
            config.progressIntervalNs = progress.intervalNs();
            config.progress = simulatedNs -> progress.show(String.format("%s: %.1f of %.1f ms simulated", phase[0],
                simulatedNs / 1e6, config.durationNs / 1e6));
        }
        final CongestionScenario.Result dcqcn = CongestionScenario.run(config);
        progress.clear();
        out.println("DCQCN parameters: " + dcqcn.dcqcn);
        out.println(dcqcn.summary());
        final DcqcnParameters parameters = config.dcqcn;
        config.dcqcn = null;
        phase[0] = "without congestion control";
        final CongestionScenario.Result none = CongestionScenario.run(config);
        progress.clear();
        config.dcqcn = parameters;
        out.println(none.summary());
        Files.writeString(outDir.resolve("dcqcn.csv"), dcqcn.csv());
        Files.writeString(outDir.resolve("none.csv"), none.csv());
        final Path html = outDir.resolve("cc-sim.html");
        Files.writeString(html, CongestionPlot.html("DCQCN on a simulated bottleneck", dcqcn, none));
        out.printf("wrote %s, %s and %s (%.1f s of wall time)%n", html, outDir.resolve("dcqcn.csv"),
            outDir.resolve("none.csv"), (System.nanoTime() - wallStartNs) / 1e9);
        final boolean ok = dcqcn.drops == 0 && dcqcn.jainIndex >= config.fairJainIndex && dcqcn.convergenceNs >= 0;
        if (!ok)
        {
            err.println("rnic cc-sim: DCQCN did not converge to a fair share without loss");
        }
        return ok ? 0 : 1;
    }
}
