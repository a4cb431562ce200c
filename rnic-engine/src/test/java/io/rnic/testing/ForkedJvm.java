package io.rnic.testing;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * Runs a main class of the test class path in a JVM of its own, with this JVM's flags (surefire's argLine) except
 * the ones named: what an embedder who forgot a flag starts.
 */
public final class ForkedJvm
{
    /** What the forked JVM printed, and how it ended. */
    public record Result(int exit, String stdout, String stderr)
    {
        public String toString()
        {
            return "exit " + exit + "\n--- stdout\n" + stdout + "--- stderr\n" + stderr;
        }
    }

    private ForkedJvm()
    {
    }

    /**
     * @param without flags to leave out, each as written on a command line ({@code "--add-opens X"},
     *                {@code "--enable-native-access=ALL-UNNAMED"}), in either of the forms the JVM reports them.
     */
    public static Result run(final Class<?> main, final Set<String> without, final String... args)
        throws IOException, InterruptedException
    {
        return run(List.of(), main, without, args);
    }

    /**
     * @param prefix what runs the JVM, e.g. {@code setpriv --reuid=65534 ...} to run it as another user.
     */
    public static Result run(
        final List<String> prefix, final Class<?> main, final Set<String> without, final String... args)
        throws IOException, InterruptedException
    {
        return run(prefix, System.getProperty("java.class.path"), main, without, args);
    }

    /**
     * @param classPath the forked JVM's, instead of this one's: e.g. copies another user can read.
     */
    public static Result run(
        final List<String> prefix, final String classPath, final Class<?> main, final Set<String> without,
        final String... args)
        throws IOException, InterruptedException
    {
        final Process process = new ProcessBuilder(command(prefix, classPath, main, without, args)).start();
        final CompletableFuture<String> stderr = CompletableFuture.supplyAsync(() -> read(process, true));
        final String stdout = read(process, false);
        return new Result(process.waitFor(), stdout, stderr.join());
    }

    /**
     * Starts {@code main} with all of this JVM's flags and leaves it running: for a test that talks to it through
     * its standard streams and kills it ({@link Process#destroyForcibly()} is a SIGKILL). Its standard error goes to
     * this JVM's, so that a child that fails says why in the test's output.
     */
    public static Process start(final Class<?> main, final String... args) throws IOException
    {
        return new ProcessBuilder(command(List.of(), System.getProperty("java.class.path"), main, Set.of(), args))
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    }

    /**
     * This JVM's class path with every jar copied into {@code copies} (made readable by all): the local Maven
     * repository may sit in a home directory another user cannot enter.
     */
    public static String readableClassPath(final Path copies) throws IOException
    {
        Files.setPosixFilePermissions(copies, PosixFilePermissions.fromString("rwxr-xr-x"));
        final List<String> entries = new ArrayList<>();
        int index = 0;
        for (final String entry : System.getProperty("java.class.path").split(File.pathSeparator))
        {
            final Path path = Path.of(entry);
            if (Files.isRegularFile(path))
            {
                final Path copy = copies.resolve(index++ + "-" + path.getFileName());
                Files.copy(path, copy);
                Files.setPosixFilePermissions(copy, PosixFilePermissions.fromString("rw-r--r--"));
                entries.add(copy.toString());
            }
            else
            {
                entries.add(entry);
            }
        }
        return String.join(File.pathSeparator, entries);
    }

    private static List<String> command(
        final List<String> prefix, final String classPath, final Class<?> main, final Set<String> without,
        final String... args)
    {
        final List<String> command = new ArrayList<>(prefix);
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        final List<String> inherited = ManagementFactory.getRuntimeMXBean().getInputArguments();
        for (int i = 0; i < inherited.size(); i++)
        {
            final String argument = inherited.get(i);
            final boolean pair = i + 1 < inherited.size() && without.contains(argument + " " + inherited.get(i + 1));
            if (pair)
            {
                i++;
            }
            else if (!without.contains(argument) && !without.contains(argument.replaceFirst("=", " ")) &&
                !argument.startsWith("-agentlib:jdwp"))
            {
                command.add(argument);
            }
        }
        command.add("-D" + SharedFiles.SHARED_DIR_PROP_NAME + "=" + SharedFiles.sharedDir());
        command.add("-cp");
        command.add(classPath);
        command.add(main.getName());
        command.addAll(List.of(args));
        return command;
    }

    private static String read(final Process process, final boolean error)
    {
        try
        {
            return new String((error ? process.getErrorStream() : process.getInputStream()).readAllBytes(),
                StandardCharsets.UTF_8);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }
}
