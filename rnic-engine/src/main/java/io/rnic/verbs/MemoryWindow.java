package io.rnic.verbs;

import java.util.concurrent.locks.StampedLock;

/**
 * A memory window ({@code struct ibv_mw}, rxe's {@code rxe_mw.c}): a range of a registered region that a peer may
 * access through the window's own R_Key, with rights of its own, bound and unbound without registering anything.
 * Type 1 ({@link #TYPE_1}) is bound with the bind verb ({@code ibv_bind_mw}), which changes the low 8 bits of its
 * R_Key on every bind; it cannot be invalidated, only rebound (a zero-length bind unbinds it). Type 2B
 * ({@link #TYPE_2}) is bound by a {@link WrOpcode#BIND_MW} work request to the QP that posted it, the only QP it can
 * then be used through, and only while it is not bound already; {@link WrOpcode#LOCAL_INV} or a peer's
 * SEND_WITH_INV naming its R_Key frees it again.
 *
 * <p>The engine threads read a window on every packet that names it without locking: each check is an optimistic
 * read of a {@link StampedLock}, and a read that overlaps a bind, an invalidation or the deallocation finds the window
 * changing and is refused (the key it names is the one being changed). The writers (binds and invalidations on an
 * engine thread, deallocation on the control path) hold the write lock for a few field stores.
 */
public final class MemoryWindow
{
    /** {@code IBV_MW_TYPE_1}. */
    public static final int TYPE_1 = 1;
    /** {@code IBV_MW_TYPE_2} (the spec's type 2B: bound to a QP). */
    public static final int TYPE_2 = 2;
    /** The bits of an R_Key a bind may change; the rest name the window. */
    public static final int KEY_BYTE_MASK = 0xFF;
    /** No QP: a type 2B window is never used through it. */
    public static final int NO_QPN = -1;

    static final int STATE_FREE = 0;
    static final int STATE_VALID = 1;
    static final int STATE_DEALLOCATED = 2;

    private final ProtectionDomain pd;
    private final int type;
    private final StampedLock lock = new StampedLock();
    /** What the application reads as {@code mw->rkey}: type 1's moves at the bind's post, as rdma-core's. */
    private volatile int rKey;
    // ---- under the lock
    private int key;
    private int state;
    private MemoryRegion region;
    private long address;
    private long length;
    private int access;
    private int ownerQpn = NO_QPN;

    MemoryWindow(final ProtectionDomain pd, final int type, final int key)
    {
        this.pd = pd;
        this.type = type;
        this.key = key;
        this.rKey = key;
        // rxe: a type 1 window is valid (bound to nothing, zero length) from its allocation, a type 2 one free
        this.state = type == TYPE_1 ? STATE_VALID : STATE_FREE;
    }

    /**
     * A window allocated by another party, as its owner sees it: a driver's client holds the handle and the R_Key the
     * driver gave it; only the driver's window is ever checked by an engine.
     */
    public static MemoryWindow allocatedElsewhere(final ProtectionDomain pd, final int type, final int rKey)
    {
        return new MemoryWindow(pd, type, rKey);
    }

    /** ibverbs {@code ibv_inc_rkey}: the same window, the next key byte. */
    public static int incRKey(final int rKey)
    {
        return (rKey & ~KEY_BYTE_MASK) | ((rKey + 1) & KEY_BYTE_MASK);
    }

    public ProtectionDomain pd()
    {
        return pd;
    }

    /** {@link #TYPE_1} or {@link #TYPE_2}. */
    public int type()
    {
        return type;
    }

    /** The R_Key as the application knows it ({@code mw->rkey}). */
    public int rKey()
    {
        return rKey;
    }

    /**
     * The bind verb posted a bind of this type 1 window to {@code newRKey}: the application sees the new key at once,
     * before the bind runs, as rdma-core's {@code ibv_bind_mw} sets {@code mw->rkey} (a bind that then fails leaves
     * the window with its old key: the application undoes it, as with ibverbs).
     */
    public void bindPosted(final int newRKey)
    {
        rKey = newRKey;
    }

    /** The key the engine checks, the window's first address, length and rights, in one line. Control path. */
    public String describe()
    {
        final long stamp = lock.readLock();
        try
        {
            return "MemoryWindow{type=" + type + ", rKey=0x" + Integer.toHexString(key) + ", state=" +
                (state == STATE_VALID ? "VALID" : state == STATE_FREE ? "FREE" : "DEALLOCATED") + ", address=0x" +
                Long.toHexString(address) + ", length=" + length + ", access=" + AccessFlags.toString(access) +
                (ownerQpn != NO_QPN ? ", qpn=" + ownerQpn : "") + '}';
        }
        finally
        {
            lock.unlockRead(stamp);
        }
    }

    public String toString()
    {
        return describe();
    }

    /**
     * rxe's {@code rxe_lookup_mw} and the window's bounds: the key is the window's now, it is bound, in the QP's
     * protection domain, a type 2B one bound by this QP, not zero-length, grants {@code requiredAccess}, and
     * {@code [va, va + byteCount)} lies inside it (and so inside its region). Engine thread; lock-free.
     *
     * @return the region to place into or read from, or null for a remote access error.
     */
    MemoryRegion checkRemote(
        final int rKey, final ProtectionDomain qpPd, final int qpn, final long va, final long byteCount,
        final int requiredAccess)
    {
        final long stamp = lock.tryOptimisticRead();
        final int key = this.key;
        final int state = this.state;
        final MemoryRegion region = this.region;
        final long address = this.address;
        final long length = this.length;
        final int access = this.access;
        final int ownerQpn = this.ownerQpn;
        if (stamp == 0 || !lock.validate(stamp))
        {
            return null; // a bind, invalidation or deallocation is changing the window: its old key is going
        }
        if (key != rKey || state != STATE_VALID || region == null || qpPd != pd || length == 0 ||
            (type == TYPE_2 && ownerQpn != qpn) || (access & requiredAccess) != requiredAccess ||
            !inside(va, byteCount, address, length) || !region.contains(va, byteCount))
        {
            return null;
        }
        return region;
    }

    private static boolean inside(final long va, final long byteCount, final long address, final long length)
    {
        if (byteCount < 0 || Long.compareUnsigned(va, address) < 0)
        {
            return false;
        }
        final long offset = va - address;
        return Long.compareUnsigned(offset, length) <= 0 && byteCount <= length - offset;
    }

    /**
     * rxe's {@code rxe_check_bind_mw} and {@code rxe_do_bind_mw}: binds the window for the QP numbered {@code qpn}
     * in {@code qpPd} to {@code [address, address + length)} of {@code mr} (null: none, length 0), with
     * {@code newAccess}, its key byte becoming {@code newRKey}'s. Engine thread.
     *
     * @return false for a bind the spec refuses (the work request completes with MW_BIND_ERR); nothing changed.
     */
    boolean bind(
        final ProtectionDomain qpPd, final int qpn, final int mwRKey, final int newRKey, final MemoryRegion mr,
        final long address, final long length, final int newAccess)
    {
        if (qpPd != pd || (newAccess & ~AccessFlags.WINDOW_ALLOWED) != 0 || length < 0)
        {
            return false; // C10-72: the QP's PD is the window's; no zero-based or local rights
        }
        if (mr != null)
        {
            if (mr.pd() != pd || !mr.allows(AccessFlags.MW_BIND) || !mr.contains(address, length))
            {
                return false; // C10-73 (MW_BIND), C10-75 (inside the region), the region's PD the window's
            }
            if ((newAccess & (AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_ATOMIC)) != 0 &&
                !mr.allows(AccessFlags.LOCAL_WRITE))
            {
                return false; // C10-74: a writable window over a region its owner cannot write
            }
        }
        else if (length != 0)
        {
            return false;
        }
        final long stamp = writeLock();
        try
        {
            if (key != mwRKey || state == STATE_DEALLOCATED)
            {
                return false;
            }
            if (type == TYPE_2 && (state != STATE_FREE || mr == null || length == 0))
            {
                return false; // o10-37.2.30: a bound 2B window is not rebound; o10-37.2.40: nor bound to nothing
            }
            if (mr != null && !mr.acquireWindow())
            {
                return false; // the region is being deregistered
            }
            if (region != null)
            {
                region.releaseWindow();
            }
            key = (key & ~KEY_BYTE_MASK) | (newRKey & KEY_BYTE_MASK);
            region = mr;
            this.address = address;
            this.length = length;
            access = newAccess;
            state = STATE_VALID;
            ownerQpn = type == TYPE_2 ? qpn : NO_QPN;
            if (type == TYPE_2)
            {
                rKey = key;
            }
            return true;
        }
        finally
        {
            lock.unlockWrite(stamp);
        }
    }

    /**
     * rxe's {@code rxe_invalidate_mw}, for LOCAL_INV and a peer's SEND_WITH_INV: a bound type 2B window of the QP's
     * protection domain, named by its present key, is freed (its R_Key refused from now on). A remote invalidation
     * must come through the QP the window is bound to. Engine thread.
     *
     * @return false when the key names no such window (o10-37.2.26: never a type 1 window).
     */
    boolean invalidate(final int rKey, final ProtectionDomain qpPd, final int qpn, final boolean remote)
    {
        if (type != TYPE_2 || qpPd != pd)
        {
            return false;
        }
        final long stamp = writeLock();
        try
        {
            if (key != rKey || state != STATE_VALID || (remote && ownerQpn != qpn))
            {
                return false;
            }
            unbind();
            state = STATE_FREE;
            return true;
        }
        finally
        {
            lock.unlockWrite(stamp);
        }
    }

    /** {@code ibv_dealloc_mw}: unbinds the window for good. Control path. */
    void deallocate()
    {
        final long stamp = writeLock();
        try
        {
            unbind();
            state = STATE_DEALLOCATED;
        }
        finally
        {
            lock.unlockWrite(stamp);
        }
    }

    /** The key the engine checks now (its index bits never change). */
    int key()
    {
        final long stamp = lock.tryOptimisticRead();
        final int value = key;
        return lock.validate(stamp) ? value : readKeyLocked();
    }

    private int readKeyLocked()
    {
        final long stamp = lock.readLock();
        try
        {
            return key;
        }
        finally
        {
            lock.unlockRead(stamp);
        }
    }

    private void unbind()
    {
        if (region != null)
        {
            region.releaseWindow();
        }
        region = null;
        address = 0;
        length = 0;
        access = 0;
        ownerQpn = NO_QPN;
    }

    /**
     * The write lock without parking: the other writer holds it for a few stores, and an engine thread must neither
     * block nor allocate ({@link StampedLock#writeLock} may queue a node).
     */
    private long writeLock()
    {
        long stamp;
        while ((stamp = lock.tryWriteLock()) == 0)
        {
            Thread.onSpinWait();
        }
        return stamp;
    }
}
