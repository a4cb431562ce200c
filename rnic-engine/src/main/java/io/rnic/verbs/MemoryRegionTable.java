package io.rnic.verbs;

import java.lang.foreign.MemorySegment;
import java.security.SecureRandom;
import java.util.Arrays;

/**
 * The memory regions of a device by key, read by the engine threads without locks while the control plane
 * registers and deregisters. Copy-on-write: a registration publishes a new array, a lookup is one volatile read and
 * an index ({@link KeyTable}). A key is {@code index << 8 | keyByte}, as a hardware RNIC's: the index advances with
 * every registration through the regions' whole range of {@link #REGION_INDEXES} (the windows' lie above it), skipping
 * those still in use, and the key byte is drawn at random. A stale key of a deregistered region therefore names
 * nothing for at least {@code REGION_INDEXES - 1} (8 388 607) registrations, and after that only when a 1-in-256 draw
 * gave its index that byte again (rxe reuses an index's keys after about 256 registrations of it); nor can a peer
 * guess a key from the device's history (the first region of every device is not {@code 0x000101}).
 *
 * <p>Deregistration returns only once every engine thread reading the table ({@link #addReader}) has applied it:
 * from then on no engine touches the region's memory, and its arena may be closed.
 */
public final class MemoryRegionTable
{
    /**
     * An engine thread that looks regions up. {@link #awaitDeregistered} returns once the thread is past every
     * lookup that could still have found {@code region} (an engine command it runs between two packets).
     */
    @FunctionalInterface
    public interface Reader
    {
        void awaitDeregistered(MemoryRegion region);
    }

    private static final int INDEX_SHIFT = 8;
    private static final int KEY_BYTE_MASK = 0xFF;
    /** The key indexes regions take, from 1 (key 0 is never handed out); the windows' start above them. */
    public static final int REGION_INDEXES = 1 << 23;
    /** Regions a device holds at most. */
    public static final int MAX_REGIONS = 1 << 20;
    /** The largest region ({@code max_mr_size}): keys address an {@code int} offset. */
    public static final long MAX_REGION_BYTES = Integer.MAX_VALUE;

    private final KeyTable<MemoryRegion> regions =
        new KeyTable<>(0, REGION_INDEXES, MAX_REGIONS, region -> region.lKey() >>> INDEX_SHIFT);
    private volatile Reader[] readers = new Reader[0];
    private final SecureRandom random = new SecureRandom();
    private final MemoryWindowTable windows = new MemoryWindowTable(this);

    /** The device's memory windows, in the same R_Key space as its regions. */
    public MemoryWindowTable windows()
    {
        return windows;
    }

    /** Adds an engine thread that reads the table: deregistrations wait for it from now on. Control path. */
    public synchronized void addReader(final Reader reader)
    {
        final Reader[] current = readers;
        final Reader[] next = Arrays.copyOf(current, current.length + 1);
        next[current.length] = reader;
        readers = next;
    }

    /** Registers a region over {@code segment}, named by its own address. Control path. */
    public MemoryRegion register(final ProtectionDomain pd, final MemorySegment segment, final int access)
    {
        return register(pd, segment, segment.address(), access);
    }

    /**
     * Registers a region over {@code segment} that work requests and peers name from {@code iova} on
     * ({@code ibv_reg_mr_iova}): a driver registering memory it mapped from a client, at the client's address.
     * Control path.
     */
    public MemoryRegion register(
        final ProtectionDomain pd, final MemorySegment segment, final long iova, final int access)
    {
        if (!AccessFlags.isValidForMemoryRegion(access))
        {
            throw new VerbsException("invalid access flags " + AccessFlags.toString(access) +
                ": REMOTE_WRITE and REMOTE_ATOMIC need LOCAL_WRITE; FLUSH_PERSISTENT needs persistent memory");
        }
        MemoryRegion.checkLength(segment.byteSize());
        if (!segment.isNative())
        {
            throw new VerbsException("memory regions must be off-heap (native) segments: the RNIC addresses them by " +
                "virtual address");
        }
        synchronized (this)
        {
            final MemoryRegion region = regions.add(index ->
            {
                final int key = (index << INDEX_SHIFT) | random.nextInt(KEY_BYTE_MASK + 1);
                return new MemoryRegion(pd, segment, iova, access, key, key);
            });
            if (region == null)
            {
                throw new VerbsException(Errno.ENOMEM, "too many memory regions (" + MAX_REGIONS + ")");
            }
            return region;
        }
    }

    /**
     * Deregisters a region: its keys stop working for every later lookup, and the call returns only once every
     * engine thread reading the table has applied it ({@link Reader#awaitDeregistered}), so that no copy into or out
     * of the region is running or will run. The memory may be freed after the call. Control path (it waits for the
     * engine threads: do not call it from one while another engine thread waits for it). A region with memory windows
     * bound to it stays registered and the call fails (rxe: EBUSY): invalidate, rebind or deallocate them first.
     */
    public void deregister(final MemoryRegion region)
    {
        final Reader[] waitFor;
        synchronized (this)
        {
            if (!regions.contains(region))
            {
                throw new VerbsException("memory region is not registered: " + region);
            }
            if (!region.retire())
            {
                throw new VerbsException("memory region has " + region.boundWindows() +
                    " memory windows bound to it (EBUSY): " + region);
            }
            regions.remove(region);
            waitFor = readers;
        }
        for (final Reader reader : waitFor)
        {
            reader.awaitDeregistered(region);
        }
    }

    /** The region whose key is {@code key} (L_Key and R_Key are the same here), or null. Engine thread. */
    public MemoryRegion byKey(final int key)
    {
        final MemoryRegion region = regions.slotOf(key >>> INDEX_SHIFT);
        return region != null && region.rKey() == key ? region : null;
    }

    /**
     * The check of a remote access (RDMA READ/WRITE, atomics) named by an R_Key: the region exists, belongs to the
     * QP's protection domain, covers {@code [va, va + length)} and grants {@code access}.
     *
     * @return the region, or null for a remote access error (the caller NAKs; nothing is touched).
     */
    public MemoryRegion checkRemote(
        final int rKey, final ProtectionDomain pd, final long va, final long length, final int access)
    {
        return checkRemote(rKey, pd, MemoryWindow.NO_QPN, va, length, access);
    }

    /**
     * The check of a remote access named by an R_Key through the QP numbered {@code qpn}: a region's as above, or a
     * memory window's ({@link MemoryWindow}: bound, of the QP's PD, a type 2B one bound by this QP, the range inside
     * the window, the rights the window grants).
     *
     * @return the region to access, or null for a remote access error (the caller NAKs; nothing is touched).
     */
    public MemoryRegion checkRemote(
        final int rKey, final ProtectionDomain pd, final int qpn, final long va, final long length, final int access)
    {
        if (MemoryWindowTable.isWindowKey(rKey))
        {
            return windows.checkRemote(rKey, pd, qpn, va, length, access);
        }
        final MemoryRegion region = byKey(rKey);
        if (region == null || region.pd() != pd || !region.contains(va, length) || !region.allows(access))
        {
            return null;
        }
        return region;
    }
}
