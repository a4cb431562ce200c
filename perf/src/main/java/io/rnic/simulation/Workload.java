package io.rnic.simulation;

import io.rnic.device.QueuePair;
import io.rnic.device.RnicDevice;
import io.rnic.sim.LinkConditions;
import io.rnic.sim.TwoNodeFabric;
import io.rnic.transport.TransportCounter;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.MemoryRegion;
import io.rnic.verbs.MemoryWindow;
import io.rnic.verbs.PathMtu;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.QpInitAttributes;
import io.rnic.verbs.QpState;
import io.rnic.verbs.QpType;
import io.rnic.verbs.RecvWorkRequest;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.SharedReceiveQueue;
import io.rnic.verbs.SrqAttributes;
import io.rnic.verbs.WcStatus;
import io.rnic.verbs.WorkCompletion;
import io.rnic.verbs.WrOpcode;
import io.rnic.wire.FethFlyweight;
import org.agrona.BitUtil;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;
import java.util.function.LongConsumer;

/**
 * A randomised RC workload between the two RNICs of a {@link TwoNodeFabric}: RDMA WRITE, RDMA READ, SEND and
 * atomics of random sizes over several QPs, every byte and every completion checked. Each QP keeps up to
 * {@link Config#inFlightPerQp} operations outstanding, each in its own memory slot on both sides, so that checking
 * never races with reuse. Sizes are drawn log-uniformly from 0 to the maximum (small messages dominate, as in real
 * traffic, and every size class up to the maximum occurs). Atomics (FETCH_ADD and COMPARE_SWAP alternately) each
 * add 1 to a per-QP counter: the original values returned must count up with no gap or repeat, which proves each
 * ran exactly once. An IBTA 1.5 ATOMIC WRITE puts 8 bytes drawn from the pattern in its slot, checked when it
 * completes; a FLUSH (global visibility) names its slot's range, or every other time the whole region.
 */
public final class Workload
{
    /** What to run. */
    public static final class Config
    {
        public long operations = 1000;
        public int qps = 2;
        public int maxSize = 1 << 20;
        public boolean writes = true;
        public boolean reads = true;
        public boolean sends = true;
        public boolean atomics = true;
        /** IBTA 1.5 ATOMIC WRITE: 8 bytes to the operation's slot, checked at completion. */
        public boolean atomicWrites = true;
        /** IBTA 1.5 FLUSH (global visibility) of the operation's slot, or of the whole region every other one. */
        public boolean flushes = true;
        /**
         * SENDs are received through one shared receive queue that every responder QP is attached to (one PD on B),
         * its WQEs each a buffer of its own, taken by whichever QP's SEND arrives first and posted again once checked.
         */
        public boolean srq;
        /**
         * WRITEs through a type 2B memory window the responder's QP bound, and READs through a type 1 window bound
         * with the bind verb, both over the responder's whole data area (off by default: {@code --ops-mix ...,mw}).
         */
        public boolean windows;
        public long seed = 1;
        public LinkConditions conditions = new LinkConditions();
        public PathMtu mtu = PathMtu.MTU_4096;
        public int inFlightPerQp = 8;
        public long maxSimulatedNs = 600_000_000_000L;
        /** ibverbs' retry_cnt (0..7): retries in a row without progress before a WQE fails with RETRY_EXC_ERR. */
        public int retryCount = 7;
        /** ibverbs' rnr_retry (0..7, 7 = infinite): RNR NAKs in a row before RNR_RETRY_EXC_ERR. */
        public int rnrRetry = 7;
        /** ibverbs' timeout (0..31): local ACK timeout 4.096 us x 2^timeout, 0 = none; 8 is about 1 ms. */
        public int timeout = 8;
        /** Told the operations completed so far, every {@link #progressIntervalNs} of wall time; null: nobody. */
        public LongConsumer progress;
        public long progressIntervalNs = 1_000_000_000L;
    }

    private static final int WRITE = 0;
    private static final int READ = 1;
    private static final int SEND = 2;
    private static final int ATOMIC = 3;
    private static final int ATOMIC_WRITE = 4;
    private static final int FLUSH = 5;
    /** A WRITE through the flow's type 2B window (checked as a WRITE). */
    private static final int WINDOW_WRITE = 6;
    /** A READ through the flow's type 1 window (checked as a READ). */
    private static final int WINDOW_READ = 7;
    private static final String[] TYPE_NAMES = { "WRITE", "READ", "SEND", "ATOMIC", "ATOMIC_WRITE", "FLUSH" };

    private Workload()
    {
    }

    /**
     * The SRQ every responder QP shares ({@link Config#srq}): a buffer per WQE (the WQE's wr_id is its index), as
     * many as SENDs can be in flight, so the SRQ is never empty and no SEND waits for an RNR retry.
     */
    private static final class SharedReceives
    {
        final ProtectionDomain pd;
        final SharedReceiveQueue srq;
        final MemorySegment memory;
        final MemoryRegion mr;
        final int bufferBytes;
        final RecvWorkRequest recv = new RecvWorkRequest();

        SharedReceives(final RnicDevice device, final Arena arena, final int buffers, final int bufferBytes)
        {
            this.pd = device.allocPd();
            this.srq = device.createSrq(pd, new SrqAttributes().maxWr(buffers).maxSge(1));
            this.memory = arena.allocate((long)buffers * bufferBytes, 4096);
            this.mr = device.registerMemoryRegion(pd, memory, AccessFlags.ALL);
            this.bufferBytes = bufferBytes;
            for (int i = 0; i < buffers; i++)
            {
                post(i);
            }
        }

        boolean post(final long index)
        {
            recv.reset();
            recv.wrId = index;
            recv.sgl.add(mr.address() + index * bufferBytes, bufferBytes, mr.lKey());
            return srq.postRecv(recv) == 0;
        }
    }

    /** One QP pair: A requests, B responds. */
    private static final class Flow
    {
        QueuePair requester;
        QueuePair responder;
        CompletionQueue requesterCq;
        CompletionQueue responderRecvCq;
        MemorySegment requesterMemory;
        MemorySegment responderMemory;
        MemoryRegion requesterMr;
        MemoryRegion responderMr;
        long[] opIds;
        int[] types;
        int[] sizes;
        long[] expectedAtomic;
        boolean[] received;
        /** Whether the operation in a slot names a memory window's R_Key. */
        boolean[] throughWindow;
        long posted;
        long completed;
        long atomicsPosted;
        long atomicsDone;
        long receivesDone;
        /** The R_Keys of the responder's type 1 and type 2B windows ({@link Config#windows}). */
        int type1WindowRKey;
        int type2WindowRKey;
        /** A WQE completed in error: the QP is in ERR and the rest of its WQEs are flushed. */
        boolean failed;
    }

    /**
     * The bytes of each QP's region on each side: a slot per operation in flight, each the next power of two of the
     * largest size, and the atomic counter's page. {@code rnic simulate} refuses sizes whose region a memory region
     * cannot hold before it allocates anything.
     */
    public static long regionBytes(final Config config)
    {
        final long slotBytes = BitUtil.findNextPositivePowerOfTwo((long)Math.max(Long.BYTES, config.maxSize));
        return config.inFlightPerQp * slotBytes + 4096;
    }

    public static SimulationReport run(final Config config)
    {
        final SimulationReport report = new SimulationReport();
        final int[] mix = mix(config);
        final int slotBytes = BitUtil.findNextPositivePowerOfTwo(Math.max(Long.BYTES, config.maxSize));
        final int slots = config.inFlightPerQp;
        final byte[] pattern = new byte[slotBytes + 4096];
        new SplittableRandom(config.seed ^ 0x5DEECE66DL).nextBytes(pattern);
        final MemorySegment patternSegment = MemorySegment.ofArray(pattern);
        final SplittableRandom random = new SplittableRandom(config.seed);
        final TwoNodeFabric fabric = new TwoNodeFabric(config.conditions, config.seed);
        fabric.a().engine().port().ethernetMtu(9000); // jumbo frames: the simulated link carries IB MTU 4096
        fabric.b().engine().port().ethernetMtu(9000);
        final long wallStart = System.nanoTime();
        final long simulatedStart = fabric.clock().nanoTime();

        try (Arena arena = Arena.ofShared())
        {
            final Flow[] flows = new Flow[config.qps];
            final SharedReceives shared = config.srq ?
                new SharedReceives(fabric.b(), arena, config.qps * slots, slotBytes) : null;
            for (int q = 0; q < config.qps; q++)
            {
                flows[q] = connect(fabric, arena, config, slots, slotBytes, q, shared);
            }
            final WorkCompletion[] wcs = new WorkCompletion[64];
            for (int i = 0; i < wcs.length; i++)
            {
                wcs[i] = new WorkCompletion();
            }
            final SendWorkRequest wr = new SendWorkRequest();
            final RecvWorkRequest recv = new RecvWorkRequest();
            long nextOpId = 0;
            long done = 0;
            final long deadline = simulatedStart + config.maxSimulatedNs;
            long nextProgressNs = wallStart + config.progressIntervalNs;

            while (done < config.operations && report.failures.isEmpty() && report.errors.isEmpty())
            {
                if (fabric.clock().nanoTime() > deadline)
                {
                    report.timedOut = true;
                    for (final Flow flow : flows)
                    {
                        if (flow.completed < flow.posted)
                        {
                            report.fail("stuck: " + flow.requester.describe() + " / responder " +
                                flow.responder.describe());
                        }
                    }
                    break;
                }
                for (final Flow flow : flows)
                {
                    while (nextOpId < config.operations && flow.posted - flow.completed < slots)
                    {
                        post(flow, nextOpId++, mix[random.nextInt(mix.length)], size(random, config.maxSize), slots,
                            slotBytes, patternSegment, wr, recv, shared, report);
                    }
                }
                fabric.step();
                for (final Flow flow : flows)
                {
                    done += poll(flow, config, slotBytes, patternSegment, wcs, shared, report);
                }
                if (config.progress != null && (fabric.steps() & 1023) == 0 && System.nanoTime() >= nextProgressNs)
                {
                    config.progress.accept(report.operations);
                    nextProgressNs = System.nanoTime() + config.progressIntervalNs;
                }
            }

            for (final Flow flow : flows)
            {
                if (flow.failed)
                {
                    continue; // reported with the WQE that failed
                }
                if (flow.requester.state() != QpState.RTS || flow.responder.state() != QpState.RTS)
                {
                    report.fail("QP " + flow.requester.qpn() + " ended in " + flow.requester.state() + " / responder " +
                        flow.responder.state());
                }
                final long counter = flow.responderMemory.get(ValueLayout.JAVA_LONG, (long)slots * slotBytes);
                if (report.failures.isEmpty() && report.errors.isEmpty() && !report.timedOut &&
                    counter != flow.atomicsPosted)
                {
                    report.fail("QP " + flow.requester.qpn() + ": atomic counter " + counter + " after " +
                        flow.atomicsPosted + " atomics");
                }
            }
        }
        report.wallNs = System.nanoTime() - wallStart;
        report.simulatedNs = fabric.clock().nanoTime() - simulatedStart;
        report.steps = fabric.steps();
        report.requesterCounters = fabric.a().engine().counters();
        report.responderCounters = fabric.b().engine().counters();
        report.linkSummary = String.format(
            "%,d frames sent, %,d lost, %,d reordered, %,d duplicated, %,d corrupted, %,d dropped by full link buffers (%s)",
            fabric.aToB().framesIn() + fabric.bToA().framesIn(),
            fabric.aToB().framesLost() + fabric.bToA().framesLost(),
            fabric.aToB().framesReordered() + fabric.bToA().framesReordered(),
            fabric.aToB().framesDuplicated() + fabric.bToA().framesDuplicated(),
            fabric.aToB().framesCorrupted() + fabric.bToA().framesCorrupted(),
            fabric.aToB().framesOverflowed() + fabric.bToA().framesOverflowed(),
            config.conditions);
        return report;
    }

    private static int[] mix(final Config config)
    {
        final int[] all = new int[8];
        int n = 0;
        if (config.writes)
        {
            all[n++] = WRITE;
        }
        if (config.reads)
        {
            all[n++] = READ;
        }
        if (config.sends)
        {
            all[n++] = SEND;
        }
        if (config.atomics)
        {
            all[n++] = ATOMIC;
        }
        if (config.atomicWrites)
        {
            all[n++] = ATOMIC_WRITE;
        }
        if (config.flushes)
        {
            all[n++] = FLUSH;
        }
        if (config.windows)
        {
            all[n++] = WINDOW_WRITE;
            all[n++] = WINDOW_READ;
        }
        if (n == 0)
        {
            throw new IllegalArgumentException("the operation mix is empty");
        }
        return java.util.Arrays.copyOf(all, n);
    }

    /** Log-uniform in [0, max]: as many messages of 1-2 KB as of 512 KB-1 MB, and some empty ones. */
    private static int size(final SplittableRandom random, final int max)
    {
        if (random.nextInt(64) == 0)
        {
            return 0;
        }
        final double exponent = random.nextDouble() * (Math.log(max + 1.0) / Math.log(2));
        return (int)Math.min(max, Math.pow(2, exponent));
    }

    private static Flow connect(
        final TwoNodeFabric fabric, final Arena arena, final Config config, final int slots, final int slotBytes,
        final int index, final SharedReceives shared)
    {
        final Flow flow = new Flow();
        final long bytes = (long)slots * slotBytes + 4096;
        final RnicDevice a = fabric.a();
        final RnicDevice b = fabric.b();
        final ProtectionDomain pdA = a.allocPd();
        final ProtectionDomain pdB = shared != null ? shared.pd : b.allocPd();
        flow.requesterCq = a.createCq(4 * slots);
        final CompletionQueue recvCqA = a.createCq(4 * slots);
        final CompletionQueue sendCqB = b.createCq(4 * slots);
        flow.responderRecvCq = b.createCq(4 * slots);
        flow.requester = a.createQp(new QpInitAttributes().pd(pdA).cqs(flow.requesterCq, recvCqA).capacity(slots, slots));
        flow.responder = b.createQp(new QpInitAttributes().pd(pdB).cqs(sendCqB, flow.responderRecvCq)
            .capacity(slots, slots).srq(shared != null ? shared.srq : null));
        flow.requesterMemory = arena.allocate(bytes, 4096);
        flow.responderMemory = arena.allocate(bytes, 4096);
        flow.requesterMr = a.registerMemoryRegion(pdA, flow.requesterMemory, AccessFlags.ALL);
        flow.responderMr = b.registerMemoryRegion(pdB, flow.responderMemory,
            AccessFlags.ALL | AccessFlags.FLUSH_GLOBAL | (config.windows ? AccessFlags.MW_BIND : 0));
        flow.opIds = new long[slots];
        flow.types = new int[slots];
        flow.sizes = new int[slots];
        flow.expectedAtomic = new long[slots];
        flow.received = new boolean[slots];
        flow.throughWindow = new boolean[slots];
        final int psnA = (0xFF_FF00 + index * 0x1000) & 0xFF_FFFF; // close to the wrap, so it is crossed
        final int psnB = (0x7F_FF00 + index * 0x1000) & 0xFF_FFFF;
        SimulatedRcPath.bringUp(flow.requester, flow.responder.qpn(), TwoNodeFabric.IP_B, TwoNodeFabric.MAC_B, psnA,
            psnB, config.mtu, config.timeout, config.retryCount, config.rnrRetry);
        SimulatedRcPath.bringUp(flow.responder, flow.requester.qpn(), TwoNodeFabric.IP_A, TwoNodeFabric.MAC_A, psnB,
            psnA, config.mtu, config.timeout, config.retryCount, config.rnrRetry);
        if (config.windows)
        {
            bindWindows(fabric, flow, pdB, sendCqB, (long)slots * slotBytes);
        }
        return flow;
    }

    /**
     * Binds the responder's windows over its data area before the run: a type 1 window with the bind verb (READs go
     * through it) and a type 2B one with a BIND_MW work request of the responder's QP (WRITEs go through it, so only
     * that QP may carry them); both binds must complete with BIND_MW.
     */
    private static void bindWindows(
        final TwoNodeFabric fabric, final Flow flow, final ProtectionDomain pd, final CompletionQueue sendCq,
        final long bytes)
    {
        final RnicDevice b = fabric.b();
        final int rights = AccessFlags.REMOTE_READ | AccessFlags.REMOTE_WRITE;
        final MemoryWindow type1 = b.allocMw(pd, MemoryWindow.TYPE_1);
        final MemoryWindow type2 = b.allocMw(pd, MemoryWindow.TYPE_2);
        final SendWorkRequest bind = new SendWorkRequest();
        bind.mwMrLKey = flow.responderMr.lKey();
        bind.mwAddress = flow.responderMr.address();
        bind.mwLength = bytes;
        bind.mwAccess = rights;
        final int newRKey = MemoryWindow.incRKey(type2.rKey());
        if (flow.responder.bindMw(type1, bind) != QueuePair.POST_OK || flow.responder.postSend(new SendWorkRequest()
            .bindMw(type2, newRKey, flow.responderMr, flow.responderMr.address(), bytes, rights)) != QueuePair.POST_OK)
        {
            throw new IllegalStateException("could not post the memory windows' binds");
        }
        final WorkCompletion[] wcs = { new WorkCompletion(), new WorkCompletion() };
        final int[] polled = new int[1];
        if (!fabric.runUntil(() ->
        {
            polled[0] += sendCq.poll(wcs, 2 - polled[0]);
            return polled[0] == 2;
        }, 1_000_000_000L))
        {
            throw new IllegalStateException("the memory windows' binds did not complete");
        }
        for (final WorkCompletion wc : wcs)
        {
            if (wc.status() != WcStatus.SUCCESS)
            {
                throw new IllegalStateException("a memory window's bind failed: " + wc);
            }
        }
        flow.type1WindowRKey = type1.rKey();
        flow.type2WindowRKey = type2.rKey();
    }

    private static int shift(final long opId)
    {
        return (int)((opId * 97) & 4095);
    }

    private static void post(
        final Flow flow, final long opId, final int type, final int drawnSize, final int slots, final int slotBytes,
        final MemorySegment pattern, final SendWorkRequest wr, final RecvWorkRequest recv,
        final SharedReceives shared, final SimulationReport report)
    {
        final int slot = (int)(flow.posted % slots);
        final long slotOffset = (long)slot * slotBytes;
        final int kind = type == WINDOW_WRITE ? WRITE : type == WINDOW_READ ? READ : type;
        final int size = kind == ATOMIC || kind == ATOMIC_WRITE ? Long.BYTES : kind == FLUSH ? 0 : drawnSize;
        flow.opIds[slot] = opId;
        flow.types[slot] = kind;
        flow.throughWindow[slot] = kind != type;
        flow.sizes[slot] = size;
        flow.received[slot] = false;
        wr.reset();
        wr.wrId = opId;
        switch (kind)
        {
            case WRITE ->
            {
                MemorySegment.copy(pattern, shift(opId), flow.requesterMemory, slotOffset, size);
                wr.opcode = WrOpcode.RDMA_WRITE;
                wr.remoteAddress = flow.responderMr.address() + slotOffset;
                wr.rKey = type == WINDOW_WRITE ? flow.type2WindowRKey : flow.responderMr.rKey();
            }
            case READ ->
            {
                MemorySegment.copy(pattern, shift(opId), flow.responderMemory, slotOffset, size);
                wr.opcode = WrOpcode.RDMA_READ;
                wr.remoteAddress = flow.responderMr.address() + slotOffset;
                wr.rKey = type == WINDOW_READ ? flow.type1WindowRKey : flow.responderMr.rKey();
            }
            case SEND ->
            {
                MemorySegment.copy(pattern, shift(opId), flow.requesterMemory, slotOffset, size);
                if (shared == null)
                {
                    recv.reset();
                    recv.wrId = opId;
                    recv.sgl.add(flow.responderMr.address() + slotOffset, slotBytes, flow.responderMr.lKey());
                    if (flow.responder.postRecv(recv) != QueuePair.POST_OK)
                    {
                        report.fail("post recv failed for op " + opId);
                    }
                }
                wr.opcode = WrOpcode.SEND;
            }
            case ATOMIC_WRITE ->
            {
                MemorySegment.copy(pattern, shift(opId), flow.requesterMemory, slotOffset, Long.BYTES);
                wr.opcode = WrOpcode.ATOMIC_WRITE;
                wr.remoteAddress = flow.responderMr.address() + slotOffset;
                wr.rKey = flow.responderMr.rKey();
            }
            case FLUSH ->
            {
                wr.opcode = WrOpcode.FLUSH;
                wr.remoteAddress = flow.responderMr.address() + slotOffset;
                wr.rKey = flow.responderMr.rKey();
                wr.flushLength = drawnSize;
                wr.flushPlacementType = FethFlyweight.PLACEMENT_GLOBAL;
                wr.flushSelectivityLevel =
                    (opId & 1) == 0 ? FethFlyweight.SELECTIVITY_RANGE : FethFlyweight.SELECTIVITY_MR;
            }
            default ->
            {
                final boolean swap = (flow.atomicsPosted & 1) == 1;
                wr.opcode = swap ? WrOpcode.ATOMIC_CMP_AND_SWP : WrOpcode.ATOMIC_FETCH_AND_ADD;
                wr.compareAdd = swap ? flow.atomicsPosted : 1;
                wr.swap = flow.atomicsPosted + 1;
                wr.remoteAddress = flow.responderMr.address() + (long)slots * slotBytes;
                wr.rKey = flow.responderMr.rKey();
                flow.expectedAtomic[slot] = flow.atomicsPosted++;
            }
        }
        if (type != FLUSH)
        {
            wr.sgl.add(flow.requesterMr.address() + slotOffset, size, flow.requesterMr.lKey());
        }
        final int result = flow.requester.postSend(wr);
        if (result != QueuePair.POST_OK)
        {
            report.fail("post send failed for op " + opId + " with " + result);
        }
        flow.posted++;
    }

    private static int poll(
        final Flow flow, final Config config, final int slotBytes, final MemorySegment pattern,
        final WorkCompletion[] wcs, final SharedReceives shared, final SimulationReport report)
    {
        final int slots = config.inFlightPerQp;
        // Receives first: a SEND's receive completes before the ACK that completes the SEND can leave the responder.
        final int received = flow.responderRecvCq.poll(wcs, wcs.length);
        if (shared != null)
        {
            sharedReceives(flow, slots, pattern, wcs, received, shared, report);
        }
        else
        {
            for (int i = 0; i < received; i++)
            {
                final WorkCompletion wc = wcs[i];
                final int slot = slotOf(flow, wc.wrId(), slots);
                if (slot < 0 || flow.types[slot] != SEND || flow.received[slot])
                {
                    report.fail("unexpected receive completion " + wc);
                    continue;
                }
                if (wc.status() != WcStatus.SUCCESS || wc.byteLength() != flow.sizes[slot])
                {
                    report.fail("receive of op " + wc.wrId() + ": " + wc + ", expected " + flow.sizes[slot] + " bytes");
                }
                checkBytes(flow.responderMemory, (long)slot * slotBytes, pattern, wc.wrId(), flow.sizes[slot], report,
                    "SEND");
                flow.received[slot] = true;
                flow.receivesDone++;
            }
        }

        final int n = flow.requesterCq.poll(wcs, wcs.length);
        for (int i = 0; i < n; i++)
        {
            final WorkCompletion wc = wcs[i];
            final int slot = (int)(flow.completed % slots);
            final long expectedOp = flow.opIds[slot];
            if (wc.wrId() != expectedOp)
            {
                report.fail("QP " + flow.requester.qpn() + ": completion for op " + wc.wrId() + " where op " +
                    expectedOp + " was next (out of order or duplicated)");
                continue;
            }
            if (wc.status() != WcStatus.SUCCESS)
            {
                if (!flow.failed)
                {
                    report.error(failure(flow, slot, wc, config));
                }
                flow.failed = true; // the WQEs after it are flushed: consequences, not news
                flow.completed++;
                report.failedOperations++;
                continue;
            }
            final long slotOffset = (long)slot * slotBytes;
            final int size = flow.sizes[slot];
            switch (flow.types[slot])
            {
                case WRITE -> checkBytes(flow.responderMemory, slotOffset, pattern, wc.wrId(), size, report, "WRITE");
                case READ -> checkBytes(flow.requesterMemory, slotOffset, pattern, wc.wrId(), size, report, "READ");
                case SEND ->
                {
                    if (!flow.received[slot])
                    {
                        report.fail("SEND op " + wc.wrId() + " completed before its receive");
                    }
                }
                case ATOMIC_WRITE ->
                    checkBytes(
                        flow.responderMemory, slotOffset, pattern, wc.wrId(), Long.BYTES, report, "ATOMIC_WRITE");
                case FLUSH ->
                {
                    // nothing placed: its completion in order, after every earlier operation's, is what is checked
                }
                default ->
                {
                    final long original = flow.requesterMemory.get(ValueLayout.JAVA_LONG, slotOffset);
                    if (original != flow.expectedAtomic[slot])
                    {
                        report.fail("atomic op " + wc.wrId() + " returned " + original + ", expected " +
                            flow.expectedAtomic[slot] + " (executed twice or not at all?)");
                    }
                    flow.atomicsDone++;
                }
            }
            report.bytes += size;
            report.operations++;
            switch (flow.types[slot])
            {
                case WRITE -> report.writes++;
                case READ -> report.reads++;
                case SEND -> report.sends++;
                case ATOMIC_WRITE -> report.atomicWrites++;
                case FLUSH -> report.flushes++;
                default -> report.atomics++;
            }
            if (flow.throughWindow[slot])
            {
                report.windowOperations++;
            }
            flow.completed++;
        }
        return n;
    }

    /**
     * Receives through the SRQ: the flow's QP completes its SENDs' receives in its own order, each into whichever
     * buffer of the SRQ its QP took (the wr_id), so the {@code count} completions match the flow's oldest SENDs not yet
     * received, one by one; each buffer is checked against its SEND's pattern, then posted to the SRQ again.
     */
    private static void sharedReceives(
        final Flow flow, final int slots, final MemorySegment pattern, final WorkCompletion[] wcs, final int count,
        final SharedReceives shared, final SimulationReport report)
    {
        for (int i = 0; i < count; i++)
        {
            final WorkCompletion wc = wcs[i];
            int slot = -1;
            for (long position = flow.completed; position < flow.posted; position++)
            {
                final int candidate = (int)(position % slots);
                if (flow.types[candidate] == SEND && !flow.received[candidate])
                {
                    slot = candidate;
                    break;
                }
            }
            if (slot < 0 || wc.qpNumber() != flow.responder.qpn())
            {
                report.fail("unexpected receive completion " + wc);
                continue;
            }
            final long opId = flow.opIds[slot];
            if (wc.status() != WcStatus.SUCCESS || wc.byteLength() != flow.sizes[slot])
            {
                report.fail("SRQ receive of op " + opId + ": " + wc + ", expected " + flow.sizes[slot] + " bytes");
            }
            checkBytes(shared.memory, wc.wrId() * shared.bufferBytes, pattern, opId, flow.sizes[slot], report,
                "SEND through the SRQ");
            flow.received[slot] = true;
            flow.receivesDone++;
            if (!shared.post(wc.wrId()))
            {
                report.fail("post to the SRQ failed for buffer " + wc.wrId());
            }
        }
    }

    /**
     * One line on a WQE that completed in error. Running out of retries is what the IBTA prescribes when a request or
     * its answer is lost that many times in a row: the line says so and names the flag that allows more.
     */
    private static String failure(final Flow flow, final int slot, final WorkCompletion wc, final Config config)
    {
        final String what = String.format("QP %d: op %d (%s, %,d B) failed with %s", flow.requester.qpn(), wc.wrId(),
            TYPE_NAMES[flow.types[slot]], flow.sizes[slot], wc.status());
        if (wc.status() == WcStatus.RETRY_EXC_ERR)
        {
            final String advice = config.retryCount < 7 ?
                "more than --retry-cnt " + config.retryCount + " allows; raise it (at most 7)" :
                "more than --retry-cnt 7 (the IBTA's maximum) allows: what the specification prescribes on a link " +
                "this lossy";
            return what + String.format(": %d %s lost a request or its answer, %s", config.retryCount + 1,
                config.retryCount == 0 ? "try" : "tries in a row", advice);
        }
        if (wc.status() == WcStatus.RNR_RETRY_EXC_ERR)
        {
            return what + ": the responder had no receive posted " + (config.rnrRetry + 1) + " times in a row; raise " +
                "--rnr-retry (now " + config.rnrRetry + ", 7 = infinite)";
        }
        return what + "; " + flow.requester.describe() + " / responder " +
            flow.responder.describe();
    }

    private static int slotOf(final Flow flow, final long opId, final int slots)
    {
        for (int s = 0; s < slots; s++)
        {
            if (flow.opIds[s] == opId && flow.completed <= flow.posted)
            {
                return s;
            }
        }
        return -1;
    }

    private static void checkBytes(
        final MemorySegment memory, final long offset, final MemorySegment pattern, final long opId, final int size,
        final SimulationReport report, final String what)
    {
        final long mismatch = MemorySegment.mismatch(memory, offset, offset + size, pattern, shift(opId),
            shift(opId) + size);
        if (mismatch >= 0)
        {
            report.fail(what + " op " + opId + " of " + size + " bytes: first wrong byte at " + mismatch);
        }
    }

    /** How many retransmissions the run needed (both directions). */
    public static long retransmissions(final SimulationReport report)
    {
        return report.requesterCounters().get(TransportCounter.RETRANSMITTED_PACKETS) +
            report.responderCounters().get(TransportCounter.RETRANSMITTED_PACKETS);
    }
}
