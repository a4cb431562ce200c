package io.rnic.bench;

import io.rnic.datapath.dpdk.DpdkConfig;
import io.rnic.datapath.dpdk.DpdkPort;
import io.rnic.dpdkbindings.Eal;
import io.rnic.dpdkbindings.EthDevice;
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
 * What the payload costs a {@link DpdkPort} per frame, copied into the frame's mbuf ({@code copy}) or lent to an
 * external mbuf chained after it with the pad and ICRC in a third ({@code attach}), by payload size: claim a frame,
 * put the payload in (or attach it), commit, and a burst to the device every 32 frames. The device is
 * {@code net_null}, which frees what it is given without reading it, so what differs is the port's own work: the copy
 * against two more mbufs, the attach downcall, the chain and the free callback. (Headers and ICRC cost the same
 * either way and are left out; a PMD that copies the frame, as memif does, reads the payload once either way.) The
 * crossing point is {@code TransmitPath.ATTACH_MIN_BYTES}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {
    "--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED", "--add-modules", "jdk.incubator.vector",
    "--enable-native-access=ALL-UNNAMED" })
public class DpdkZeroCopyBenchmark
{
    private static final int BURST = 32;
    /** An IPv4 RDMA WRITE's headers: Ethernet 14, IPv4 20, UDP 8, BTH 12, RETH 16. */
    private static final int HEADER_BYTES = 70;
    private static final String DEVICE = "net_null_zc";

    @Param({ "copy", "attach" })
    public String path;

    @Param({ "64", "256", "512", "1024", "4096" })
    public int payloadBytes;

    private DpdkPort port;
    private UnsafeBuffer region;
    private boolean attach;
    private int queued;

    @Setup
    public void setUp()
    {
        Eal.init(DpdkConfig.EAL_DEFAULT);
        EthDevice.createVirtual(DEVICE, "size=64");
        port = DpdkPort.open(DpdkConfig.of(DEVICE, DpdkConfig.EAL_DEFAULT).withMtu(4200)
            .withZeroCopy(DpdkConfig.ZeroCopy.ON))[0];
        port.onEngineThreadStart();
        region = new UnsafeBuffer(BufferUtil.allocateDirectAligned(1 << 16, 64));
        region.setMemory(0, region.capacity(), (byte)0x5A);
        attach = "attach".equals(path);
    }

    @TearDown
    public void tearDown()
    {
        port.flush();
        port.onEngineThreadStop();
        port.close();
        EthDevice.destroyVirtual(DEVICE);
    }

    /** One frame (and, every 32, the burst that hands them to the device). */
    @Benchmark
    public int send()
    {
        final UnsafeBuffer frame = port.claimFrame();
        if (attach && port.attachPayload(region.addressOffset(), payloadBytes))
        {
            frame.putInt(HEADER_BYTES, 0x1CE1CE); // the ICRC, after the headers: moved into the trailer mbuf
            port.commitAttached(HEADER_BYTES, 4);
        }
        else
        {
            frame.putBytes(HEADER_BYTES, region, 0, payloadBytes);
            port.commitFrame(HEADER_BYTES + payloadBytes + 4);
        }
        if (++queued == BURST)
        {
            queued = 0;
            return port.flush();
        }
        return 0;
    }
}
