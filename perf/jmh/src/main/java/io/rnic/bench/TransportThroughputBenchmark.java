package io.rnic.bench;

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

import java.util.concurrent.TimeUnit;

/**
 * Packets per second one core pushes through the whole transport: requester (segment, build, ICRC) → simulated
 * wire (one copy) → receiver validation (parse, ICRC check) → responder (PSN check, R_Key check, placement, ACK) →
 * wire → completer (ACK matching, completion) → poll. Both engines, the wire and the application share one thread.
 * RDMA WRITEs of one packet each, 64 unsignaled then one signaled per batch, as a bandwidth test posts them.
 * Throughput in operations (= data packets) per second.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {
    "--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED", "--add-modules", "jdk.incubator.vector",
    "--enable-native-access=ALL-UNNAMED" })
public class TransportThroughputBenchmark
{
    private static final int BATCH = 64;

    @Param({ "64", "4096" })
    public int messageBytes;

    private WritePair pair;
    private final WorkCompletion[] completions = { new WorkCompletion() };

    @Setup(Level.Trial)
    public void setUp()
    {
        pair = new WritePair(messageBytes);
    }

    @TearDown(Level.Trial)
    public void tearDown()
    {
        pair.close();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public int rdmaWrite()
    {
        final WritePair pair = this.pair;
        for (int i = 0; i < BATCH - 1; i++)
        {
            pair.requester.postSend(pair.unsignaled);
        }
        pair.requester.postSend(pair.signaled);
        int polled;
        do
        {
            pair.fabric.step();
            polled = pair.sendCq.poll(completions, 1);
        }
        while (polled == 0);
        if (completions[0].status() != WcStatus.SUCCESS)
        {
            throw new IllegalStateException("write failed: " + completions[0]);
        }
        return polled;
    }
}
