package io.rnic.bench;

import io.rnic.device.ConnectParameters;
import io.rnic.device.RnicDevice;
import io.rnic.sim.LinkConditions;
import io.rnic.sim.TwoNodeFabric;
import io.rnic.transport.RnicEngine;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.PathMtu;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.QpInitAttributes;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * What idle QPs cost the engine: one duty cycle ({@link RnicEngine#doWork}) of an engine that owns {@code idleQps}
 * RC QPs in RTS with nothing posted and nothing owed. A connected but quiet QP should cost nothing; an engine that
 * walks every QP on every cycle pays for each of them on every cycle, however little they do. Small queues (4/4), so
 * that 100 000 QPs fit in the heap.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {
    "--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED", "--add-modules", "jdk.incubator.vector",
    "--enable-native-access=ALL-UNNAMED", "-Xmx4g" })
public class IdleQpDutyCycleBenchmark
{
    @Param({ "0", "10000", "100000" })
    public int idleQps;

    private RnicEngine engine;

    @Setup(Level.Trial)
    public void setUp()
    {
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions().delayNs(0), 1);
        final RnicDevice device = fabric.a();
        final ProtectionDomain pd = device.allocPd();
        final CompletionQueue cq = device.createCq(16);
        final ConnectParameters parameters = new ConnectParameters().pathMtu(PathMtu.MTU_1024);
        parameters.addressVector.destinationIpv4(TwoNodeFabric.IP_B).destinationMac(TwoNodeFabric.MAC_B);
        for (int i = 0; i < idleQps; i++)
        {
            parameters.remote(0x100 + i, i).applyTo(
                device.createQp(new QpInitAttributes().pd(pd).cqs(cq, cq).capacity(4, 4)));
        }
        engine = device.engine();
        engine.doWork();
    }

    /** One duty cycle with nothing to do but to find that out. */
    @Benchmark
    public int dutyCycle()
    {
        return engine.doWork();
    }
}
