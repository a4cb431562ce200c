package io.rnic.dpdkbindings;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

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
    private static List<String> initialisedWith;

    private Eal()
    {
    }

    /**
     * @param args EAL arguments as on a DPDK command line, without the program name (e.g. {@code --no-huge -m 256
     *             --in-memory --vdev=net_null0}).
     * @return the arguments in force, defaults included.
     * @throws DpdkException when DPDK is missing, an argument is wrong, or EAL was initialised with others.
     */
    public static synchronized List<String> init(final List<String> args)
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
        argv.add("rnic");
        argv.addAll(effective);
        // EAL keeps pointers into argv (device arguments among them): the strings live as long as the process
        final Arena arena = Arena.global();
        final MemorySegment array = arena.allocate(ADDRESS, argv.size() + 1L);
        for (int i = 0; i < argv.size(); i++)
        {
            array.setAtIndex(ADDRESS, i, arena.allocateFrom(argv.get(i)));
        }
        array.setAtIndex(ADDRESS, argv.size(), MemorySegment.NULL);
        final int parsed = DpdkBindings.rte_eal_init(argv.size(), array);
        if (parsed < 0)
        {
            final int errno = DpdkBindings.rte_errno();
            throw new DpdkException("rte_eal_init " + effective + " failed: " + DpdkBindings.rte_strerror(errno) +
                " (errno " + errno + ")" + hint(errno, effective));
        }
        initialisedWith = List.copyOf(effective);
        return initialisedWith;
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

    private static String hint(final int errno, final List<String> args)
    {
        if (errno == DpdkBindings.ENOMEM && !args.contains("--no-huge"))
        {
            return ": no hugepages? Reserve some (echo 512 > /proc/sys/vm/nr_hugepages) or run without them: " +
                "--no-huge -m 512 --no-shconf";
        }
        if (errno == DpdkBindings.EALREADY)
        {
            return ": EAL was initialised before in this process";
        }
        if (errno == DpdkBindings.EINVAL)
        {
            return ": an EAL argument is wrong (see `dpdk-testpmd --help` for the EAL options)";
        }
        return "";
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
