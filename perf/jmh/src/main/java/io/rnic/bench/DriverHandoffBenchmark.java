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
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Control;

import java.util.concurrent.TimeUnit;

/**
 * What the driver path adds when its two threads each have a core, the layout the goal is about: a client
 * thread posts a WRITE into a QP's shared send ring and the driver's engine thread, on the other core, takes it and
 * completes it into the client's shared CQ (formatted in a direct buffer, as the driver formats it in the client's
 * memfd). Embedded, the tool runs in the engine's own duty cycle and neither hop exists. So:
 * <ul>
 * <li>{@code roundTrip}: one request there and its completion back, waited for: the round trip the driver path adds
 * to each operation's latency (two cache-line transfers each way: the ring's entry and tail, the CQ's entry and
 * tail);</li>
 * <li>{@code streaming}: the client posts without waiting and drains completions as they come: the rate at which
 * requests cross, the ceiling the driver path puts on a client's message rate.</li>
 * </ul>
 * The transport's own work is left out (the driver's thread completes at once): compare with
 * {@code TransportThroughputBenchmark}'s ns per message for the ratio. Needs two free cores (two spinning threads):
 * run it with nothing else busy.
 */
@State(Scope.Group)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {
    "--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED", "--add-modules", "jdk.incubator.vector",
    "--enable-native-access=ALL-UNNAMED" })
public class DriverHandoffBenchmark
{
    private static final int ENTRIES = 256;
    private static final int MAX_SGE = 1;

    private WorkRequestRing clientSide;
    private WorkRequestRing driverSide;
    private CompletionQueue clientCq;
    private CompletionQueue driverCq;
    private final SendWorkRequest posted = new SendWorkRequest(MAX_SGE);
    /** The engine thread's next position in the ring (the driver's thread alone). */
    private long enginePosition;
    private final WorkCompletion[] completions = new WorkCompletion[ENTRIES];

    @Setup
    public void setUp()
    {
        final UnsafeBuffer ring = new UnsafeBuffer(
            BufferUtil.allocateDirectAligned(WorkRequestRing.requiredBytes(ENTRIES, MAX_SGE), 128));
        driverSide = WorkRequestRing.format(WorkRequestRing.SEND, ENTRIES, MAX_SGE, ring);
        clientSide = WorkRequestRing.attach(WorkRequestRing.SEND, new UnsafeBuffer(ring.addressOffset(),
            ring.capacity()));
        final UnsafeBuffer cq = new UnsafeBuffer(
            BufferUtil.allocateDirectAligned(CompletionQueue.requiredBytes(2 * ENTRIES), 128));
        driverCq = CompletionQueue.format(1, 2 * ENTRIES, cq);
        clientCq = CompletionQueue.attach(1, new UnsafeBuffer(cq.addressOffset(), cq.capacity()));
        for (int i = 0; i < completions.length; i++)
        {
            completions[i] = new WorkCompletion();
        }
        posted.opcode = WrOpcode.RDMA_WRITE;
        posted.sgl.add(0x7000_0000L, 64, 0x1234);
        posted.remoteAddress = 0x9000_0000L;
        posted.rKey = 0x5678;
    }

    /** The client: posts a WRITE and waits for its completion. Its score is the round trip. */
    @Benchmark
    @Group("roundTrip")
    @GroupThreads(1)
    public long roundTripClient(final Control control)
    {
        posted.wrId++;
        while (!clientSide.offerSend(posted))
        {
            if (control.stopMeasurement)
            {
                return -1;
            }
            Thread.onSpinWait();
        }
        while (clientCq.poll(completions, 1) == 0)
        {
            if (control.stopMeasurement)
            {
                return -1; // the driver's thread stopped first: the iteration is over
            }
            Thread.onSpinWait();
        }
        return completions[0].wrId();
    }

    /** The driver's engine thread: one visit of the client's ring, as {@code ClientQueues} makes each duty cycle. */
    @Benchmark
    @Group("roundTrip")
    @GroupThreads(1)
    public int roundTripDriver(final Control control)
    {
        return visit(control);
    }

    /** The client: posts a WRITE without waiting (waits only for room), then takes what completed. Score: per post. */
    @Benchmark
    @Group("streaming")
    @GroupThreads(1)
    public int streamingClient(final Control control)
    {
        posted.wrId++;
        while (!clientSide.offerSend(posted))
        {
            if (control.stopMeasurement)
            {
                return -1;
            }
            clientCq.poll(completions, ENTRIES); // the ring is full: make room in the CQ meanwhile
            Thread.onSpinWait();
        }
        return clientCq.poll(completions, ENTRIES);
    }

    @Benchmark
    @Group("streaming")
    @GroupThreads(1)
    public int streamingDriver(final Control control)
    {
        return visit(control);
    }

    private int visit(final Control control)
    {
        final SendWorkRequest taken = driverSide.postedSend(enginePosition);
        if (taken == null)
        {
            return 0;
        }
        while (!driverCq.offer(taken.wrId, WcStatus.SUCCESS, WcOpcode.RDMA_WRITE, 64, 0, 2, 0, 0, 0) &&
            !control.stopMeasurement)
        {
            Thread.onSpinWait(); // the client drains it; in the driver a full CQ is the client's overrun
        }
        driverSide.release(enginePosition++);
        return 1;
    }
}
