package io.rnic.tools;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** {@code bin/rnic}'s main class run as its own process inside a network namespace, output kept in a file. */
public final class ToolProcess
{
    private final Process process;
    private final Path output;
    private final String description;

    private ToolProcess(final Process process, final Path output, final String description)
    {
        this.process = process;
        this.output = output;
        this.description = description;
    }

    /** @param namespace the network namespace to run in, or null for the test's own. */
    public static ToolProcess start(final String namespace, final List<String> arguments) throws IOException
    {
        final List<String> command = new ArrayList<>();
        if (namespace != null)
        {
            command.addAll(List.of("ip", "netns", "exec", namespace));
        }
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmFlags());
        command.addAll(List.of("-Xmx512m", "-cp", classPath(), "io.rnic.cli.RnicCli"));
        command.addAll(arguments);
        final Path output = Files.createTempFile("rnic-" + arguments.get(0) + "-", ".out");
        final Process process = new ProcessBuilder(command).redirectErrorStream(true)
            .redirectOutput(output.toFile()).start();
        return new ToolProcess(process, output, (namespace == null ? "" : namespace + ": ") + "rnic " +
            String.join(" ", arguments));
    }

    /** bin/rnic's JVM flags: perf/target/jvm.options, which the build filters from the parent pom's flags. */
    private static List<String> jvmFlags() throws IOException
    {
        final String options = System.getProperty("rnic.jvm.options", "target/jvm.options");
        return List.of(Files.readString(Path.of(options), StandardCharsets.UTF_8).trim().split("\\s+"));
    }

    /** Waits for the exit; returns status and output. Kills the process when it overstays. */
    public Result await(final long timeoutSeconds) throws IOException, InterruptedException
    {
        final boolean exited = process.waitFor(timeoutSeconds, TimeUnit.SECONDS);
        if (!exited)
        {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        final String text = Files.readString(output, StandardCharsets.UTF_8);
        Files.deleteIfExists(output);
        return new Result(exited ? process.exitValue() : -1, description + "\n" + text);
    }

    /**
     * Waits until a socket holds the given UDP port in the tool's namespace (its endpoint binds 4791 once its port
     * and engine run, and creates its connection manager next), or the tool has exited: a condition to start the
     * peer on rather than a guessed sleep. Returns whether the port is held.
     */
    public boolean awaitUdpPortBound(final String namespace, final int udpPort, final long timeoutMs)
        throws IOException, InterruptedException
    {
        final long deadlineNs = System.nanoTime() + timeoutMs * 1_000_000L;
        while (System.nanoTime() - deadlineNs < 0)
        {
            final Process ss = new ProcessBuilder("ip", "netns", "exec", namespace, "ss", "-Hlun",
                "sport = :" + udpPort).redirectErrorStream(true).start();
            final String sockets = new String(ss.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (ss.waitFor() == 0 && !sockets.isBlank())
            {
                return true;
            }
            if (process.waitFor(20, TimeUnit.MILLISECONDS)) // the pause between looks, ended early by an exit
            {
                return false;
            }
        }
        return false;
    }

    /** Asks the process to end (SIGTERM, as systemd stops a driver), then waits as {@link #await} does. */
    public Result stop(final long timeoutSeconds) throws IOException, InterruptedException
    {
        process.destroy();
        return await(timeoutSeconds);
    }

    void kill()
    {
        process.destroyForcibly();
    }

    public record Result(int status, String output)
    {
    }

    /** The test JVM's class path, expanded if surefire hid it in a manifest-only jar. */
    private static String classPath() throws IOException
    {
        final String path = System.getProperty("java.class.path");
        final String[] entries = path.split(File.pathSeparator);
        if (entries.length == 1 && entries[0].endsWith(".jar") && entries[0].contains("surefire"))
        {
            try (java.util.jar.JarFile jar = new java.util.jar.JarFile(entries[0]))
            {
                final String manifestPath = jar.getManifest().getMainAttributes().getValue("Class-Path");
                final List<String> expanded = new ArrayList<>();
                for (final String url : manifestPath.split(" "))
                {
                    expanded.add(Path.of(java.net.URI.create(url)).toString());
                }
                return String.join(File.pathSeparator, expanded);
            }
        }
        return path;
    }
}
