package io.rnic.pcap;

import org.junit.jupiter.api.Assumptions;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * tshark / editcap for the tests: a test that needs them is skipped when they are missing, unless
 * {@code -Drnic.require.tshark=true} (deploy/test.sh sets it), which turns the skip into a failure.
 */
final class Wireshark
{
    static final String REQUIRE_PROP_NAME = "rnic.require.tshark";

    private Wireshark()
    {
    }

    static Path tool(final String name)
    {
        final String pathEnv = System.getenv().getOrDefault("PATH", "");
        for (final String dir : pathEnv.split(File.pathSeparator))
        {
            final Path candidate = Path.of(dir.isEmpty() ? "." : dir, name);
            if (Files.isExecutable(candidate))
            {
                return candidate;
            }
        }
        final String message = name + " not found on PATH (" + pathEnv + "); install it with " +
            "'apt-get install tshark' (deploy/setup.sh does)";
        if ("true".equals(System.getProperty(REQUIRE_PROP_NAME)))
        {
            fail(message + " — required because -D" + REQUIRE_PROP_NAME + "=true");
        }
        Assumptions.abort(message + "; skipped (set -D" + REQUIRE_PROP_NAME + "=true to fail instead)");
        return null;
    }

    /** Runs a tool, fails unless it exits 0, returns its standard output as lines. */
    static List<String> run(final List<String> command, final Path workDir) throws IOException, InterruptedException
    {
        final Path stderr = Files.createTempFile(workDir, "stderr", ".txt");
        final Process process = new ProcessBuilder(command)
            .redirectError(stderr.toFile())
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
            .start();
        final List<String> lines = new ArrayList<>();
        try (var reader = process.inputReader(StandardCharsets.UTF_8))
        {
            for (String line; (line = reader.readLine()) != null; )
            {
                lines.add(line);
            }
        }
        final int status = process.waitFor();
        assertEquals(0, status, () -> String.join(" ", command) + " failed: " + read(stderr));
        return lines;
    }

    private static String read(final Path file)
    {
        try
        {
            return Files.readString(file);
        }
        catch (final IOException ex)
        {
            return "(" + ex + ")";
        }
    }
}
