package io.rnic.dpdkbindings;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Stream;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * DPDK's Environment Abstraction Layer, initialised once per process ({@code rte_eal_init} cannot run twice, not
 * even after {@code rte_eal_cleanup}). A second {@link #init} with the same arguments is a no-op; with other
 * arguments it fails and says which are in force.
 * <p>
 * Defaults added unless the arguments say otherwise: {@code --lcores=0@(0-N)} (the main lcore may run on every CPU:
 * EAL pins the thread that calls init to the main lcore's CPUs, and every thread the JVM starts from it afterwards
 * inherits that mask) and {@code --log-level=warning} (EAL's start-up chatter off).
 */
public final class Eal
{
    /** argv[0]: getopt's messages start with it. */
    private static final String PROGRAM = "rnic";
    private static List<String> initialisedWith;
    private static String initOutput = "";

    private Eal()
    {
    }

    /**
     * Initialises EAL with its output kept off the terminal: see {@link #init(List, boolean)}, {@code verbose} false.
     */
    public static List<String> init(final List<String> args)
    {
        return init(args, false);
    }

    /**
     * EAL prints to standard output and error while it starts (its whole usage on a wrong argument, its log, the
     * telemetry's notes): that output is captured ({@link NativeOutput}) and, on a failure, what matters in it (the
     * option it refused, its FATAL line) goes into the exception's one-line message. What the user still sees on
     * success: the lines that warn or report an error, on standard error; everything with {@code verbose}.
     * {@link #initOutput()} keeps the whole of it.
     * <p>
     * EAL's run-time directory ({@code /var/run/dpdk/<file-prefix>}) is removed when the process exits, and at once
     * when the init fails having created it (DPDK itself leaves it behind).
     *
     * @param args    EAL arguments as on a DPDK command line, without the program name (e.g. {@code --no-huge -m 256
     *                --in-memory --vdev=net_null0}).
     * @param verbose show all EAL printed (on standard error), not only its warnings and errors.
     * @return the arguments in force, defaults included.
     * @throws DpdkException when DPDK is missing, an argument is wrong, or EAL was initialised with others.
     */
    public static synchronized List<String> init(final List<String> args, final boolean verbose)
    {
        DpdkBindings.requireAvailable();
        checkLayout();
        final List<String> effective = withDefaults(args);
        if (initialisedWith != null)
        {
            if (!initialisedWith.equals(effective))
            {
                throw new DpdkException("DPDK's EAL is already initialised in this process with " + initialisedWith +
                    "; it cannot be initialised again with " + effective);
            }
            return initialisedWith;
        }
        final List<String> argv = new ArrayList<>();
        argv.add(PROGRAM);
        argv.addAll(effective);
        // EAL keeps pointers into argv (device arguments among them): the strings live as long as the process
        final Arena arena = Arena.global();
        final MemorySegment array = arena.allocate(ADDRESS, argv.size() + 1L);
        for (int i = 0; i < argv.size(); i++)
        {
            array.setAtIndex(ADDRESS, i, arena.allocateFrom(argv.get(i)));
        }
        array.setAtIndex(ADDRESS, argv.size(), MemorySegment.NULL);
        final Path expectedRuntimeDir = expectedRuntimeDir(filePrefix(effective));
        final boolean existedBefore = Files.exists(expectedRuntimeDir);
        final NativeOutput.Captured captured =
            NativeOutput.capture(() -> DpdkBindings.rte_eal_init(argv.size(), array));
        initOutput = captured.output();
        if (verbose)
        {
            System.err.print(captured.output());
        }
        if (captured.result() < 0)
        {
            final int errno = DpdkBindings.rte_errno();
            if (!existedBefore)
            {
                // a directory that was there before may be another live process's (EAL refuses its lock)
                removeRuntimeDir(expectedRuntimeDir, true);
            }
            throw new DpdkException(explain(effective, errno, DpdkBindings.rte_strerror(errno), captured.output(),
                hugepagesReserved()));
        }
        if (!verbose)
        {
            System.err.print(warnings(captured.output()));
        }
        initialisedWith = List.copyOf(effective);
        final Path runtimeDir = runtimeDir(expectedRuntimeDir);
        // shared files (the default) are ours alone once init succeeded: EAL holds their lock; without them (--no-shconf,
        // --in-memory) another process may use the same prefix, and only an empty directory is removed
        final boolean owned = !effective.contains("--no-shconf") && !effective.contains("--in-memory") &&
            effective.stream().noneMatch(a -> a.startsWith("--proc-type") && !a.endsWith("primary"));
        Runtime.getRuntime().addShutdownHook(new Thread(() -> removeRuntimeDir(runtimeDir, owned), "eal-runtime-dir"));
        return initialisedWith;
    }

    /** What EAL printed during {@link #init} (empty before, or when it could not be captured). */
    public static synchronized String initOutput()
    {
        return initOutput;
    }

    /**
     * The one-line message for a failed {@code rte_eal_init}: DPDK's reason and errno, the words of EAL's output
     * that say what was wrong (the option getopt refused, the FATAL line), and what to do.
     *
     * @param hugepages 2 MiB pages reserved on this machine (or -1 if unknown): the fix for "no hugepages" differs.
     */
    static String explain(
        final List<String> args, final int errno, final String reason, final String output, final long hugepages)
    {
        final List<String> refused = new ArrayList<>();
        final List<String> fatal = new ArrayList<>();
        String last = null;
        for (final String raw : output.split("\n"))
        {
            final String line = raw.strip();
            if (line.startsWith(PROGRAM + ": "))
            {
                addOnce(refused, line.substring(PROGRAM.length() + 2)); // getopt's words
            }
            else if (line.startsWith("EAL: FATAL: "))
            {
                addOnce(fatal, trimDot(line.substring("EAL: FATAL: ".length())));
            }
            else if (line.startsWith("EAL: ") && !line.startsWith("EAL: Detected "))
            {
                last = trimDot(line.substring("EAL: ".length()));
            }
        }
        final List<String> words = !refused.isEmpty() ? refused : !fatal.isEmpty() ? fatal :
            last != null ? List.of(last) : List.of();
        final StringBuilder message = new StringBuilder("rte_eal_init ").append(args).append(" failed: ")
            .append(words.isEmpty() ? "" : String.join("; ", words) + ": ")
            .append(reason).append(" (errno ").append(errno).append(')');
        final boolean noHuge = args.contains("--no-huge");
        // EAL's own lines, not its usage (which names --huge-dir whatever the mistake)
        if (!noHuge && (String.join(" ", words).toLowerCase(Locale.ROOT).contains("hugepage") ||
            errno == DpdkBindings.ENOMEM))
        {
            message.append(hugepages == 0 ?
                ". No hugepages are reserved here: run without them (--no-huge -m 512 in the EAL arguments) or " +
                "reserve some as root (echo 512 > /proc/sys/vm/nr_hugepages)" :
                ". EAL could not use the hugepages (" + (hugepages > 0 ? hugepages + " reserved; " : "") +
                "it needs root, and hugetlbfs mounted at /dev/hugepages): run without them with --no-huge -m 512");
        }
        else if (errno == DpdkBindings.EALREADY)
        {
            message.append(": EAL was initialised before in this process");
        }
        else if (errno == DpdkBindings.EINVAL)
        {
            message.append(": an EAL argument is wrong (`dpdk-testpmd --help` lists EAL's options)");
        }
        return message.toString();
    }

    /** EAL's start-up lines worth a user's attention on success; the rest is chatter. */
    static String warnings(final String output)
    {
        final StringBuilder kept = new StringBuilder();
        for (final String line : output.split("\n"))
        {
            final String lower = line.toLowerCase(Locale.ROOT);
            if (lower.contains("warn") || lower.contains("error") || lower.contains("fatal") ||
                lower.contains("cannot") || lower.contains("fail"))
            {
                kept.append(line).append('\n');
            }
        }
        return kept.toString();
    }

    /** {@code --file-prefix}'s value ({@code rte}, EAL's default, without one). */
    static String filePrefix(final List<String> args)
    {
        for (int i = 0; i < args.size(); i++)
        {
            final String arg = args.get(i);
            if (arg.startsWith("--file-prefix="))
            {
                return arg.substring("--file-prefix=".length());
            }
            if (arg.equals("--file-prefix") && i + 1 < args.size())
            {
                return args.get(i + 1);
            }
        }
        return "rte";
    }

    /** Where EAL puts its run-time files (eal_create_runtime_dir): {@code /var/run/dpdk} as root, else the user's. */
    static Path expectedRuntimeDir(final String prefix)
    {
        final String xdg = System.getenv("XDG_RUNTIME_DIR");
        final String base = "root".equals(System.getProperty("user.name")) ? "/var/run" : xdg != null ? xdg : "/tmp";
        return Path.of(base, "dpdk", prefix);
    }

    /** Where EAL says its run-time files are; before it knows (an init that failed early), the expected place. */
    private static Path runtimeDir(final Path expected)
    {
        final String dir = DpdkBindings.rte_eal_get_runtime_dir();
        return dir.isEmpty() ? expected : Path.of(dir);
    }

    /**
     * Removes EAL's run-time directory: its files first when they are ours ({@code owned}), else only the sockets
     * this process has bound there (the telemetry's, which DPDK unlinks only after the JVM's shutdown hooks) and
     * then the directory if that left it empty. Best effort: a file that cannot go stays, as DPDK would have left it.
     */
    static void removeRuntimeDir(final Path dir, final boolean owned)
    {
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS))
        {
            return;
        }
        try
        {
            final Set<Path> boundHere = owned ? Set.of() : socketsBoundByThisProcess();
            try (Stream<Path> entries = Files.list(dir))
            {
                for (final Path entry : entries.toList())
                {
                    if (owned ? !Files.isDirectory(entry, LinkOption.NOFOLLOW_LINKS) : boundHere.contains(entry))
                    {
                        Files.deleteIfExists(entry);
                    }
                }
            }
            Files.deleteIfExists(dir);
        }
        catch (final IOException ex)
        {
            // not empty (another process's files), or not ours to remove: left as it is
        }
    }

    /** The paths of the Unix sockets whose descriptors this process holds: {@code /proc/net/unix} by inode. */
    static Set<Path> socketsBoundByThisProcess()
    {
        final Set<String> inodes = new HashSet<>();
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd")))
        {
            for (final Path fd : fds.toList())
            {
                try
                {
                    final String target = Files.readSymbolicLink(fd).toString();
                    if (target.startsWith("socket:["))
                    {
                        inodes.add(target.substring("socket:[".length(), target.length() - 1));
                    }
                }
                catch (final IOException ex)
                {
                    // closed meanwhile (the listing's own descriptor among them)
                }
            }
            final Set<Path> paths = new HashSet<>();
            // Num RefCount Protocol Flags Type St Inode Path
            for (final String line : Files.readAllLines(Path.of("/proc/net/unix")))
            {
                final String[] fields = line.trim().split("\\s+");
                if (fields.length >= 8 && fields[7].startsWith("/") && inodes.contains(fields[6]))
                {
                    paths.add(Path.of(fields[7]));
                }
            }
            return paths;
        }
        catch (final IOException ex)
        {
            return Set.of();
        }
    }

    private static long hugepagesReserved()
    {
        try
        {
            return Long.parseLong(Files.readString(Path.of("/proc/sys/vm/nr_hugepages")).trim());
        }
        catch (final IOException | NumberFormatException ex)
        {
            return -1;
        }
    }

    private static void addOnce(final List<String> list, final String line)
    {
        if (!list.contains(line))
        {
            list.add(line);
        }
    }

    private static String trimDot(final String line)
    {
        return line.endsWith(".") ? line.substring(0, line.length() - 1) : line;
    }

    /** The arguments EAL was initialised with, or null before {@link #init}. */
    public static synchronized List<String> arguments()
    {
        return initialisedWith;
    }

    /**
     * Makes the calling (non-EAL) thread an EAL thread with an lcore id of its own, as DPDK requires of a thread that
     * polls queues and allocates mbufs (the mempool's per-lcore cache). Idempotent per thread.
     */
    public static void registerCurrentThread()
    {
        if (DpdkBindings.rte_thread_register() < 0)
        {
            throw DpdkException.of("rte_thread_register", DpdkBindings.rte_errno());
        }
    }

    /** Gives the calling thread's lcore id back (before the thread ends), its mempool caches emptied first. */
    public static void unregisterCurrentThread()
    {
        PacketMempool.flushThreadCaches();
        DpdkBindings.rte_thread_unregister();
    }

    static List<String> withDefaults(final List<String> args)
    {
        final List<String> effective = new ArrayList<>(args);
        if (args.stream().noneMatch(a -> a.equals("-l") || a.equals("-c") || a.startsWith("--lcores") ||
            a.startsWith("-l") && a.length() > 2 && Character.isDigit(a.charAt(2))))
        {
            effective.add("--lcores=0@(0-" + (Runtime.getRuntime().availableProcessors() - 1) + ")");
        }
        if (args.stream().noneMatch(a -> a.startsWith("--log-level")))
        {
            effective.add("--log-level=warning");
        }
        return effective;
    }

    /** Refuses a DPDK whose structs differ from the layouts declared in {@link DpdkBindings}. */
    private static void checkLayout()
    {
        final long[] declared = DpdkBindings.DECLARED_LAYOUT;
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment out = arena.allocate(JAVA_LONG, 64);
            final int count = DpdkBindings.rnic_dpdk_layout(out);
            if (count != declared.length)
            {
                throw new DpdkException("the DPDK shim reports " + count + " layout entries, the bindings declare " +
                    declared.length + ": rebuild");
            }
            for (int i = 0; i < count; i++)
            {
                final long actual = out.getAtIndex(JAVA_LONG, i);
                if (actual != declared[i])
                {
                    throw new DpdkException("the installed DPDK's " + DpdkBindings.LAYOUT_NAMES.get(i) + " is " +
                        actual + ", the bindings declare " + declared[i] + " (written for DPDK 22.11): not using it");
                }
            }
        }
    }
}
