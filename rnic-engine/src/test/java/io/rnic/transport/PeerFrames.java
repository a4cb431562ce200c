package io.rnic.transport;

import io.rnic.device.RnicDevice;
import io.rnic.sim.SimulatedLink;
import io.rnic.sim.TwoNodeFabric;
import io.rnic.wire.DropReason;
import io.rnic.wire.FrameSpec;
import io.rnic.wire.InboundValidator;
import io.rnic.wire.Opcode;
import io.rnic.wire.PacketBuilder;
import io.rnic.wire.RocePacket;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Hand-made frames for one engine of a {@link TwoNodeFabric}, as its QP's peer or an impostor would send them, and
 * the frames the engine answers with, captured on their way to the link.
 */
final class PeerFrames
{
    /** An address of the fabric's subnet that neither node owns. */
    static final int IP_STRANGER = 0x0A00_0063;
    static final long GID_PREFIX = 0xFD00_0000_0000_0000L;
    static final byte PAYLOAD_BYTE = 0x5A;

    private final RnicDevice device;
    private final PacketBuilder builder = new PacketBuilder();
    private final UnsafeBuffer frame = new UnsafeBuffer(new byte[16384]);
    private final List<UnsafeBuffer> answers = new ArrayList<>();
    private final InboundValidator validator = new InboundValidator();
    private final RocePacket packet = new RocePacket();
    private boolean portFull;
    private boolean pushEachFrame;
    private long pushes;

    /** Frames into {@code device}, whose frames still reach {@code link} (and are kept, see {@link #answers}). */
    PeerFrames(final RnicDevice device, final SimulatedLink link)
    {
        this.device = device;
        device.engine().sink(new PacketSink()
        {
            public void send(final DirectBuffer buffer, final int offset, final int length)
            {
                final UnsafeBuffer copy = new UnsafeBuffer(new byte[length]);
                copy.putBytes(0, buffer, offset, length);
                answers.add(copy);
                link.send(buffer, offset, length);
                if (pushEachFrame)
                {
                    pushes++;
                }
            }

            public boolean hasRoom()
            {
                return !portFull;
            }

            public long pushes()
            {
                return pushes;
            }
        });
    }

    /** Makes the port push every frame to the wire as it is sent (as an in-memory ring does), or hold them. */
    void pushEachFrame(final boolean atOnce)
    {
        pushEachFrame = atOnce;
    }

    /** The port pushes what it holds to the wire within the duty cycle (its queue filled). */
    void push()
    {
        pushes++;
    }

    /** Makes the port push back (a full transmit queue: responses wait) or take frames again. */
    void portFull(final boolean full)
    {
        portFull = full;
    }

    /** Into B, from A's IPv4 address: what A's QP sends to B's QP {@code qpn}. */
    static FrameSpec fromA(final int qpn, final int opcode, final int psn)
    {
        return new FrameSpec()
            .ethernet(TwoNodeFabric.MAC_B, TwoNodeFabric.MAC_A)
            .ipv4(TwoNodeFabric.IP_A, TwoNodeFabric.IP_B)
            .bth(opcode, qpn, psn);
    }

    /** Into A, from B's IPv4 address: what B's QP sends to A's QP {@code qpn}. */
    static FrameSpec fromB(final int qpn, final int opcode, final int psn)
    {
        return new FrameSpec()
            .ethernet(TwoNodeFabric.MAC_A, TwoNodeFabric.MAC_B)
            .ipv4(TwoNodeFabric.IP_B, TwoNodeFabric.IP_A)
            .bth(opcode, qpn, psn);
    }

    /** Builds the frame with {@code payloadBytes} bytes of {@link #PAYLOAD_BYTE} and hands it to the engine. */
    void inject(final FrameSpec spec, final int payloadBytes)
    {
        for (int i = 0; i < payloadBytes; i++)
        {
            frame.putByte(PacketBuilder.payloadOffset(0, spec) + i, PAYLOAD_BYTE);
        }
        final int length = builder.buildAroundPayload(frame, 0, spec, payloadBytes);
        device.engine().onFrame(frame, 0, length);
    }

    /** The frames the engine sent since the last call (or since this was made). */
    List<UnsafeBuffer> answers()
    {
        final List<UnsafeBuffer> result = new ArrayList<>(answers);
        answers.clear();
        return result;
    }

    /** Validates {@code answer} and returns it parsed (one packet reused: valid until the next call). */
    RocePacket decode(final UnsafeBuffer answer)
    {
        assertEquals(DropReason.NONE, validator.validate(answer, 0, answer.capacity(), packet));
        return packet;
    }

    /** "OPCODE psn syndrome" of each answer, for assertions that read like a capture. */
    List<String> describeAnswers()
    {
        final List<String> result = new ArrayList<>();
        for (final UnsafeBuffer answer : answers())
        {
            final RocePacket p = decode(answer);
            final StringBuilder sb = new StringBuilder(Opcode.name(p.opcode()))
                .append(String.format(" %06x", p.psn()));
            if (Opcode.hasHeader(p.opcode(), Opcode.AETH))
            {
                sb.append(String.format(" syndrome=%02x", answer.getByte(p.headerOffset(Opcode.AETH)) & 0xFF));
            }
            result.add(sb.toString());
        }
        return result;
    }
}
