package io.rnic.tools;

import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemNanoClock;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Whether a kernel interface's port would be ACTIVE, from sysfs ({@code /sys/class/net/IFACE/flags} and
 * {@code operstate}): perftest refuses a port that is not, and rxe's port is ACTIVE only while its interface is up and
 * has a carrier. An interface just brought up ({@code ip link set up}) has its flag at once but its carrier a few
 * milliseconds later (the kernel's link watch: a veth's operstate turns {@code up} after its peer's), so the carrier
 * is waited for a short grace ({@link #GRACE_MS_DEFAULT}, {@link #GRACE_MS_PROP_NAME}) before the interface is refused.
 */
public final class InterfaceState
{
    /** How long a tool or driver waits for an interface's carrier before refusing it, in milliseconds. */
    public static final String GRACE_MS_PROP_NAME = "rnic.carrier.grace.ms";
    public static final long GRACE_MS_DEFAULT = 2_000;
    /** {@code IFF_UP} of {@code /sys/class/net/IFACE/flags}: the interface is administratively up. */
    private static final long IFF_UP = 0x1;
    private static final long POLL_NS = TimeUnit.MILLISECONDS.toNanos(10);

    /** What the wait does between two reads of the link state: a park, or in a test a virtual clock's step. */
    @FunctionalInterface
    public interface Pause
    {
        void pauseNs(long ns);
    }

    private final Path sysClassNet;
    private final long graceNs;
    private final NanoClock clock;
    private final Pause pause;

    public InterfaceState(final Path sysClassNet, final long graceNs, final NanoClock clock, final Pause pause)
    {
        this.sysClassNet = sysClassNet;
        this.graceNs = graceNs;
        this.clock = clock;
        this.pause = pause;
    }

    /** The system's, with the grace of {@link #GRACE_MS_PROP_NAME} (default {@link #GRACE_MS_DEFAULT}). */
    public static InterfaceState system()
    {
        return new InterfaceState(Path.of("/sys/class/net"),
            TimeUnit.MILLISECONDS.toNanos(Long.getLong(GRACE_MS_PROP_NAME, GRACE_MS_DEFAULT)),
            SystemNanoClock.INSTANCE, LockSupport::parkNanos);
    }

    /**
     * Returns once the interface is up with a carrier, waiting up to the grace for the carrier. An interface that does
     * not exist, or whose state cannot be read, is left to the port, which names what it finds.
     *
     * @throws IllegalArgumentException naming the interface, its state and what to do: at once when it is down, after
     *                                  the grace when the carrier never came.
     */
    public void checkActive(final String iface)
    {
        // sysfs, not NetworkInterface: the JDK does not list an interface that is down and has no address
        final Path dir = sysClassNet.resolve(iface);
        if (!Files.isDirectory(dir))
        {
            return;
        }
        final String flags = read(dir.resolve("flags"));
        if (flags == null)
        {
            return;
        }
        if ((Long.decode(flags) & IFF_UP) == 0)
        {
            throw new IllegalArgumentException("interface " + iface + " is down: bring it up (ip link set " + iface +
                " up) or name another with -d");
        }
        final long deadlineNs = clock.nanoTime() + graceNs;
        String state;
        while (isWithoutCarrier(state = read(dir.resolve("operstate"))))
        {
            if (clock.nanoTime() - deadlineNs >= 0)
            {
                throw new IllegalArgumentException("interface " + iface + " is up but its link is " + state +
                    " after " + TimeUnit.NANOSECONDS.toMillis(graceNs) + " ms (no carrier: a cable, or a veth whose " +
                    "peer is down): the port is not active");
            }
            pause.pauseNs(POLL_NS);
        }
    }

    private static boolean isWithoutCarrier(final String state)
    {
        return state != null && (state.equals("down") || state.equals("lowerlayerdown") || state.equals("notpresent"));
    }

    private static String read(final Path file)
    {
        try
        {
            return Files.readString(file).trim();
        }
        catch (final IOException ex)
        {
            return null; // sysfs unreadable: the port finds out what it can
        }
    }
}
