package io.rnic.bench;

import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.WcOpcode;
import io.rnic.verbs.WcStatus;
import io.rnic.verbs.WorkCompletion;
import io.rnic.verbs.WorkRequestRing;
import io.rnic.verbs.WrOpcode;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * What the driver path adds per operation in software, apart from the scheduling of its threads: a work request
 * through a client QP's shared send ring ({@link WorkRequestRing#offerSend} by the client, taken in place by the
 * driver's engine thread, {@link WorkRequestRing#decodeAhead} then {@link WorkRequestRing#postedSend}, and released)
 * and its completion through the shared CQ (which an embedded CQ also is: {@link CompletionQueue} is the same class
 * both ways). Since issue 25 an embedded QP's queue is the same ring, so {@link #embeddedPost} and {@link
 * #sendToEngine} differ only by the driver's look at the ring. One thread does both sides, so no cache line moves
 * between cores: the cost of the code, the lower bound of what the rings add. Compare with {@code
 * TransportThroughputBenchmark}'s ns per message. Run with {@code -prof gc} to see that neither allocates.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {
    "--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED", "--add-modules", "jdk.incubator.vector",
    "--enable-native-access=ALL-UNNAMED" })
public class DriverRingsBenchmark
{
    private static final int ENTRIES = 256;
    private static final int MAX_SGE = 1;

    private WorkRequestRing clientSide;
    private WorkRequestRing driverSide;
    private CompletionQueue cq;
    private final SendWorkRequest posted = new SendWorkRequest(MAX_SGE);
    private WorkRequestRing embedded;
    private long enginePosition;
    private long embeddedPosition;
    private final WorkCompletion[] completions = { new WorkCompletion() };

    @Setup
    public void setUp()
    {
        final UnsafeBuffer ring = new UnsafeBuffer(
            BufferUtil.allocateDirectAligned(WorkRequestRing.requiredBytes(ENTRIES, MAX_SGE), 128));
        driverSide = WorkRequestRing.format(WorkRequestRing.SEND, ENTRIES, MAX_SGE, ring);
        clientSide = WorkRequestRing.attach(WorkRequestRing.SEND, new UnsafeBuffer(ring.addressOffset(),
            ring.capacity()));
        cq = new CompletionQueue(1, ENTRIES);
        embedded = WorkRequestRing.allocate(WorkRequestRing.SEND, ENTRIES, MAX_SGE, false);
        posted.opcode = WrOpcode.RDMA_WRITE;
        posted.sgl.add(0x7000_0000L, 64, 0x1234);
        posted.remoteAddress = 0x9000_0000L;
        posted.rKey = 0x5678;
    }

    /**
     * A WRITE's request from the client to the engine's hands and its slot given back: the client's shared ring,
     * noticed by the driver's engine thread ({@code ClientQueues}), read in place and released by the engine.
     */
    @Benchmark
    public long sendToEngine()
    {
        posted.wrId++;
        clientSide.offerSend(posted);
        driverSide.decodeAhead(64);
        final long wrId = driverSide.postedSend(enginePosition).wrId;
        driverSide.release(enginePosition++);
        return wrId;
    }

    /** An embedded post: into the QP's ring, read in place and released by the engine. */
    @Benchmark
    public long embeddedPost()
    {
        posted.wrId++;
        embedded.offerSend(posted);
        final long wrId = embedded.postedSend(embeddedPosition).wrId;
        embedded.release(embeddedPosition++);
        return wrId;
    }

    /** A completion into the CQ and polled: the same in both modes (the driver's engine writes the shared one). */
    @Benchmark
    public long completionThroughCq()
    {
        cq.offer(posted.wrId, WcStatus.SUCCESS, WcOpcode.RDMA_WRITE, 64, 0, 2, 0, 0, 0);
        cq.poll(completions, 1);
        return completions[0].wrId();
    }
}
