package io.rnic.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs {@code deploy/topology.sh}, the one place the veth topologies are written (namespaces, veth pairs, the middle
 * hop, its impairment and its bottleneck), for the tests that need a real kernel interface: what the demo, the
 * benchmarks and the tests run is then the same. Needs root.
 */
public final class TopologyScript
{
    public static final String SCRIPT_PROP_NAME = "rnic.topology.script";

    private TopologyScript()
    {
    }

    /** Whether the tests can make topologies here: root, and iproute2. */
    public static boolean available()
    {
        try
        {
            final Process id = new ProcessBuilder("id", "-u").start();
            final String uid = new String(id.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
            return "0".equals(uid) && new ProcessBuilder("ip", "-V").start().waitFor() == 0;
        }
        catch (final IOException | InterruptedException ex)
        {
            return false;
        }
    }

    /** Runs {@code topology.sh ACTION --name NAME OPTIONS...}; returns its output, or throws with it. */
    public static String run(final String action, final String name, final String... options)
        throws IOException, InterruptedException
    {
        final List<String> command = new ArrayList<>(List.of("bash", script().toString(), action, "--name", name));
        command.addAll(List.of(options));
        final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        final String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0)
        {
            throw new IOException(String.join(" ", command) + " failed: " + output);
        }
        return output;
    }

    /** {@code up ... --env}: the variables it prints (RNIC_NS_A, RNIC_IF_A, RNIC_IP4_A, ...), by name. */
    public static Map<String, String> up(final String name, final String... options)
        throws IOException, InterruptedException
    {
        final List<String> arguments = new ArrayList<>(List.of(options));
        arguments.add("--env");
        final Map<String, String> variables = new HashMap<>();
        for (final String word : run("up", name, arguments.toArray(String[]::new)).trim().split("\\s+"))
        {
            final int equals = word.indexOf('=');
            if (equals > 0)
            {
                variables.put(word.substring(0, equals), word.substring(equals + 1));
            }
        }
        return variables;
    }

    /** {@code down}: removes everything of that name; never throws (a test's close calls it on any failure). */
    public static void down(final String name)
    {
        try
        {
            run("down", name);
        }
        catch (final IOException ex)
        {
            // nothing there, or nothing more to do: down is idempotent
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    private static Path script()
    {
        final String configured = System.getProperty(SCRIPT_PROP_NAME);
        if (configured != null)
        {
            return Path.of(configured);
        }
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent())
        {
            final Path candidate = dir.resolve("deploy/topology.sh");
            if (Files.isRegularFile(candidate))
            {
                return candidate;
            }
        }
        throw new IllegalStateException("deploy/topology.sh not found above " + Path.of("").toAbsolutePath() +
            "; set -D" + SCRIPT_PROP_NAME);
    }
}
