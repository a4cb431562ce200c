package io.rnic.transport;

import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.MemoryRegion;
import io.rnic.verbs.MemoryRegionTable;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.ScatterGatherList;
import io.rnic.wire.PayloadPieces;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * Gathers from and scatters into the memory named by a scatter/gather list, checking each entry's L_Key, protection
 * domain, bounds and (for writes into it) LOCAL_WRITE, at the time of the copy: a region deregistered meanwhile is
 * noticed, and nothing outside a registered region is ever touched.
 */
final class LocalMemory
{
    private final MemoryRegionTable regions;

    LocalMemory(final MemoryRegionTable regions)
    {
        this.regions = regions;
    }

    /** Whether every entry names registered memory of {@code pd} (with LOCAL_WRITE when {@code forWrite}). */
    boolean check(final ScatterGatherList sgl, final ProtectionDomain pd, final boolean forWrite)
    {
        for (int i = 0; i < sgl.count(); i++)
        {
            if (sgl.length(i) == 0)
            {
                continue;
            }
            if (region(sgl, i, pd, forWrite) == null)
            {
                return false;
            }
        }
        return true;
    }

    private MemoryRegion region(final ScatterGatherList sgl, final int i, final ProtectionDomain pd, final boolean forWrite)
    {
        final MemoryRegion mr = regions.byKey(sgl.lKey(i));
        if (mr == null || mr.pd() != pd || !mr.contains(sgl.address(i), sgl.length(i)) ||
            (forWrite && !mr.allows(AccessFlags.LOCAL_WRITE)))
        {
            return null;
        }
        return mr;
    }

    /**
     * Copies {@code length} bytes starting {@code offset} bytes into the list's memory to {@code dst}.
     *
     * @return false on a protection error (nothing more is copied).
     */
    boolean gather(
        final ScatterGatherList sgl,
        final ProtectionDomain pd,
        final long offset,
        final MutableDirectBuffer dst,
        final int dstOffset,
        final int length)
    {
        return copy(sgl, pd, offset, dst, dstOffset, length, false, null);
    }

    /**
     * Where {@code length} bytes starting {@code offset} bytes into the list's memory lie, as native addresses, for
     * a port that sends them from there (checked as {@link #gather} checks). Every region's memory is native and
     * stays at its address while registered ({@link MemoryRegionTable#register} takes off-heap segments only).
     *
     * @return false on a protection error.
     */
    boolean locate(
        final ScatterGatherList sgl,
        final ProtectionDomain pd,
        final long offset,
        final int length,
        final PayloadPieces pieces)
    {
        pieces.clear();
        return copy(sgl, pd, offset, null, 0, length, false, pieces);
    }

    /**
     * Copies {@code length} bytes from {@code src} into the list's memory, starting {@code offset} bytes in.
     *
     * @return false on a protection error or when the list is too short.
     */
    boolean scatter(
        final ScatterGatherList sgl,
        final ProtectionDomain pd,
        final long offset,
        final DirectBuffer src,
        final int srcOffset,
        final int length)
    {
        return copy(sgl, pd, offset, src, srcOffset, length, true, null);
    }

    /**
     * Walks the list from {@code offset}, copying into the regions ({@code intoRegions}) or out of them, or, given
     * {@code pieces}, noting where the bytes lie instead.
     */
    private boolean copy(
        final ScatterGatherList sgl,
        final ProtectionDomain pd,
        final long offset,
        final DirectBuffer buffer,
        final int bufferOffset,
        final int length,
        final boolean intoRegions,
        final PayloadPieces pieces)
    {
        long skip = offset;
        int copied = 0;
        for (int i = 0; i < sgl.count() && copied < length; i++)
        {
            final int entryLength = sgl.length(i);
            if (skip >= entryLength)
            {
                skip -= entryLength;
                continue;
            }
            final MemoryRegion mr = region(sgl, i, pd, intoRegions);
            if (mr == null)
            {
                return false;
            }
            final int n = (int)Math.min(entryLength - skip, length - copied);
            final int regionIndex = (int)(mr.offsetOf(sgl.address(i)) + skip);
            if (pieces != null)
            {
                pieces.add(mr.buffer().addressOffset() + regionIndex, n); // never full: one piece per entry
            }
            else if (intoRegions)
            {
                mr.buffer().putBytes(regionIndex, buffer, bufferOffset + copied, n);
            }
            else
            {
                ((MutableDirectBuffer)buffer).putBytes(bufferOffset + copied, mr.buffer(), regionIndex, n);
            }
            copied += n;
            skip = 0;
        }
        return copied == length;
    }

    /** Writes an 8-byte value (host order) at {@code offset} into the list's memory. */
    boolean scatterLong(final ScatterGatherList sgl, final ProtectionDomain pd, final long value)
    {
        if (sgl.count() == 0 || sgl.length(0) < Long.BYTES)
        {
            return false;
        }
        final MemoryRegion mr = region(sgl, 0, pd, true);
        if (mr == null)
        {
            return false;
        }
        mr.buffer().putLong((int)mr.offsetOf(sgl.address(0)), value);
        return true;
    }

    MemoryRegionTable regions()
    {
        return regions;
    }
}
