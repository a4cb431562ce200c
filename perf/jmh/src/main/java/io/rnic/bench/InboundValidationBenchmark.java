package io.rnic.bench;

import io.rnic.wire.DropReason;
import io.rnic.wire.FrameSpec;
import io.rnic.wire.InboundValidator;
import io.rnic.wire.Opcode;
import io.rnic.wire.PacketBuilder;
import io.rnic.wire.RocePacket;
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
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * Cost of the whole inbound check of one frame (Ethernet .. BTH parse, every drop rule, ICRC) and of building one,
 * on frames in off-heap memory as they arrive from a ring. Run with {@code -prof gc} to see that neither allocates.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {
    "--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED", "--add-modules", "jdk.incubator.vector",
    "--enable-native-access=ALL-UNNAMED" })
public class InboundValidationBenchmark
{
    /** RDMA WRITE ONLY with this many payload bytes; 0 is an ACK. */
    @Param({ "0", "64", "1024", "4096" })
    public int payloadBytes;

    private final InboundValidator validator = new InboundValidator();
    private final PacketBuilder builder = new PacketBuilder();
    private final RocePacket packet = new RocePacket();
    private final FrameSpec spec = new FrameSpec();
    private UnsafeBuffer frame;
    private UnsafeBuffer payload;
    private int frameLength;

    @Setup
    public void setUp()
    {
        frame = new UnsafeBuffer(BufferUtil.allocateDirectAligned(16384, 64));
        payload = new UnsafeBuffer(BufferUtil.allocateDirectAligned(4096, 64));
        spec.ethernet(0x0200_0000_0B02L, 0x0200_0000_0A01L).ipv4(0x0A4D_0002, 0x0A4D_0003).udpSourcePort(0xC132);
        if (payloadBytes == 0)
        {
            spec.bth(Opcode.RC_ACKNOWLEDGE, 0x12, 1000).aeth(0x1F, 7);
        }
        else
        {
            spec.bth(Opcode.RC_RDMA_WRITE_ONLY, 0x12, 1000).ackRequest(true).reth(0x7F00_0000_0000L, 0x1234, payloadBytes);
        }
        frameLength = builder.build(frame, 0, spec, payload, 0, payloadBytes);
        if (validator.validate(frame, 0, frameLength, packet) != DropReason.NONE)
        {
            throw new IllegalStateException("benchmark frame does not validate");
        }
    }

    @Benchmark
    public int validate()
    {
        return validator.validate(frame, 0, frameLength, packet).ordinal() + packet.payloadLength();
    }

    @Benchmark
    public int build()
    {
        return builder.buildAroundPayload(frame, 0, spec, payloadBytes);
    }
}
