package io.rnic.verbs;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A shared receive queue ({@code struct ibv_srq}): receive work requests posted once, taken by whichever attached RC
 * or UD QP receives a message first. Application threads post ({@link #postRecv}, lock-free, any number of threads,
 * as a QP's receive queue); the one engine thread that owns every QP attached to it ({@link #shard()}) takes them in
 * order, copying each into the QP that consumes it (rxe's {@code get_srq_wqe}), so that a QP holds its WQE while a
 * message of many packets arrives and the others go on with the next.
 * <p>
 * The limit ({@code srq_limit}): when armed (not 0) and a take leaves fewer posted requests than it, the SRQ raises
 * {@link AsyncEvent#SRQ_LIMIT_REACHED} once and disarms; {@link #modify} arms it again. The application may re-arm
 * while the engine disarms: one compare-and-set decides, so the event is neither lost nor raised twice.
 */
public final class SharedReceiveQueue
{
    /** The most receive work requests an SRQ can be created with ({@code max_srq_wr}). */
    public static final int MAX_SRQ_WR = 1 << 16;

    private static final VarHandle LIMIT;

    static
    {
        try
        {
            LIMIT = MethodHandles.lookup().findVarHandle(SharedReceiveQueue.class, "limit", int.class);
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
    private final WorkQueueRing<RecvWorkRequest> ring;
    private final AsyncEventQueue events;
    private final AtomicInteger attachedQps = new AtomicInteger();
    @SuppressWarnings("unused") // through LIMIT
    private volatile int limit;
    private volatile boolean destroyed;
    /** The position of the next request to take. Engine thread. */
    private long head;

    /**
     * An SRQ as {@code ibv_create_srq} makes it, on the engine {@code shard} of its device, raising its events on
     * {@code events}.
     *
     * @throws VerbsException EINVAL for a size, scatter/gather count or limit out of range (rxe's checks).
     */
    public SharedReceiveQueue(
        final int handle,
        final ProtectionDomain pd,
        final SrqAttributes attributes,
        final int shard,
        final AsyncEventQueue events)
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
        final int sge = attributes.maxSge;
        this.handle = handle;
        this.pd = pd;
        this.shard = shard;
        this.maxSge = sge;
        this.ring = new WorkQueueRing<>(attributes.maxWr, () -> new RecvWorkRequest(sge), (from, to) -> to.copyFrom(from));
        this.events = events;
        this.limit = attributes.srqLimit;
        events.register(this);
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
        if (destroyed || wr.sgl.count() > maxSge)
        {
            return Errno.EINVAL;
        }
        return ring.offer(wr) ? 0 : Errno.ENOMEM;
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
            if (attributes.srqLimit < 0 || attributes.srqLimit > ring.capacity())
            {
                throw new VerbsException(Errno.EINVAL, "ibv_modify_srq: srq_limit " + attributes.srqLimit +
                    " out of range 0.." + ring.capacity());
            }
            LIMIT.setVolatile(this, attributes.srqLimit);
        }
    }

    /** {@code ibv_query_srq}: the SRQ's size, scatter/gather entries and current limit (0 once it has fired). */
    public SrqAttributes query(final SrqAttributes into)
    {
        into.maxWr = ring.capacity();
        into.maxSge = maxSge;
        into.srqLimit = (int)LIMIT.getVolatile(this);
        return into;
    }

    /** Where the SRQ and the QPs attached to it raise their asynchronous events. */
    public AsyncEventQueue events()
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
        events.unregister(this);
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
        final RecvWorkRequest wqe = ring.posted(position);
        if (wqe == null)
        {
            return false;
        }
        into.copyFrom(wqe);
        ring.release(position);
        head = position + 1;
        final int armed = (int)LIMIT.getVolatile(this);
        if (armed != 0 && ring.tail() - head < armed && LIMIT.compareAndSet(this, armed, 0))
        {
            events.srqEvent(AsyncEvent.SRQ_LIMIT_REACHED, this);
        }
        return true;
    }

    /** Requests posted and not yet taken (approximate while posts are under way). */
    public long postedCount()
    {
        return ring.tail() - head;
    }

    public String toString()
    {
        return "SharedReceiveQueue{handle=" + handle + ", maxWr=" + ring.capacity() + ", maxSge=" + maxSge + '}';
    }
}
