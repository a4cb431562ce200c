package io.rnic.bench;

import io.rnic.device.ConnectParameters;
import io.rnic.device.QueuePair;
import io.rnic.device.RnicDevice;
import io.rnic.sim.LinkConditions;
import io.rnic.sim.TwoNodeFabric;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.MemoryRegion;
import io.rnic.verbs.PathMtu;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.QpInitAttributes;
import io.rnic.verbs.SendFlags;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.WcStatus;
import io.rnic.verbs.WorkCompletion;
import io.rnic.verbs.WrOpcode;
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

import java.lang.foreign.Arena;
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

    private Arena arena;
    private TwoNodeFabric fabric;
    private QueuePair requester;
    private CompletionQueue sendCq;
    private final SendWorkRequest unsignaled = new SendWorkRequest();
    private final SendWorkRequest signaled = new SendWorkRequest();
    private final WorkCompletion[] completions = { new WorkCompletion() };

    @Setup(Level.Trial)
    public void setUp()
    {
        arena = Arena.ofShared();
        fabric = new TwoNodeFabric(new LinkConditions().delayNs(0), 1);
        fabric.a().engine().port().ethernetMtu(9000); // jumbo frames: the simulated link carries IB MTU 4096
        fabric.b().engine().port().ethernetMtu(9000);
        final RnicDevice a = fabric.a();
        final RnicDevice b = fabric.b();
        final ProtectionDomain pdA = a.allocPd();
        final ProtectionDomain pdB = b.allocPd();
        sendCq = a.createCq(1024);
        final CompletionQueue cqB = b.createCq(1024);
        requester = a.createQp(new QpInitAttributes().pd(pdA).cqs(sendCq, a.createCq(16)).capacity(1024, 16));
        final QueuePair responder = b.createQp(new QpInitAttributes().pd(pdB).cqs(cqB, cqB).capacity(16, 16));
        final MemoryRegion source = a.registerMemoryRegion(pdA, arena.allocate(1 << 16, 4096), AccessFlags.LOCAL_WRITE);
        final MemoryRegion target = b.registerMemoryRegion(pdB, arena.allocate(1 << 16, 4096), AccessFlags.ALL);
        connect(requester, responder.qpn(), TwoNodeFabric.IP_B, TwoNodeFabric.MAC_B);
        connect(responder, requester.qpn(), TwoNodeFabric.IP_A, TwoNodeFabric.MAC_A);
        for (final SendWorkRequest wr : new SendWorkRequest[]{ unsignaled, signaled })
        {
            wr.opcode = WrOpcode.RDMA_WRITE;
            wr.sgl.add(source.address(), messageBytes, source.lKey());
            wr.remoteAddress = target.address();
            wr.rKey = target.rKey();
        }
        unsignaled.sendFlags = 0;
        signaled.sendFlags = SendFlags.SIGNALED;
    }

    private static void connect(final QueuePair qp, final int remoteQpn, final int remoteIp, final long remoteMac)
    {
        final ConnectParameters parameters = new ConnectParameters().remote(remoteQpn, 0).localPsn(0)
            .pathMtu(PathMtu.MTU_4096).accessFlags(AccessFlags.REMOTE_WRITE);
        parameters.addressVector.destinationIpv4(remoteIp).destinationMac(remoteMac);
        parameters.applyTo(qp);
    }

    @TearDown(Level.Trial)
    public void tearDown()
    {
        arena.close();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public int rdmaWrite()
    {
        for (int i = 0; i < BATCH - 1; i++)
        {
            requester.postSend(unsignaled);
        }
        requester.postSend(signaled);
        int polled;
        do
        {
            fabric.step();
            polled = sendCq.poll(completions, 1);
        }
        while (polled == 0);
        if (completions[0].status() != WcStatus.SUCCESS)
        {
            throw new IllegalStateException("write failed: " + completions[0]);
        }
        return polled;
    }
}
