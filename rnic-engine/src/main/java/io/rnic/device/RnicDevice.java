package io.rnic.device;

import io.rnic.cc.DcqcnParameters;
import io.rnic.status.CounterTypes;
import io.rnic.transport.LocalPort;
import io.rnic.transport.PacketSink;
import io.rnic.transport.QpContext;
import io.rnic.transport.QpTable;
import io.rnic.transport.RnicEngine;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.AsyncEvent;
import io.rnic.verbs.EngineSharedReceiveQueue;
import io.rnic.verbs.Errno;
import io.rnic.verbs.EventRing;
import io.rnic.verbs.MemoryRegion;
import io.rnic.verbs.MemoryRegionTable;
import io.rnic.verbs.MemoryWindow;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.QpInitAttributes;
import io.rnic.verbs.QpType;
import io.rnic.verbs.ScatterGatherList;
import io.rnic.verbs.SharedReceiveQueue;
import io.rnic.verbs.SrqAttributes;
import io.rnic.verbs.VerbsException;
import io.rnic.verbs.WorkRequestRing;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.status.CountersManager;

import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The device and its context ({@code ibv_context}): where protection domains, memory regions, completion queues
 * and queue pairs come from. One engine serves it; control calls are made from any thread. What it may hold is
 * bounded ({@link DeviceLimits}, by default from the JVM's memory): a create past a limit fails with ENOMEM.
 */
public final class RnicDevice
{
    /** The most work requests a QP's send or receive queue can be created with ({@code max_qp_wr}). */
    public static final int MAX_QP_WR = 1 << 16;

    private final MemoryRegionTable regions = new MemoryRegionTable();
    private final DeviceResources resources;
    /** What each object holding resources reserved ({@link DeviceResources#reserve}), given back when destroyed. */
    private final Map<Object, Long> reservedBytes = new ConcurrentHashMap<>();
    private final RnicEngine[] engines;
    private final AtomicInteger nextHandle = new AtomicInteger(1);
    private final AtomicInteger nextShard = new AtomicInteger();
    /**
     * The engines raise asynchronous events here; the application polls them, the SRQ named by its handle. Made after
     * {@link JvmFlags#check}: its buffer is Agrona's, which fails without the flags.
     */
    private final EventRing asyncEvents;
    private final Map<Integer, SharedReceiveQueue> srqs = new ConcurrentHashMap<>();

    public RnicDevice(final LocalPort port, final PacketSink sink, final NanoClock clock)
    {
        JvmFlags.check();
        this.asyncEvents = EventRing.allocate();
        this.resources = new DeviceResources(DeviceLimits.forThisJvm());
        this.engines = new RnicEngine[]{ new RnicEngine(port, regions, sink, clock) };
    }

    /**
     * A device served by {@code shards} engines (one per engine thread) sharing its memory regions; QPs are spread
     * over them and each engine owns the QPs numbered {@code shard} modulo {@code shards}. Each engine's sink is set
     * by whoever drives it.
     */
    public RnicDevice(final LocalPort port, final NanoClock clock, final int shards)
    {
        this(port, clock, shards, null);
    }

    /**
     * As {@link #RnicDevice(LocalPort, NanoClock, int)}, the engines counting into {@code counters} (an endpoint's,
     * which holds all of its counters), or each into its own when null.
     */
    public RnicDevice(final LocalPort port, final NanoClock clock, final int shards, final CountersManager counters)
    {
        this(port, clock, shards, counters, DeviceLimits.forThisJvm());
    }

    /** As {@link #RnicDevice(LocalPort, NanoClock, int, CountersManager)}, holding no more than {@code limits}. */
    public RnicDevice(
        final LocalPort port, final NanoClock clock, final int shards, final CountersManager counters,
        final DeviceLimits limits)
    {
        JvmFlags.check(); // before the engines' first Agrona buffer, which fails without the flags
        this.asyncEvents = EventRing.allocate();
        this.resources = new DeviceResources(limits);
        if (shards < 1 || shards > 64)
        {
            throw new VerbsException("engine shards " + shards + " out of range 1..64");
        }
        this.engines = new RnicEngine[shards];
        for (int i = 0; i < shards; i++)
        {
            final PacketSink noSink = (buffer, offset, length) -> { };
            engines[i] = new RnicEngine(port, regions, noSink, clock, i, shards,
                counters == null ? CounterTypes.newManager(CounterTypes.ENGINE_CAPACITY) : counters);
        }
    }

    /** What the device holds now against its limits; a driver charges its clients' CQs here too. */
    public DeviceResources resources()
    {
        return resources;
    }

    /** The first (with one shard: the only) engine. */
    public RnicEngine engine()
    {
        return engines[0];
    }

    public RnicEngine[] engines()
    {
        return engines.clone();
    }

    /** The engine that owns a QPN. */
    public RnicEngine engineFor(final int qpn)
    {
        return engines[qpn % engines.length];
    }

    /**
     * The device-wide default of congestion control, for QPs created after the call: DCQCN with {@code parameters},
     * or off when null (the default). Per QP: {@link QueuePair#congestionControl(DcqcnParameters)}.
     */
    public void congestionControl(final DcqcnParameters parameters)
    {
        for (final RnicEngine engine : engines)
        {
            engine.congestionControl(parameters);
        }
    }

    public ProtectionDomain allocPd()
    {
        return new ProtectionDomain(nextHandle.getAndIncrement());
    }

    /** Registers off-heap memory with the given {@link io.rnic.verbs.AccessFlags}. */
    public MemoryRegion registerMemoryRegion(final ProtectionDomain pd, final MemorySegment segment, final int access)
    {
        return registerMemoryRegion(pd, segment, segment.address(), access);
    }

    /**
     * Registers off-heap memory that work requests and peers name from {@code iova} on ({@code ibv_reg_mr_iova}): a
     * driver registering its mapping of a client's memory at the client's address.
     */
    public MemoryRegion registerMemoryRegion(
        final ProtectionDomain pd, final MemorySegment segment, final long iova, final int access)
    {
        if (pd == null)
        {
            throw new VerbsException("no protection domain given");
        }
        reserve(ResourceKind.MR, ResourceCosts.MR_BYTES);
        try
        {
            return held(regions.register(pd, segment, iova, access), ResourceCosts.MR_BYTES);
        }
        catch (final RuntimeException ex)
        {
            resources.release(ResourceKind.MR, ResourceCosts.MR_BYTES);
            throw ex;
        }
    }

    /**
     * ibverbs {@code dereg_mr}: returns once every engine of the device has applied it (see
     * {@link MemoryRegionTable#deregister}); from then on no packet reads or writes the region's memory, and the
     * application may free it. Waits for the engine threads: not from inside one's duty cycle on a sharded device.
     */
    public void deregisterMemoryRegion(final MemoryRegion region)
    {
        regions.deregister(region);
        release(ResourceKind.MR, region);
    }

    /** ibverbs {@code alloc_mw} (see {@link MemoryWindow}). */
    public MemoryWindow allocMw(final ProtectionDomain pd, final int type)
    {
        reserve(ResourceKind.MW, ResourceCosts.MW_BYTES);
        try
        {
            return held(regions.windows().allocate(pd, type), ResourceCosts.MW_BYTES);
        }
        catch (final RuntimeException ex)
        {
            resources.release(ResourceKind.MW, ResourceCosts.MW_BYTES);
            throw ex;
        }
    }

    /** ibverbs {@code dealloc_mw}: unbinds the window (its region may then be deregistered); its keys stop working. */
    public void deallocMw(final MemoryWindow window)
    {
        regions.windows().deallocate(window);
        release(ResourceKind.MW, window);
    }

    public CompletionQueue createCq(final int entries)
    {
        final long bytes = ResourceCosts.completionQueue(entries); // refuses entries out of range
        reserve(ResourceKind.CQ, bytes);
        try
        {
            return held(new CompletionQueue(nextHandle.getAndIncrement(), entries), bytes);
        }
        catch (final RuntimeException ex)
        {
            resources.release(ResourceKind.CQ, bytes);
            throw ex;
        }
    }

    /** ibverbs {@code destroy_cq} of a CQ no QP uses any more: its memory goes with its last reference. */
    public void destroyCq(final CompletionQueue cq)
    {
        release(ResourceKind.CQ, cq);
    }

    /**
     * ibverbs {@code create_qp}. A QP created with an SRQ goes to the SRQ's engine, so that one thread alone takes
     * the SRQ's requests.
     */
    public EngineQueuePair createQp(final QpInitAttributes init)
    {
        return createQp(init, null, null);
    }

    /**
     * ibverbs {@code create_qp} with its work queues in rings the caller formatted (a driver's client's shared
     * memory), or in memory of this process where they are null. {@code recvQueue} is ignored for a QP of an
     * SRQ.
     */
    public EngineQueuePair createQp(
        final QpInitAttributes init, final WorkRequestRing sendQueue, final WorkRequestRing recvQueue)
    {
        final RnicEngine engine = init.srq instanceof EngineSharedReceiveQueue srq ?
            engines[srq.shard()] : engines[Math.floorMod(nextShard.getAndIncrement(), engines.length)];
        return createQp(init, engine, 0, sendQueue, recvQueue);
    }

    /**
     * ibverbs {@code create_srq}: a shared receive queue of {@code attributes.maxWr} requests of up to
     * {@code attributes.maxSge} entries, its limit event armed at {@code attributes.srqLimit} unless 0 (as rxe does).
     * Its events, and those of the QPs attached to it, come out of {@link #pollAsyncEvent}.
     *
     * @throws VerbsException EINVAL for a size, entry count or limit out of range.
     */
    public EngineSharedReceiveQueue createSrq(final ProtectionDomain pd, final SrqAttributes attributes)
    {
        EngineSharedReceiveQueue.check(pd, attributes);
        final long bytes = ResourceCosts.sharedReceiveQueue(attributes.maxWr, attributes.maxSge);
        reserve(ResourceKind.SRQ, bytes);
        try
        {
            return registered(held(new EngineSharedReceiveQueue(nextHandle.getAndIncrement(), pd, attributes,
                Math.floorMod(nextShard.getAndIncrement(), engines.length), asyncEvents), bytes));
        }
        catch (final RuntimeException ex)
        {
            resources.release(ResourceKind.SRQ, bytes);
            throw ex;
        }
    }

    /**
     * A shared receive queue a driver's client posts into: its engine takes the requests straight from
     * {@code clientRing}, a receive ring in the client's memory (formatted with the counter of its malformed
     * entries).
     *
     * @throws VerbsException EINVAL for a limit out of range.
     */
    public EngineSharedReceiveQueue createSrq(
        final ProtectionDomain pd, final WorkRequestRing clientRing, final int srqLimit)
    {
        final long bytes = ResourceCosts.clientSharedReceiveQueue();
        reserve(ResourceKind.SRQ, bytes);
        try
        {
            return registered(held(new EngineSharedReceiveQueue(nextHandle.getAndIncrement(), pd, clientRing, srqLimit,
                Math.floorMod(nextShard.getAndIncrement(), engines.length), asyncEvents), bytes));
        }
        catch (final RuntimeException ex)
        {
            resources.release(ResourceKind.SRQ, bytes);
            throw ex;
        }
    }

    /**
     * ibverbs {@code destroy_srq}.
     *
     * @throws VerbsException EBUSY while QPs created with it are not destroyed.
     */
    public void destroySrq(final SharedReceiveQueue srq)
    {
        engineSrq(srq).destroy();
        srqs.remove(srq.handle());
        release(ResourceKind.SRQ, srq);
    }

    /** Known by its handle, which its asynchronous events name. */
    private EngineSharedReceiveQueue registered(final EngineSharedReceiveQueue srq)
    {
        srqs.put(srq.handle(), srq);
        return srq;
    }

    private void reserve(final ResourceKind kind, final long bytes)
    {
        resources.reserve(kind, bytes);
    }

    /** Notes what {@code object} reserved, for its destroy to give back. */
    private <T> T held(final T object, final long bytes)
    {
        reservedBytes.put(object, bytes);
        return object;
    }

    /** Gives back what {@code object} reserved; nothing for one destroyed already (its destroy failed then too). */
    private void release(final ResourceKind kind, final Object object)
    {
        final Long bytes = reservedBytes.remove(object);
        if (bytes != null)
        {
            resources.release(kind, bytes);
        }
    }

    private static EngineSharedReceiveQueue engineSrq(final SharedReceiveQueue srq)
    {
        if (!(srq instanceof EngineSharedReceiveQueue engineSrq))
        {
            throw new VerbsException(Errno.EINVAL, "SRQ " + srq + " is not one of this device's");
        }
        return engineSrq;
    }

    /**
     * {@code ibv_get_async_event} without blocking: the oldest asynchronous event into {@code event}, true if there
     * was one. One thread at a time.
     */
    public boolean pollAsyncEvent(final AsyncEvent event)
    {
        synchronized (asyncEvents)
        {
            final int slot = asyncEvents.peek();
            if (slot < 0)
            {
                return false;
            }
            event.eventType = asyncEvents.payloadInt(slot, EventRing.EVENT_TYPE_OFFSET);
            event.qpNum = asyncEvents.payloadInt(slot, EventRing.QP_NUM_OFFSET);
            final int srqHandle = asyncEvents.handle(slot);
            event.srq = srqHandle == 0 ? null : srqs.get(srqHandle);
            asyncEvents.take();
            return true;
        }
    }

    /** The device's asynchronous event ring (the engines raise events on it). */
    public EventRing asyncEvents()
    {
        return asyncEvents;
    }

    /** Creates a QP on an engine: numbered {@code qpn}, or the engine's next free QPN when 0. */
    private EngineQueuePair createQp(
        final QpInitAttributes init, final RnicEngine engine, final int fixedQpn, final WorkRequestRing sendQueue,
        final WorkRequestRing recvQueue)
    {
        if (init.pd == null || init.sendCq == null || init.recvCq == null)
        {
            throw new VerbsException("a QP needs a protection domain, a send CQ and a receive CQ");
        }
        final EngineSharedReceiveQueue srq = init.srq == null ? null : engineSrq(init.srq);
        if (srq != null && init.type != QpType.RC && init.type != QpType.UD)
        {
            throw new VerbsException(Errno.EINVAL, "ibv_create_qp: an SRQ serves RC and UD QPs, not " + init.type);
        }
        if (srq != null && srq.pd() != init.pd)
        {
            throw new VerbsException(Errno.EINVAL, "ibv_create_qp: the SRQ is of another protection domain");
        }
        if (srq != null && engines[srq.shard()] != engine)
        {
            throw new VerbsException(Errno.EINVAL, "ibv_create_qp: a QP of an SRQ runs on the SRQ's engine");
        }
        final int maxRecvWr = srq != null ? 1 : init.maxRecvWr;
        final int maxRecvSge = srq != null ? 1 : init.maxRecvSge;
        if (init.maxSendWr < 1 || init.maxSendWr > MAX_QP_WR || maxRecvWr < 1 || maxRecvWr > MAX_QP_WR)
        {
            throw new VerbsException("QP work queue sizes " + init.maxSendWr + "/" + init.maxRecvWr +
                " out of range 1.." + MAX_QP_WR);
        }
        if (init.maxSendSge < 1 || init.maxSendSge > ScatterGatherList.MAX_SGE ||
            maxRecvSge < 1 || maxRecvSge > ScatterGatherList.MAX_SGE)
        {
            throw new VerbsException("QP scatter/gather entries " + init.maxSendSge + "/" + init.maxRecvSge +
                " out of range 1.." + ScatterGatherList.MAX_SGE);
        }
        final int maxSendSge = init.maxSendSge;
        final long bytes = ResourceCosts.queuePair(init.maxSendWr, maxSendSge, srq != null ? 0 : maxRecvWr, maxRecvSge);
        reserve(ResourceKind.QP, bytes); // before the rings: a QP that does not fit is refused, not half made
        if (srq != null)
        {
            try
            {
                srq.attach();
            }
            catch (final RuntimeException ex)
            {
                resources.release(ResourceKind.QP, bytes);
                throw ex;
            }
        }
        try
        {
            final WorkRequestRing sq = sendQueue != null ? sendQueue :
                WorkRequestRing.allocate(WorkRequestRing.SEND, init.maxSendWr, maxSendSge, init.type == QpType.UD);
            final WorkRequestRing rq = srq != null ? null : recvQueue != null ? recvQueue :
                WorkRequestRing.allocate(WorkRequestRing.RECV, maxRecvWr, maxRecvSge, false);
            checkRing(sq, WorkRequestRing.SEND, init.maxSendWr, maxSendSge);
            if (rq != null)
            {
                checkRing(rq, WorkRequestRing.RECV, maxRecvWr, maxRecvSge);
            }
            return engine.execute(() ->
            {
                if (fixedQpn != 0 && engine.hasQp(fixedQpn))
                {
                    throw new VerbsException("QPN " + fixedQpn + " already exists");
                }
                final int qpn = fixedQpn != 0 ? fixedQpn : engine.allocateQpn();
                final QpContext context = new QpContext(qpn, init.type, init.pd, init.sendCq, init.recvCq, sq, rq,
                    srq, init.signalAll);
                engine.addQp(context);
                return held(new EngineQueuePair(engine, context, sq, rq), bytes);
            });
        }
        catch (final RuntimeException ex)
        {
            if (srq != null)
            {
                srq.detach();
            }
            resources.release(ResourceKind.QP, bytes);
            throw ex;
        }
    }

    /** A ring a caller formatted for a QP holds what the QP was created with. */
    private static void checkRing(final WorkRequestRing ring, final int kind, final int maxWr, final int maxSge)
    {
        if (ring.kind() != kind || ring.capacity() < maxWr || ring.maxSge() != maxSge)
        {
            throw new VerbsException("a work queue ring of " + ring.capacity() + " entries of " + ring.maxSge() +
                " SGEs does not hold a queue of " + maxWr + " of " + maxSge);
        }
    }

    /**
     * Creates the GSI QP: a UD QP numbered 1, owned by the engine that owns QPN 1, where MADs to QP1 (the
     * connection manager's, Q_Key {@code 0x80010000}) arrive. One per device; bring it to RTS with that Q_Key.
     */
    public EngineQueuePair createGsiQp(final QpInitAttributes init)
    {
        if (init.type != QpType.UD)
        {
            throw new VerbsException("the GSI QP is a UD QP");
        }
        return createQp(init, engineFor(QpTable.GSI_QPN), QpTable.GSI_QPN, null, null);
    }

    public void destroyQp(final QueuePair qp)
    {
        if (!(qp instanceof EngineQueuePair engineQp))
        {
            throw new VerbsException("QP " + qp + " is not one of this device's");
        }
        engineFor(qp.qpn()).removeQp(engineQp.context());
        if (engineQp.context().srq() != null)
        {
            engineQp.context().srq().detach();
        }
        release(ResourceKind.QP, engineQp);
    }
}
