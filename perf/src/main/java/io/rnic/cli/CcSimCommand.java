package io.rnic.cli;

import io.rnic.tools.UsageException;
import io.rnic.tools.options.CommandLine;
import io.rnic.tools.options.GivenOption;
import io.rnic.tools.options.OptionHelp;

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
    static final String SYNOPSIS = OptionHelp.synopsis("cc-sim", "");
    static final String DETAILS = OptionHelp.help("cc-sim");

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
        for (final GivenOption given : CommandLine.parse("cc-sim", args).optionsOnly())
        {
            switch (given.option())
            {
                case FLOWS -> config.flows = given.intValue();
                case PARAMS -> config.dcqcn = given.text().equals("paper") ? DcqcnParameters.paper() :
                    DcqcnParameters.connectX();
                case CC_PARAM -> params.add(given.text());
                case DURATION_MS -> config.durationNs = given.number() * 1_000_000;
                case SPACING_MS -> config.flowStartSpacingNs = given.number() * 1_000_000;
                case CAPACITY_KB -> config.bottleneck.capacityBytes(given.intValue() * 1024);
                case SEED -> config.seed = given.number();
                case CC_SIM_OUT -> outDir = given.path();
                default -> throw given.notHandled("cc-sim");
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
