package io.rnic.wire;

import io.rnic.testing.SteadyStateAllocation;

import io.rnic.testing.TestVectors;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The per-packet paths allocate nothing: validation (parse + checks + ICRC) of every vector, and building frames.
 * Measured with the thread's allocated-bytes counter, not with time.
 */
class InboundAllocationTest
{
    private static final int ROUNDS = 2_000;

    @Test
    void shouldValidateWithoutAllocating()
    {
        final List<UnsafeBuffer> frames = TestVectors.valid().stream().map(v -> new UnsafeBuffer(v.frame())).toList();
        final List<UnsafeBuffer> bad = TestVectors.invalid().stream().map(v -> new UnsafeBuffer(v.frame())).toList();
        final UnsafeBuffer[] all = java.util.stream.Stream.concat(frames.stream(), bad.stream()).toArray(UnsafeBuffer[]::new);
        final InboundValidator validator = new InboundValidator();
        final RocePacket packet = new RocePacket();

        final Runnable work = () ->
        {
            for (int r = 0; r < ROUNDS; r++)
            {
                for (final UnsafeBuffer frame : all)
                {
                    validator.validate(frame, 0, frame.capacity(), packet);
                }
            }
        };
        final long allocated = SteadyStateAllocation.leastBytes(work, 1024, 30);
        assertTrue(allocated < 1024, "validating " + ROUNDS * all.length + " frames allocated " + allocated + " bytes");
    }

    @Test
    void shouldBuildWithoutAllocating()
    {
        final PacketBuilder builder = new PacketBuilder();
        final FrameSpec[] specs = new FrameSpec[Frames.allOpcodes().length];
        final int[] opcodes = Frames.allOpcodes();
        for (int i = 0; i < opcodes.length; i++)
        {
            specs[i] = Frames.spec(opcodes[i], (i & 1) == 0, (i & 2) == 0);
        }
        final UnsafeBuffer out = new UnsafeBuffer(new byte[8192]);
        final UnsafeBuffer payload = new UnsafeBuffer(new byte[4096]);

        final Runnable work = () ->
        {
            for (int r = 0; r < ROUNDS; r++)
            {
                for (final FrameSpec spec : specs)
                {
                    builder.build(out, 0, spec, payload, 0, Frames.payloadLengthFor(spec.opcode(), r & 1023));
                }
            }
        };
        final long allocated = SteadyStateAllocation.leastBytes(work, 1024, 30);
        assertTrue(allocated < 1024, "building " + ROUNDS * specs.length + " frames allocated " + allocated + " bytes");
    }

}
