package io.rnic.device;

import io.rnic.verbs.CompletionQueue;
import org.agrona.BitUtil;

/**
 * The memory a device's objects hold, as the device charges them to its budget ({@link DeviceLimits}): upper bounds
 * of what they were measured to retain (heap after a GC, plus a CQ's direct buffer) on JDK 25, with compressed
 * references and without (a heap above 32 GiB), rounded up; BENCHMARKS.md ("Device limits") has the measurements.
 * A work queue holds one request object per slot, its slots a power of two, each sized to the queue's SGEs. The
 * fixed parts include the device's note of what each object reserved (a map entry, ~80 B).
 */
public final class ResourceCosts
{
    /** What a QP holds whatever its queues: its transport state, replay cache and response queue (3.3–3.8 KB). */
    static final long QP_FIXED_BYTES = 3_584;
    /** A send queue slot: the request, its place in the ring and its PSN bookkeeping, besides its SGEs (~312 B). */
    static final long SEND_WR_BYTES = 320;
    /** A receive queue slot besides its SGEs (~155 B). */
    static final long RECV_WR_BYTES = 160;
    /** One scatter/gather entry of a slot (address, length, key: 15.5 B). */
    static final long SGE_BYTES = 16;
    /** What an SRQ holds besides its ring (~260 B). */
    static final long SRQ_FIXED_BYTES = 640;
    /** A CQ's objects besides its ring (~380 B), and the ring's alignment slack. */
    static final long CQ_FIXED_BYTES = 640;
    /** A memory region's objects (120–170 B). */
    public static final long MR_BYTES = 384;
    /** A memory window's objects. */
    public static final long MW_BYTES = 384;

    private ResourceCosts()
    {
    }

    /** A QP with these queue sizes and SGEs per request (a QP of an SRQ: {@code recvWr} 0). */
    public static long queuePair(final int sendWr, final int sendSge, final int recvWr, final int recvSge)
    {
        return QP_FIXED_BYTES + slots(sendWr) * (SEND_WR_BYTES + sendSge * SGE_BYTES) +
            slots(recvWr) * (RECV_WR_BYTES + recvSge * SGE_BYTES);
    }

    /** An SRQ of {@code maxWr} requests of {@code maxSge} entries whose ring the device holds. */
    public static long sharedReceiveQueue(final int maxWr, final int maxSge)
    {
        return SRQ_FIXED_BYTES + slots(maxWr) * (RECV_WR_BYTES + maxSge * SGE_BYTES);
    }

    /** An SRQ whose ring is in a driver's client's memory. */
    public static long clientSharedReceiveQueue()
    {
        return SRQ_FIXED_BYTES;
    }

    /** A CQ of {@code entries} whose ring the device holds (a direct buffer). */
    public static long completionQueue(final int entries)
    {
        return CQ_FIXED_BYTES + CompletionQueue.requiredBytes(entries);
    }

    /** A CQ whose ring is in a driver's client's memory. */
    public static long clientCompletionQueue()
    {
        return CQ_FIXED_BYTES;
    }

    private static long slots(final int requests)
    {
        return requests <= 0 ? 0 : BitUtil.findNextPositivePowerOfTwo(requests);
    }
}
