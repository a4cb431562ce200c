package io.rnic.verbs;

import java.lang.foreign.MemorySegment;
import java.security.SecureRandom;
import java.util.Arrays;

/**
 * The memory regions of a device by key, read by the engine threads without locks while the control plane
 * registers and deregisters. Copy-on-write: a registration publishes a new array, a lookup is one volatile read and
 * an index. A key is {@code index << 8 | keyByte}, as a hardware RNIC's: indexes are handed out round-robin (the
 * next free one after the last handed out, wrapping around, the table growing when full) and the key byte is drawn
 * at random, never equal to the slot's previous one. A stale key of a deregistered region therefore misses until
 * the whole table has cycled, and then still misses unless a 1-in-255 draw gave the slot that byte again; nor can a
 * peer guess a key from the device's history (the first region of every device is not {@code 0x000101}).
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
    /** Slots of the table; slot 0 is never used (key 0), so a device holds up to one fewer regions. */
    public static final int MAX_REGIONS = 1 << 20;
    /** The largest region ({@code max_mr_size}): keys address an {@code int} offset. */
    public static final long MAX_REGION_BYTES = Integer.MAX_VALUE;
    private static final int INITIAL_SLOTS = 16;
    /** A slot never used: any key byte may be drawn for it. */
    private static final short NO_KEY_BYTE = -1;

    private volatile MemoryRegion[] regions = new MemoryRegion[INITIAL_SLOTS];
    private volatile Reader[] readers = new Reader[0];
    /** Per slot, the key byte of the last region registered there (or {@link #NO_KEY_BYTE}). Under the lock. */
    private short[] lastKeyBytes = newKeyBytes(INITIAL_SLOTS);
    /** Where the round-robin search for a free slot starts. Under the lock. */
    private int nextIndex = 1; // key 0 is never handed out
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
            MemoryRegion[] next = regions.clone();
            final int index = freeIndex(next);
            if (index >= next.length)
            {
                if (index >= MAX_REGIONS)
                {
                    throw new VerbsException("too many memory regions (" + MAX_REGIONS + ")");
                }
                next = Arrays.copyOf(next, next.length * 2);
                final short[] keyBytes = newKeyBytes(next.length);
                System.arraycopy(lastKeyBytes, 0, keyBytes, 0, lastKeyBytes.length);
                lastKeyBytes = keyBytes;
            }
            final int keyByte = drawKeyByte(lastKeyBytes[index]);
            lastKeyBytes[index] = (short)keyByte;
            nextIndex = index + 1;
            final int key = (index << INDEX_SHIFT) | keyByte;
            final MemoryRegion region = new MemoryRegion(pd, segment, iova, access, key, key);
            next[index] = region;
            regions = next;
            return region;
        }
    }

    /**
     * The first free slot from {@link #nextIndex} on, wrapping around past the end (slot 0 is never used); the
     * array's length when every slot is taken (the caller grows it).
     */
    private int freeIndex(final MemoryRegion[] current)
    {
        final int length = current.length;
        int index = nextIndex < length ? nextIndex : 1;
        for (int tried = 1; tried < length; tried++)
        {
            if (current[index] == null)
            {
                return index;
            }
            index = index + 1 < length ? index + 1 : 1;
        }
        return length;
    }

    /** A random key byte, never {@code previous}: one of the other 255 values (of all 256 for a fresh slot). */
    private int drawKeyByte(final short previous)
    {
        if (previous == NO_KEY_BYTE)
        {
            return random.nextInt(KEY_BYTE_MASK + 1);
        }
        return (previous + 1 + random.nextInt(KEY_BYTE_MASK)) & KEY_BYTE_MASK;
    }

    private static short[] newKeyBytes(final int length)
    {
        final short[] keyBytes = new short[length];
        Arrays.fill(keyBytes, NO_KEY_BYTE);
        return keyBytes;
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
            final MemoryRegion[] current = regions;
            final int index = region.lKey() >>> INDEX_SHIFT;
            if (index >= current.length || current[index] != region)
            {
                throw new VerbsException("memory region is not registered: " + region);
            }
            if (!region.retire())
            {
                throw new VerbsException("memory region has " + region.boundWindows() +
                    " memory windows bound to it (EBUSY): " + region);
            }
            final MemoryRegion[] next = current.clone();
            next[index] = null;
            regions = next;
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
        final MemoryRegion[] current = regions;
        final int index = key >>> INDEX_SHIFT;
        if (index >= current.length)
        {
            return null;
        }
        final MemoryRegion region = current[index];
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
