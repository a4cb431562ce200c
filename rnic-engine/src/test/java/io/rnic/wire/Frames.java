package io.rnic.wire;

import org.agrona.concurrent.UnsafeBuffer;

/** Frames built for tests: a spec per opcode with every field set to something recognisable. */
final class Frames
{
    static final long MAC_A = 0x02_00_00_00_0A_01L;
    static final long MAC_B = 0x02_00_00_00_0B_02L;
    static final int IP_A = 0xC0A8_0A01;
    static final int IP_B = 0xC0A8_0A02;

    private Frames()
    {
    }

    /** Every opcode RoCEv2 defines, CNP included. */
    static int[] allOpcodes()
    {
        int count = 0;
        for (int op = 0; op < 256; op++)
        {
            count += Opcode.isValid(op) ? 1 : 0;
        }
        final int[] opcodes = new int[count];
        for (int op = 0, i = 0; op < 256; op++)
        {
            if (Opcode.isValid(op))
            {
                opcodes[i++] = op;
            }
        }
        return opcodes;
    }

    static FrameSpec spec(final int opcode, final boolean ipv6, final boolean vlan)
    {
        final FrameSpec spec = new FrameSpec().ethernet(MAC_B, MAC_A);
        if (ipv6)
        {
            spec.ipv6(0xFD00_0010_0000_0000L, 1L, 0xFD00_0010_0000_0000L, 2L).flowLabel(0x12345);
        }
        else
        {
            spec.ipv4(IP_A, IP_B).ipv4Identification(0x1234);
        }
        if (vlan)
        {
            spec.vlan(3, 0, 100);
        }
        spec.bth(opcode, 0x00_1234, 0xFF_FFFE)
            .udpSourcePort(UdpSourcePort.of(0x11, 0x1234, 0))
            .ackRequest(Opcode.has(opcode, Opcode.FLAG_REQUEST))
            .solicitedEvent(Opcode.has(opcode, Opcode.FLAG_SEND) && Opcode.has(opcode, Opcode.FLAG_LAST | Opcode.FLAG_ONLY))
            .reth(0x0000_7F00_1234_5678L, 0xCAFE_BABEL, 4096)
            .aeth(AethFlyweight.ackSyndrome(AethFlyweight.CREDITS_INVALID), 0x00_0042)
            .atomicEth(0x0000_7F00_0000_1000L, 0x1111_2222L, 0x0102_0304_0506_0708L, 0x1112_1314_1516_1718L)
            .atomicAckEth(0x2122_2324_2526_2728L)
            .deth(0x1111_1111L, 0x00_0011)
            .immediate(0xDEAD_BEEF)
            .ieth(0x3333_4444L);
        if (opcode == Opcode.CNP)
        {
            spec.fecnBecn(false, true).psn(0).ackRequest(false).solicitedEvent(false).trafficClass(48, 2);
        }
        return spec;
    }

    static int payloadLengthFor(final int opcode, final int wanted)
    {
        return Opcode.has(opcode, Opcode.FLAG_PAYLOAD) ? wanted : 0;
    }

    /** Builds the frame and returns it in a buffer of exactly its length (reads past the end throw). */
    static UnsafeBuffer build(final FrameSpec spec, final int payloadLength)
    {
        final byte[] payload = new byte[payloadLength];
        for (int i = 0; i < payloadLength; i++)
        {
            payload[i] = (byte)(i * 7 + 3);
        }
        final UnsafeBuffer scratch = new UnsafeBuffer(new byte[PacketBuilder.frameLength(spec, payloadLength)]);
        final int length = new PacketBuilder().build(scratch, 0, spec, new UnsafeBuffer(payload), 0, payloadLength);
        final byte[] frame = new byte[length];
        scratch.getBytes(0, frame);
        return new UnsafeBuffer(frame);
    }
}
