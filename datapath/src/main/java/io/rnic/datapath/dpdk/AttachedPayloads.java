package io.rnic.datapath.dpdk;

import io.rnic.dpdkbindings.DpdkBindings;
import io.rnic.dpdkbindings.PacketMempool;
import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.UnsafeBuffer;

import static io.rnic.dpdkbindings.DpdkBindings.MBUF_DATA_LEN;
import static io.rnic.dpdkbindings.DpdkBindings.MBUF_NB_SEGS;
import static io.rnic.dpdkbindings.DpdkBindings.MBUF_NEXT;
import static io.rnic.dpdkbindings.DpdkBindings.MBUF_PKT_LEN;

/**
 * The payload a {@link DpdkPort} queue sends from where it lies in memory regions: mbufs of the device's attaching
 * pool, each lent one piece of a region ({@link DpdkBindings#rnic_dpdk_attach_extbuf}), chained between a frame's
 * headers and its trailer (pad and ICRC); and the account of those the driver still holds.
 * <p>
 * The account is kept in epochs, so that a deregistration waits for the attachments made before it and not for
 * those made after (traffic from other regions never stops the wait). Each attachment counts into the current epoch,
 * and its mbuf's free callback counts its release at that epoch's native counter, on whichever thread the driver
 * frees it. A {@link #fence} closes the epoch and opens the next; {@link #released} tells whether every epoch up to
 * a fence has as many releases as attachments. No ordering of the driver's frees is assumed.
 * <p>
 * Engine thread only (the release counters excepted); nothing allocates once made.
 */
final class AttachedPayloads
{
    /** Fences that may be outstanding at once (deregistrations waiting together); a power of two. */
    private static final int EPOCHS = 64;
    private static final int STASH = 64;
    /** Pieces one frame may carry: a work request's scatter/gather entries (ScatterGatherList.MAX_SGE). */
    static final int MAX_PIECES = 16;

    private final PacketMempool pool;
    private final UnsafeBuffer memory;
    /** Per epoch slot, the releases: written by the free callback (atomically), read here. */
    private final long released;
    private final long stash;
    private final long pending;
    /** Per epoch slot, the attachments. */
    private final long[] attached = new long[EPOCHS];
    private long epoch;
    private int stashCount;
    private int pendingCount;
    private int pendingBytes;

    AttachedPayloads(final PacketMempool pool)
    {
        this.pool = pool;
        this.memory = new UnsafeBuffer(BufferUtil.allocateDirectAligned(8 * (EPOCHS + STASH + MAX_PIECES + 1), 64));
        this.released = memory.addressOffset();
        this.stash = released + 8L * EPOCHS;
        this.pending = stash + 8L * STASH;
    }

    /** Lends {@code length} bytes at {@code address} to a new segment of the frame being built; false if none left. */
    boolean attach(final long address, final int length)
    {
        if (pendingCount == MAX_PIECES || length > 0xFFFF || !refillStash())
        {
            return false;
        }
        final long mbuf = UnsafeApi.getLong(stash + 8L * --stashCount);
        final int slot = (int)epoch & (EPOCHS - 1);
        attached[slot]++;
        DpdkBindings.rnic_dpdk_attach_extbuf(mbuf, address, (short)length, released + 8L * slot);
        UnsafeApi.putLong(pending + 8L * pendingCount++, mbuf);
        pendingBytes += length;
        return true;
    }

    /** Segments attached to the frame being built. */
    int pendingCount()
    {
        return pendingCount;
    }

    /** Frees the segments of the frame being built (their releases are counted: nothing is left owed). */
    void detach()
    {
        if (pendingCount > 0)
        {
            DpdkBindings.rte_pktmbuf_free_bulk(pending, pendingCount);
            pendingCount = 0;
            pendingBytes = 0;
        }
    }

    /**
     * Chains head → the attached segments → trailer and sets the frame's lengths; the segments then belong to the
     * frame (freed with it by the driver).
     */
    void chain(final long head, final int headBytes, final long trailer, final int trailerBytes)
    {
        long previous = head;
        for (int i = 0; i < pendingCount; i++)
        {
            final long segment = UnsafeApi.getLong(pending + 8L * i);
            UnsafeApi.putLong(previous + MBUF_NEXT, segment);
            previous = segment;
        }
        UnsafeApi.putLong(previous + MBUF_NEXT, trailer);
        UnsafeApi.putShort(head + MBUF_DATA_LEN, (short)headBytes);
        UnsafeApi.putShort(trailer + MBUF_DATA_LEN, (short)trailerBytes);
        UnsafeApi.putInt(trailer + MBUF_PKT_LEN, trailerBytes);
        UnsafeApi.putShort(head + MBUF_NB_SEGS, (short)(pendingCount + 2));
        UnsafeApi.putInt(head + MBUF_PKT_LEN, headBytes + pendingBytes + trailerBytes);
        pendingCount = 0;
        pendingBytes = 0;
    }

    /**
     * Closes the current epoch: every attachment made so far is in it or an earlier one. The next epoch opens when
     * its slot's previous epoch has drained (it always has, unless {@value #EPOCHS} fences are outstanding: then
     * the epoch stays open and the fence waits for later attachments too, until they drain).
     */
    long fence()
    {
        final long closed = epoch;
        final int next = (int)(closed + 1) & (EPOCHS - 1);
        if (drained(next))
        {
            attached[next] = 0;
            UnsafeApi.putLongVolatile(null, released + 8L * next, 0);
            epoch = closed + 1;
        }
        return closed;
    }

    /** Whether every epoch up to {@code fence} has had all its attachments released. */
    boolean released(final long fence)
    {
        for (long e = Math.max(0, epoch - EPOCHS + 1); e <= fence && e <= epoch; e++)
        {
            if (!drained((int)e & (EPOCHS - 1)))
            {
                return false;
            }
        }
        return true;
    }

    /** Attachments not yet released, all epochs. */
    long held()
    {
        long held = 0;
        for (int slot = 0; slot < EPOCHS; slot++)
        {
            held += attached[slot] - UnsafeApi.getLongVolatile(null, released + 8L * slot);
        }
        return held;
    }

    /** Gives the stash back to the pool (the pending frame's segments too). Before the engine thread leaves EAL. */
    void returnHeld()
    {
        detach();
        if (stashCount > 0)
        {
            DpdkBindings.rte_pktmbuf_free_bulk(stash, stashCount);
            stashCount = 0;
        }
    }

    private boolean drained(final int slot)
    {
        return attached[slot] == UnsafeApi.getLongVolatile(null, released + 8L * slot);
    }

    private boolean refillStash()
    {
        if (stashCount == 0)
        {
            if (DpdkBindings.rte_pktmbuf_alloc_bulk(pool.address(), stash, STASH) != 0)
            {
                return false; // every attaching mbuf is in a frame: copy this one
            }
            stashCount = STASH;
        }
        return true;
    }
}
