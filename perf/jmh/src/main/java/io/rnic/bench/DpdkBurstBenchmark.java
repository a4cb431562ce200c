package io.rnic.bench;

import io.rnic.datapath.dpdk.DpdkConfig;
import io.rnic.dpdkbindings.BurstFunctions;
import io.rnic.dpdkbindings.DpdkBindings;
import io.rnic.dpdkbindings.Eal;
import io.rnic.dpdkbindings.EthDevice;
import io.rnic.dpdkbindings.PacketMempool;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * The DPDK fast path from Java on {@code net_null} (a device that costs next to nothing), per burst of 1 or 32
 * frames: receive a burst and free it, or allocate a burst of mbufs and transmit them — through the C shim's exported wrappers of
 * DPDK's {@code static inline} burst functions ({@code shim}), or through the driver's function pointers read
 * from the exported {@code rte_eth_fp_ops} table ({@code fpops}). The benchmark thread registers with EAL, as an
 * engine thread does.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {
    "--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED", "--add-modules", "jdk.incubator.vector",
    "--enable-native-access=ALL-UNNAMED" })
public class DpdkBurstBenchmark
{
    private static final int BURST = 32;

    @Param({ "shim", "fpops" })
    public String path;

    /** Frames per call: 32 amortises the call, 1 shows it. */
    @Param({ "32", "1" })
    public int burst;

    private PacketMempool pool;
    private EthDevice device;
    private BurstFunctions bursts;
    private long mbufs;

    @Setup
    public void setUp()
    {
        Eal.init(DpdkConfig.EAL_DEFAULT);
        Eal.registerCurrentThread();
        pool = PacketMempool.create("bench_pool", 8191, 256, 2048, DpdkBindings.SOCKET_ID_ANY);
        device = EthDevice.createVirtual("net_null_bench", "size=64");
        device.configure(1, 0);
        device.setupRxQueue(0, 1024, pool);
        device.setupTxQueue(0, 1024);
        device.start();
        bursts = "shim".equals(path) ? BurstFunctions.shim(device, 0) : BurstFunctions.fpOps(device, 0);
        mbufs = new UnsafeBuffer(BufferUtil.allocateDirectAligned(8 * BURST, 64)).addressOffset();
    }

    @TearDown
    public void tearDown()
    {
        device.stop();
        device.close();
        EthDevice.destroyVirtual("net_null_bench");
    }

    /** Receive a burst and free it (per burst: divide by {@code burst} for per frame). */
    @Benchmark
    public int receiveAndFree()
    {
        final int received = bursts.receive(mbufs, burst);
        DpdkBindings.rte_pktmbuf_free_bulk(mbufs, received);
        return received;
    }

    /** testpmd's io mode from Java: receive a burst and transmit the same mbufs (net_null frees them); per burst. */
    @Benchmark
    public int forward()
    {
        final int received = bursts.receive(mbufs, burst);
        final int sent = bursts.transmit(mbufs, received);
        if (sent < received)
        {
            DpdkBindings.rte_pktmbuf_free_bulk(mbufs + 8L * sent, received - sent);
        }
        return sent;
    }

    /** Allocate a burst of mbufs and transmit them (net_null frees them); per burst. */
    @Benchmark
    public int allocateAndTransmit()
    {
        DpdkBindings.rte_pktmbuf_alloc_bulk(pool.address(), mbufs, burst);
        return bursts.transmit(mbufs, burst);
    }
}
