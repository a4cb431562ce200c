package io.rnic.verbs;

import org.agrona.concurrent.status.AtomicCounter;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A shared receive queue of an engine ({@code struct ibv_srq}): receive work requests posted once, taken by whichever
 * attached RC or UD QP receives a message first. Application threads post ({@link #postRecv}, lock-free, any number of
 * threads, as a QP's receive queue); the one engine thread that owns every QP attached to it ({@link #shard()}) takes
 * them in order, copying each into the QP that consumes it (rxe's {@code get_srq_wqe}), so that a QP holds its WQE
 * while a message of many packets arrives and the others go on with the next.
 * <p>
 * A driver's client posts into a {@link WorkRequestRing} in memory it shares with the driver instead: the engine then
 * takes straight from that ring ({@link #EngineSharedReceiveQueue(int, ProtectionDomain, WorkRequestRing, int, int,
 * EventRing, AtomicCounter)}), so that the SRQ's size, its count for the limit and the client's ENOMEM are the
 * ring's alone, as embedded. The engine does not trust that ring: a malformed entry is consumed, counted and not
 * taken.
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
    /** Where the application posts, or null when a driver's client posts into {@link #clientRing}. */
    private final WorkQueueRing<RecvWorkRequest> ring;
    /** The ring in a client's shared memory the engine takes from (its consumer), or null. */
    private final WorkRequestRing clientRing;
    /** Malformed entries of {@link #clientRing} (the driver's counter), or null. */
    private final AtomicCounter malformed;
    private final EventRing events;
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
    public EngineSharedReceiveQueue(
        final int handle,
        final ProtectionDomain pd,
        final SrqAttributes attributes,
        final int shard,
        final EventRing events)
    {
        check(pd, attributes);
        final int sge = attributes.maxSge;
        this.handle = handle;
        this.pd = pd;
        this.shard = shard;
        this.maxSge = sge;
        this.ring = new WorkQueueRing<>(attributes.maxWr, () -> new RecvWorkRequest(sge), (from, to) -> to.copyFrom(from));
        this.clientRing = null;
        this.malformed = null;
        this.events = events;
        this.limit = attributes.srqLimit;
    }

    /**
     * An SRQ a driver's client posts into: the engine takes from {@code clientRing} (a receive ring the driver
     * formatted in the client's memory), counting its malformed entries on {@code malformed}.
     *
     * @throws VerbsException EINVAL for a limit out of range.
     */
    public EngineSharedReceiveQueue(
        final int handle,
        final ProtectionDomain pd,
        final WorkRequestRing clientRing,
        final int srqLimit,
        final int shard,
        final EventRing events,
        final AtomicCounter malformed)
    {
        check(pd, new SrqAttributes().maxWr(clientRing.capacity()).maxSge(clientRing.maxSge()).srqLimit(srqLimit));
        if (clientRing.kind() != WorkRequestRing.RECV)
        {
            throw new VerbsException(Errno.EINVAL, "ibv_create_srq: the client's ring holds send requests");
        }
        this.handle = handle;
        this.pd = pd;
        this.shard = shard;
        this.maxSge = clientRing.maxSge();
        this.ring = null;
        this.clientRing = clientRing;
        this.malformed = malformed;
        this.events = events;
        this.limit = srqLimit;
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
     * than {@code max_sge}, an SRQ destroyed, or one whose client posts into its own ring.
     */
    public int postRecv(final RecvWorkRequest wr)
    {
        if (destroyed || ring == null || wr.sgl.count() > maxSge)
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
        if (clientRing != null)
        {
            final int polled = clientRing.pollRecv(into);
            if (polled <= 0)
            {
                if (polled < 0)
                {
                    malformed.increment(); // the client's own SRQ: its sender sees an empty one (RNR, or a drop)
                }
                return false;
            }
        }
        else
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
        }
        final int armed = (int)LIMIT.getVolatile(this);
        if (armed != 0 && postedCount() < armed && LIMIT.compareAndSet(this, armed, 0))
        {
            events.offerAsyncEvent(AsyncEvent.SRQ_LIMIT_REACHED, 0, handle);
        }
        return true;
    }

    /** Requests posted and not yet taken (approximate while posts are under way). */
    public long postedCount()
    {
        return clientRing != null ? clientRing.size() : ring.tail() - head;
    }

    private int capacity()
    {
        return clientRing != null ? clientRing.capacity() : ring.capacity();
    }

    public String toString()
    {
        return "SharedReceiveQueue{handle=" + handle + ", maxWr=" + capacity() + ", maxSge=" + maxSge + '}';
    }
}
