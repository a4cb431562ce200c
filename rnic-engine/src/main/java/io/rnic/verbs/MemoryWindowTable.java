package io.rnic.verbs;

import java.security.SecureRandom;

/**
 * The memory windows of a device by R_Key, beside its regions ({@link MemoryRegionTable}, which owns this table).
 * Regions and windows share one R_Key space, as rxe's pools do, in separate index ranges: a window's key is
 * {@code index << 8 | keyByte} with an index of the upper half of the 24 bits, above every region's, so a key names
 * one or the other by its index alone. Copy-on-write like the region table ({@link KeyTable}): a lookup is one
 * volatile read and an index. A window keeps its index for life, and the index advances with every allocation through
 * the windows' whole range before one comes round again, so the key of a deallocated window names nothing for at least
 * {@link #WINDOW_INDEXES} allocations; the key byte is drawn at random at allocation and moves with every bind.
 */
public final class MemoryWindowTable
{
    private static final int INDEX_SHIFT = 8;
    /** Window indexes start above the regions'. */
    static final int WINDOW_INDEX_BASE = MemoryRegionTable.REGION_INDEXES;
    /** The key indexes windows take: the rest of the 24 bits. */
    static final int WINDOW_INDEXES = (1 << 24) - WINDOW_INDEX_BASE;
    /** Windows a device holds at most ({@code max_mw}). */
    public static final int MAX_WINDOWS = 1 << 20;

    private final MemoryRegionTable regions;
    private final KeyTable<MemoryWindow> windows =
        new KeyTable<>(WINDOW_INDEX_BASE, WINDOW_INDEXES, MAX_WINDOWS, window -> window.key() >>> INDEX_SHIFT);
    private final SecureRandom random = new SecureRandom();

    MemoryWindowTable(final MemoryRegionTable regions)
    {
        this.regions = regions;
    }

    /** Whether an R_Key would name a window rather than a region. */
    public static boolean isWindowKey(final int key)
    {
        return (key >>> INDEX_SHIFT) >= WINDOW_INDEX_BASE;
    }

    /** {@code ibv_alloc_mw}: a window of {@code type} in {@code pd}, bound to nothing. Control path. */
    public synchronized MemoryWindow allocate(final ProtectionDomain pd, final int type)
    {
        if (pd == null)
        {
            throw new VerbsException("no protection domain given");
        }
        if (type != MemoryWindow.TYPE_1 && type != MemoryWindow.TYPE_2)
        {
            throw new VerbsException("memory window type " + type + ": IBV_MW_TYPE_1 (1) or IBV_MW_TYPE_2 (2)");
        }
        final MemoryWindow window = windows.add(index ->
            new MemoryWindow(pd, type, (index << INDEX_SHIFT) | random.nextInt(MemoryWindow.KEY_BYTE_MASK + 1)));
        if (window == null)
        {
            throw new VerbsException(Errno.ENOMEM, "too many memory windows (" + MAX_WINDOWS + ")");
        }
        return window;
    }

    /**
     * {@code ibv_dealloc_mw}: the window is unbound (its region may then be deregistered) and its keys refused from
     * now on. Control path.
     */
    public void deallocate(final MemoryWindow window)
    {
        synchronized (this)
        {
            if (!windows.remove(window))
            {
                throw new VerbsException("memory window is not allocated: " + window);
            }
            window.deallocate();
        }
    }

    /**
     * The window in the slot of {@code key}'s index (whatever its key byte), or null; it may hold another index of the
     * slot, which {@link MemoryWindow}'s checks of the full key refuse. Engine thread.
     */
    private MemoryWindow byIndex(final int key)
    {
        return windows.slotOf(key >>> INDEX_SHIFT);
    }

    /**
     * A remote access through a window's R_Key (see {@link MemoryWindow#checkRemote}).
     *
     * @return the window's region, or null for a remote access error.
     */
    MemoryRegion checkRemote(
        final int rKey, final ProtectionDomain pd, final int qpn, final long va, final long length, final int access)
    {
        final MemoryWindow window = byIndex(rKey);
        return window == null ? null : window.checkRemote(rKey, pd, qpn, va, length, access);
    }

    /**
     * Executes a {@link WrOpcode#BIND_MW} work request of the QP numbered {@code qpn} in {@code pd} (rxe's
     * {@code rxe_bind_mw}). Engine thread.
     *
     * @return false when the bind is refused (MW_BIND_ERR).
     */
    public boolean bind(final ProtectionDomain pd, final int qpn, final SendWorkRequest wr)
    {
        final MemoryWindow window = isWindowKey(wr.mwRKey) ? byIndex(wr.mwRKey) : null;
        if (window == null)
        {
            return false;
        }
        MemoryRegion region = null;
        if (wr.mwLength != 0)
        {
            region = regions.byKey(wr.mwMrLKey);
            if (region == null)
            {
                return false;
            }
        }
        return window.bind(pd, qpn, wr.mwRKey, wr.mwNewRKey, region, wr.mwAddress, wr.mwLength, wr.mwAccess);
    }

    /**
     * Invalidates the type 2B window named by {@code rKey} (LOCAL_INV, or a peer's SEND_WITH_INV when
     * {@code remote}) for the QP numbered {@code qpn} in {@code pd}. Engine thread.
     *
     * @return false when nothing was invalidated: no such window, the wrong PD or QP, a type 1 window, not bound.
     */
    public boolean invalidate(final int rKey, final ProtectionDomain pd, final int qpn, final boolean remote)
    {
        final MemoryWindow window = isWindowKey(rKey) ? byIndex(rKey) : null;
        return window != null && window.invalidate(rKey, pd, qpn, remote);
    }
}
