package io.rnic.verbs;

/** Memory-region and QP access rights, with the values of {@code enum ibv_access_flags}. */
public final class AccessFlags
{
    public static final int LOCAL_WRITE = 1;
    public static final int REMOTE_WRITE = 1 << 1;
    public static final int REMOTE_READ = 1 << 2;
    public static final int REMOTE_ATOMIC = 1 << 3;
    public static final int ALL = LOCAL_WRITE | REMOTE_WRITE | REMOTE_READ | REMOTE_ATOMIC;
    /** IBTA 1.5: a FLUSH of placement type global visibility may name the region or QP. */
    public static final int FLUSH_GLOBAL = 1 << 8;
    /**
     * IBTA 1.5: a FLUSH of placement type persistence may name the region or QP. A QP may have it; a memory region
     * may not, as rxe refuses it for memory that is not persistent memory: ours is ordinary memory.
     */
    public static final int FLUSH_PERSISTENT = 1 << 9;
    /** A region memory windows may be bound to ({@code IBV_ACCESS_MW_BIND}); not part of {@link #ALL}. */
    public static final int MW_BIND = 1 << 4;
    /** The rights a memory window can grant ({@code mw_access_flags}): remote ones only. */
    public static final int WINDOW_ALLOWED = REMOTE_WRITE | REMOTE_READ | REMOTE_ATOMIC;

    private AccessFlags()
    {
    }

    /**
     * Whether a set of flags is one ibverbs accepts for a memory region: remote write and remote atomic need
     * local write too (IBTA 10.6.3.1; {@code ibv_reg_mr} fails with EINVAL otherwise).
     */
    public static boolean isValidForMemoryRegion(final int flags)
    {
        if ((flags & ~(ALL | FLUSH_GLOBAL | MW_BIND)) != 0)
        {
            return false;
        }
        final boolean needsLocalWrite = (flags & (REMOTE_WRITE | REMOTE_ATOMIC)) != 0;
        return !needsLocalWrite || (flags & LOCAL_WRITE) != 0;
    }

    public static String toString(final int flags)
    {
        if (flags == 0)
        {
            return "none";
        }
        final StringBuilder sb = new StringBuilder();
        append(sb, flags, LOCAL_WRITE, "LOCAL_WRITE");
        append(sb, flags, REMOTE_WRITE, "REMOTE_WRITE");
        append(sb, flags, REMOTE_READ, "REMOTE_READ");
        append(sb, flags, REMOTE_ATOMIC, "REMOTE_ATOMIC");
        append(sb, flags, FLUSH_GLOBAL, "FLUSH_GLOBAL");
        append(sb, flags, FLUSH_PERSISTENT, "FLUSH_PERSISTENT");
        append(sb, flags, MW_BIND, "MW_BIND");
        final int unknown = flags & ~(ALL | FLUSH_GLOBAL | FLUSH_PERSISTENT | MW_BIND);
        if (unknown != 0)
        {
            append(sb, flags, unknown, "0x" + Integer.toHexString(unknown));
        }
        return sb.toString();
    }

    private static void append(final StringBuilder sb, final int flags, final int flag, final String name)
    {
        if ((flags & flag) != 0)
        {
            if (sb.length() > 0)
            {
                sb.append('|');
            }
            sb.append(name);
        }
    }
}
