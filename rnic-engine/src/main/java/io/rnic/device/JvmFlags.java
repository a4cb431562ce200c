package io.rnic.device;

import io.rnic.RnicException;
import io.rnic.icrc.Icrc;

import java.util.StringJoiner;

/**
 * The JVM flags rnic needs, checked where an embedder first reaches rnic (the datapath's port factories and
 * {@code Endpoint.start}, {@link RnicDevice}) before anything touches Agrona or FFM. Without them the failure comes
 * from deep inside a library: an {@link IllegalAccessError} from Agrona's first buffer, a warning per restricted FFM
 * call. Here it is one line that names the missing flags, all of them at once, and then every flag rnic takes
 * ({@link #ALL}), ready to paste: an embedder's project has no parent pom to look them up in. The parent pom's
 * {@code rnic.jvm.flags} property is the same list, which every launcher and test takes.
 * <p>
 * The Vector API is optional: without {@code --add-modules jdk.incubator.vector} the ICRC runs without it (exact,
 * a few nanoseconds slower per small packet on AVX-512), and a one-line note says so once per JVM.
 * <p>
 * Control path only; the result of the first check is kept.
 */
public final class JvmFlags
{
    /** Agrona 2.x reaches {@code jdk.internal.misc.Unsafe}. */
    public static final String OPEN_MISC = "--add-opens java.base/jdk.internal.misc=ALL-UNNAMED";
    /** Agrona reaches the address and capacity fields of direct {@code ByteBuffer}s. */
    public static final String OPEN_NIO = "--add-opens java.base/java.nio=ALL-UNNAMED";
    /** The ports, CPU pinning and the ICRC's view of memory call restricted FFM methods. */
    public static final String NATIVE_ACCESS = "--enable-native-access=ALL-UNNAMED";
    /** Optional: the vectorised ICRC. */
    public static final String VECTOR_MODULE = "--add-modules jdk.incubator.vector";
    /** Every flag rnic takes, as a {@code java} command line or a pom's {@code argLine} has them. */
    public static final String ALL = String.join(" ", OPEN_MISC, OPEN_NIO, NATIVE_ACCESS, VECTOR_MODULE);

    private static volatile boolean checked;

    private JvmFlags()
    {
    }

    /**
     * The required flags this JVM was started without, separated by spaces; empty when none is missing.
     */
    public static String missing()
    {
        final Module self = JvmFlags.class.getModule();
        final Module base = Object.class.getModule();
        final StringJoiner missing = new StringJoiner(" ");
        if (!base.isOpen("jdk.internal.misc", self))
        {
            missing.add(OPEN_MISC);
        }
        if (!base.isOpen("java.nio", self))
        {
            missing.add(OPEN_NIO);
        }
        if (!self.isNativeAccessEnabled())
        {
            missing.add(NATIVE_ACCESS);
        }
        return missing.toString();
    }

    /**
     * Throws when a required flag is missing; notes once on standard error that the Vector API is absent.
     *
     * @throws RnicException with one line naming every missing flag, then all of rnic's flags.
     */
    public static void check()
    {
        if (checked)
        {
            return;
        }
        final String missing = missing();
        if (!missing.isEmpty())
        {
            throw new RnicException("rnic needs the JVM flags: " + missing + "; start java with all of rnic's: " +
                ALL);
        }
        if (!Icrc.isVectorApiPresent())
        {
            System.err.println("rnic: no " + VECTOR_MODULE + ": the ICRC runs without the Vector API");
        }
        checked = true;
    }
}
