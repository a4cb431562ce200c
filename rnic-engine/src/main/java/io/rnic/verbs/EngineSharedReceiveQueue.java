package io.rnic.verbs;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A shared receive queue of an engine ({@code struct ibv_srq}): receive work requests posted once, taken by whichever
 * attached RC or UD QP receives a message first. Application threads post into its {@link WorkRequestRing} ({@link
 * #postRecv}, lock-free, any number of threads: the embedded application's, or a driver's client into the ring in
 * the memory it shares with the driver); the one engine thread that owns every QP attached to it ({@link #shard()})
 * takes them in order from that ring, copying each into the QP that consumes it (rxe's {@code get_srq_wqe}), so that
 * a QP holds its WQE while a message of many packets arrives and the others go on with the next. The SRQ's size, its
 * count for the limit and ENOMEM are the ring's. The engine does not trust a client's ring: a malformed entry is
 * consumed, counted and not taken.
 * <p>
 * The limit ({@code srq_limit}): when armed (not 0) and a take leaves fewer posted requests than it, the SRQ raises
 * {@link AsyncEvent#SRQ_LIMIT_REACHED} once and disarms; {@link #modify} arms it again. The application may re-arm
 * while the engine disarms: one compare-and-set decides, so the event is neither lost nor raised twice.
 */
public final class EngineSharedReceiveQueue implements SharedReceiveQueue
{
    private static final VarHandle LIMIT;

    static
    {
        try
        {
            LIMIT = MethodHandles.lookup().findVarHandle(EngineSharedReceiveQueue.class, "limit", int.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private final int handle;
    private final ProtectionDomain pd;
    private final int shard;
    private final int maxSge;
    /** Where the application posts and the engine takes from. */
    private final WorkRequestRing ring;
    private final EventRing events;
    private final AtomicInteger attachedQps = new AtomicInteger();
    @SuppressWarnings("unused") // through LIMIT
    private volatile int limit;
    private volatile boolean destroyed;
    /** The position of the next request to take. Engine thread. */
    private long head;

    /**
     * An SRQ as {@code ibv_create_srq} makes it, on the engine {@code shard} of its device, raising its events on
     * {@code events}, its ring in memory of this process.
     *
     * @throws VerbsException EINVAL for a size, scatter/gather count or limit out of range (rxe's checks).
     */
    public EngineSharedReceiveQueue(
        final int handle,
        final ProtectionDomain pd,
        final SrqAttributes attributes,
        final int shard,
        final EventRing events)
    {
        this(handle, pd, ring(pd, attributes), attributes.srqLimit, shard, events);
    }

    /**
     * An SRQ whose requests are posted into {@code ring} (a receive ring the engine's side formatted, e.g. in a
     * driver's client's memory, with the counter of its malformed entries).
     *
     * @throws VerbsException EINVAL for a limit out of range or a ring of send requests.
     */
    public EngineSharedReceiveQueue(
        final int handle,
        final ProtectionDomain pd,
        final WorkRequestRing ring,
        final int srqLimit,
        final int shard,
        final EventRing events)
    {
        check(pd, new SrqAttributes().maxWr(ring.capacity()).maxSge(ring.maxSge()).srqLimit(srqLimit));
        if (ring.kind() != WorkRequestRing.RECV)
        {
            throw new VerbsException(Errno.EINVAL, "ibv_create_srq: the ring holds send requests");
        }
        this.handle = handle;
        this.pd = pd;
        this.shard = shard;
        this.maxSge = ring.maxSge();
        this.ring = ring;
        this.events = events;
        this.limit = srqLimit;
    }

    private static WorkRequestRing ring(final ProtectionDomain pd, final SrqAttributes attributes)
    {
        check(pd, attributes);
        return WorkRequestRing.allocate(WorkRequestRing.RECV, attributes.maxWr, attributes.maxSge, false);
    }

    /** rxe's checks of {@code ibv_create_srq}'s attributes. */
    public static void check(final ProtectionDomain pd, final SrqAttributes attributes)
    {
        if (pd == null)
        {
            throw new VerbsException(Errno.EINVAL, "ibv_create_srq: no protection domain given");
        }
        if (attributes.maxWr < 1 || attributes.maxWr > MAX_SRQ_WR)
        {
            throw new VerbsException(Errno.EINVAL, "ibv_create_srq: max_wr " + attributes.maxWr +
                " out of range 1.." + MAX_SRQ_WR);
        }
        if (attributes.maxSge < 1 || attributes.maxSge > ScatterGatherList.MAX_SGE)
        {
            throw new VerbsException(Errno.EINVAL, "ibv_create_srq: max_sge " + attributes.maxSge +
                " out of range 1.." + ScatterGatherList.MAX_SGE);
        }
        if (attributes.srqLimit < 0 || attributes.srqLimit > attributes.maxWr)
        {
            throw new VerbsException(Errno.EINVAL, "ibv_create_srq: srq_limit " + attributes.srqLimit +
                " out of range 0.." + attributes.maxWr);
        }
    }

    public int handle()
    {
        return handle;
    }

    public ProtectionDomain pd()
    {
        return pd;
    }

    /** The engine shard that owns every QP attached to this SRQ (its only consumer). */
    public int shard()
    {
        return shard;
    }

    public int maxSge()
    {
        return maxSge;
    }

    /**
     * {@code ibv_post_srq_recv}: copies {@code wr} into the queue. Any thread; lock-free, allocates nothing.
     *
     * @return 0, {@link Errno#ENOMEM} when the queue is full, {@link Errno#EINVAL} for more scatter/gather entries
     * than {@code max_sge} or an SRQ destroyed.
     */
    public int postRecv(final RecvWorkRequest wr)
    {
        return SharedReceiveQueue.post(destroyed, wr, ring);
    }

    /**
     * {@code ibv_modify_srq}: {@link SrqAttrMask#LIMIT} arms (or with 0 disarms) the limit event;
     * {@link SrqAttrMask#MAX_WR} is refused, the SRQ cannot be resized.
     *
     * @throws VerbsException EINVAL for a limit above the SRQ's size or a resize, naming it; nothing changes then.
     */
    public void modify(final SrqAttributes attributes, final int mask)
    {
        if (destroyed)
        {
            throw new VerbsException(Errno.EINVAL, "ibv_modify_srq: SRQ " + handle + " is destroyed");
        }
        if ((mask & ~(SrqAttrMask.MAX_WR | SrqAttrMask.LIMIT)) != 0)
        {
            throw new VerbsException(Errno.EINVAL, "ibv_modify_srq: unknown attribute mask bits 0x" +
                Integer.toHexString(mask & ~(SrqAttrMask.MAX_WR | SrqAttrMask.LIMIT)));
        }
        if ((mask & SrqAttrMask.MAX_WR) != 0)
        {
            throw new VerbsException(Errno.EINVAL, "ibv_modify_srq: IBV_SRQ_MAX_WR: the SRQ cannot be resized");
        }
        if ((mask & SrqAttrMask.LIMIT) != 0)
        {
            if (attributes.srqLimit < 0 || attributes.srqLimit > capacity())
            {
                throw new VerbsException(Errno.EINVAL, "ibv_modify_srq: srq_limit " + attributes.srqLimit +
                    " out of range 0.." + capacity());
            }
            LIMIT.setVolatile(this, attributes.srqLimit);
        }
    }

    /** {@code ibv_query_srq}: the SRQ's size, scatter/gather entries and current limit (0 once it has fired). */
    public SrqAttributes query(final SrqAttributes into)
    {
        into.maxWr = capacity();
        into.maxSge = maxSge;
        into.srqLimit = (int)LIMIT.getVolatile(this);
        return into;
    }

    /** Where the SRQ and the QPs attached to it raise their asynchronous events. */
    public EventRing events()
    {
        return events;
    }

    /** QPs created with this SRQ and not yet destroyed. */
    public int attachedQps()
    {
        return attachedQps.get();
    }

    /** A QP is created with this SRQ. Control path (synchronized with {@link #destroy}; never the engine thread). */
    public synchronized void attach()
    {
        if (destroyed)
        {
            throw new VerbsException(Errno.EINVAL, "ibv_create_qp: SRQ " + handle + " is destroyed");
        }
        attachedQps.incrementAndGet();
    }

    /** A QP created with this SRQ is destroyed. Control path. */
    public synchronized void detach()
    {
        attachedQps.decrementAndGet();
    }

    /**
     * {@code ibv_destroy_srq}: refused while QPs use it; the requests still posted are never completed (ibverbs).
     *
     * @throws VerbsException EBUSY while QPs are attached.
     */
    public synchronized void destroy()
    {
        final int attached = attachedQps.get();
        if (attached != 0)
        {
            throw new VerbsException(Errno.EBUSY, "ibv_destroy_srq: SRQ " + handle + " is used by " + attached +
                " QP" + (attached == 1 ? "" : "s"));
        }
        destroyed = true;
    }

    public boolean isDestroyed()
    {
        return destroyed;
    }

    /**
     * Moves the oldest posted request into {@code into} (the consuming QP's own copy) and frees its slot; raises the
     * limit event when this take leaves fewer requests than the armed limit. Engine thread; allocates nothing.
     *
     * @return false, and nothing is taken, when none is posted.
     */
    public boolean take(final RecvWorkRequest into)
    {
        final long position = head;
        final int decoded = ring.decodeAhead(1); // the SRQ takes in order and releases at once: head is the next
        if (decoded == 0)
        {
            return false;
        }
        into.copyFrom(ring.postedRecv(position));
        ring.release(position);
        head = position + 1;
        if (decoded < 0)
        {
            return false; // malformed, counted: the client's own SRQ, its sender sees an empty one (RNR, or a drop)
        }
        final int armed = (int)LIMIT.getVolatile(this);
        if (armed != 0 && postedCount() < armed && LIMIT.compareAndSet(this, armed, 0))
        {
            events.offerAsyncEvent(AsyncEvent.SRQ_LIMIT_REACHED, 0, handle);
        }
        return true;
    }

    /**
     * Requests posted and not yet taken (approximate while posts are under way; from the producer position, which a
     * client may have scribbled: kept within 0..capacity).
     */
    public long postedCount()
    {
        return Math.max(0, Math.min(ring.capacity(), ring.producerPosition() - head));
    }

    private int capacity()
    {
        return ring.capacity();
    }

    public String toString()
    {
        return "SharedReceiveQueue{handle=" + handle + ", maxWr=" + capacity() + ", maxSge=" + maxSge + '}';
    }
}
