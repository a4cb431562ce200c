package io.rnic.verbs;

import org.agrona.concurrent.UnsafeBuffer;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A registered memory region: an off-heap {@link MemorySegment} that the RNIC may read and write on behalf of local
 * work requests (checked against the L_Key) and remote peers (checked against the R_Key), within its bounds and
 * its access rights only. The virtual address that peers use is the segment's native address, as with ibverbs, or the
 * I/O virtual address it was registered with ({@code ibv_reg_mr_iova}): a driver maps a client's memory at an address
 * of its own, while the client and its peers name it by the client's address.
 * Immutable once registered; the key check is the one place that guards memory from the wire.
 */
public final class MemoryRegion
{
    private final ProtectionDomain pd;
    private final MemorySegment segment;
    private final long address;
    private final long length;
    private final int access;
    private final int lKey;
    private final int rKey;
    private final UnsafeBuffer buffer;
    /**
     * Memory windows bound to the region now, or {@link #RETIRED} once deregistration has begun: a bind counts itself
     * in only while the region is not retired, and a region with windows is not deregistered (rxe: EBUSY), so no
     * window ever names memory that may be freed.
     */
    private final AtomicInteger boundWindows = new AtomicInteger();
    private static final int RETIRED = -1;

    MemoryRegion(
        final ProtectionDomain pd, final MemorySegment segment, final long iova, final int access, final int lKey,
        final int rKey)
    {
        this.pd = pd;
        this.segment = segment;
        this.address = iova;
        this.length = segment.byteSize();
        this.access = access;
        this.lKey = lKey;
        this.rKey = rKey;
        this.buffer = new UnsafeBuffer(segment.address(), (int)Math.min(Integer.MAX_VALUE, length));
    }

    /**
     * Refuses a region longer than {@link MemoryRegionTable#MAX_REGION_BYTES} ({@code max_mr_size}) with EINVAL, as
     * {@code ibv_reg_mr} refuses a length beyond the device's: the engine addresses a region's memory through an
     * {@code int}-indexed buffer. The one check of both modes, made before any memory is passed or mapped.
     */
    public static void checkLength(final long lengthBytes)
    {
        if (lengthBytes > MemoryRegionTable.MAX_REGION_BYTES)
        {
            throw new VerbsException(Errno.EINVAL, "memory region of " + lengthBytes + " bytes: a region holds at " +
                "most " + MemoryRegionTable.MAX_REGION_BYTES + " bytes (2 GiB - 1, max_mr_size)");
        }
    }

    /**
     * A region registered by another party, as its owner sees it: a driver's client holds its memory and the keys the
     * driver gave it. Its {@link #buffer()} is the owner's memory; only the driver's copy is ever used by an engine.
     */
    public static MemoryRegion registeredElsewhere(
        final ProtectionDomain pd, final MemorySegment segment, final int access, final int lKey, final int rKey)
    {
        return new MemoryRegion(pd, segment, segment.address(), access, lKey, rKey);
    }

    /**
     * The region as an Agrona buffer (index 0 = the byte peers name {@link #address()}): how the engine copies payloads in and out and
     * runs atomics, without allocating. Only valid while the segment's arena is open: deregister first.
     */
    public UnsafeBuffer buffer()
    {
        return buffer;
    }

    public ProtectionDomain pd()
    {
        return pd;
    }

    public MemorySegment segment()
    {
        return segment;
    }

    /** Virtual address of the first byte, as peers name it in a RETH or AtomicETH. */
    public long address()
    {
        return address;
    }

    public long length()
    {
        return length;
    }

    public int access()
    {
        return access;
    }

    public int lKey()
    {
        return lKey;
    }

    public int rKey()
    {
        return rKey;
    }

    /**
     * Whether {@code [va, va + byteCount)} lies inside this region. Written so that no overflow of
     * {@code va + byteCount} can make an out-of-range request look in range.
     */
    public boolean contains(final long va, final long byteCount)
    {
        if (byteCount < 0)
        {
            return false;
        }
        if (Long.compareUnsigned(va, address) < 0)
        {
            return false;
        }
        final long offset = va - address; // unsigned distance, since va >= address
        return Long.compareUnsigned(offset, length) <= 0 && byteCount <= length - offset;
    }

    /** Offset of {@code va} from the start of the segment; only meaningful after {@link #contains}. */
    public long offsetOf(final long va)
    {
        return va - address;
    }

    /** Counts a window bound to the region; false once deregistration has begun (the bind fails). Engine thread. */
    boolean acquireWindow()
    {
        int count;
        do
        {
            count = boundWindows.get();
            if (count == RETIRED)
            {
                return false;
            }
        }
        while (!boundWindows.compareAndSet(count, count + 1));
        return true;
    }

    /** A window bound to the region was unbound, invalidated or deallocated. */
    void releaseWindow()
    {
        boundWindows.decrementAndGet();
    }

    /** Memory windows bound to the region now (0 after deregistration). */
    public int boundWindows()
    {
        return Math.max(0, boundWindows.get());
    }

    /** Starts deregistration: false while windows are bound to the region (it stays registered). */
    boolean retire()
    {
        return boundWindows.compareAndSet(0, RETIRED);
    }

    public boolean allows(final int requiredAccess)
    {
        return (access & requiredAccess) == requiredAccess;
    }

    public String toString()
    {
        return "MemoryRegion{address=0x" + Long.toHexString(address) + ", length=" + length + ", access=" +
            AccessFlags.toString(access) + ", lKey=0x" + Integer.toHexString(lKey) + ", rKey=0x" +
            Integer.toHexString(rKey) + '}';
    }
}
