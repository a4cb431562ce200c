package io.rnic.verbs;

import java.util.concurrent.atomic.AtomicReference;

/**
 * The memory regions of a device by key, read by the engine thread without locks while the control plane
 * registers and deregisters. Copy-on-write: a registration publishes a new array with a CAS, a lookup is one
 * volatile read and an index. A key is {@code index << 8 | generation}: the low byte changes each time an index
 * is reused, so a stale key of a deregistered region does not reach the region that replaced it.
 */
public final class MemoryRegionTable
{
    private static final int INDEX_SHIFT = 8;
    private static final int MAX_REGIONS = 1 << 20;

    private final AtomicReference<MemoryRegion[]> regions = new AtomicReference<>(new MemoryRegion[16]);
    private final AtomicReference<int[]> generations = new AtomicReference<>(new int[16]);

    /** Registers a region over {@code segment}. Control path. */
    public MemoryRegion register(
        final ProtectionDomain pd, final java.lang.foreign.MemorySegment segment, final int access)
    {
        if (!AccessFlags.isValidForMemoryRegion(access))
        {
            throw new VerbsException("invalid access flags " + AccessFlags.toString(access) +
                ": REMOTE_WRITE and REMOTE_ATOMIC need LOCAL_WRITE");
        }
        if (segment.byteSize() > Integer.MAX_VALUE)
        {
            throw new VerbsException("memory region of " + segment.byteSize() + " bytes: regions are limited to 2 GiB - 1");
        }
        if (!segment.isNative())
        {
            throw new VerbsException("memory regions must be off-heap (native) segments: the RNIC addresses them by " +
                "virtual address");
        }
        while (true)
        {
            final MemoryRegion[] current = regions.get();
            int index = 1; // key 0 is never handed out
            while (index < current.length && current[index] != null)
            {
                index++;
            }
            if (index >= MAX_REGIONS)
            {
                throw new VerbsException("too many memory regions (" + MAX_REGIONS + ")");
            }
            final MemoryRegion[] next = java.util.Arrays.copyOf(current, Math.max(current.length, index + 1) *
                (index >= current.length ? 2 : 1));
            final int[] generation = generations.get();
            final int[] nextGeneration = java.util.Arrays.copyOf(generation, Math.max(generation.length, next.length));
            final int key = (index << INDEX_SHIFT) | (++nextGeneration[index] & 0xFF);
            final MemoryRegion region = new MemoryRegion(pd, segment, access, key, key);
            next[index] = region;
            if (regions.compareAndSet(current, next))
            {
                generations.set(nextGeneration);
                return region;
            }
        }
    }

    /** Deregisters a region; its keys stop working at once for the engine's next lookup. Control path. */
    public void deregister(final MemoryRegion region)
    {
        while (true)
        {
            final MemoryRegion[] current = regions.get();
            final int index = region.lKey() >>> INDEX_SHIFT;
            if (index >= current.length || current[index] != region)
            {
                throw new VerbsException("memory region is not registered: " + region);
            }
            final MemoryRegion[] next = current.clone();
            next[index] = null;
            if (regions.compareAndSet(current, next))
            {
                return;
            }
        }
    }

    /** The region whose key is {@code key} (L_Key and R_Key are the same here), or null. Engine thread. */
    public MemoryRegion byKey(final int key)
    {
        final MemoryRegion[] current = regions.get();
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
        final MemoryRegion region = byKey(rKey);
        if (region == null || region.pd() != pd || !region.contains(va, length) || !region.allows(access))
        {
            return null;
        }
        return region;
    }
}
