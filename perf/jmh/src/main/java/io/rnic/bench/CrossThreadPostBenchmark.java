package io.rnic.bench;

import io.rnic.sim.TwoNodeFabric;
import io.rnic.verbs.WcStatus;
import io.rnic.verbs.WorkCompletion;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Control;

import java.util.concurrent.TimeUnit;

/**
 * {@link TransportThroughputBenchmark} with the application on a thread of its own, as a program that embeds rnic
 * posts: the benchmark thread posts the WRITEs (63 unsignaled, then one signaled) and polls the send CQ, while a
 * thread started with the trial runs both engines and the wire, as an endpoint's engine thread does. What crosses
 * between them: the send queue's slots and tail, the QP's doorbell, the CQ. Score: WRITEs per second. Needs two
 * free cores (two spinning threads). (The engine as a second thread of a JMH group ran 40 times fewer duty cycles a
 * second than the same loop on a plain thread, so it runs on one.)
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {
    "--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED", "--add-modules", "jdk.incubator.vector",
    "--enable-native-access=ALL-UNNAMED" })
public class CrossThreadPostBenchmark
{
    private static final int BATCH = 64;

    @Param({ "64" })
    public int messageBytes;

    private WritePair pair;
    private final WorkCompletion[] completions = { new WorkCompletion() };
    /** A batch posted whose signaled completion the application has not seen (an iteration ended in between). */
    private boolean awaiting;
    private volatile boolean stopping;
    private Thread engineThread;

    @Setup(Level.Trial)
    public void setUp()
    {
        pair = new WritePair(messageBytes);
        final TwoNodeFabric fabric = pair.fabric;
        engineThread = new Thread(() ->
        {
            while (!stopping)
            {
                fabric.step();
            }
        }, "engine");
        engineThread.start();
    }

    @TearDown(Level.Trial)
    public void tearDown() throws InterruptedException
    {
        stopping = true;
        engineThread.join();
        pair.close();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public int rdmaWrite(final Control control)
    {
        if (!awaiting)
        {
            for (int i = 0; i < BATCH - 1; i++)
            {
                pair.requester.postSend(pair.unsignaled);
            }
            pair.requester.postSend(pair.signaled);
            awaiting = true;
        }
        int polled;
        do
        {
            polled = pair.sendCq.poll(completions, 1);
        }
        while (polled == 0 && !control.stopMeasurement);
        if (polled > 0)
        {
            awaiting = false;
            if (completions[0].status() != WcStatus.SUCCESS)
            {
                throw new IllegalStateException("write failed: " + completions[0]);
            }
        }
        return polled;
    }
}
