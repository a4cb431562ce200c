package io.rnic.wire;

import io.rnic.icrc.Icrc;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

class InboundValidatorTest
{
    private static final int IP = EthernetFlyweight.LENGTH;
    private static final int UDP = IP + Ipv4Flyweight.LENGTH;
    private static final int BTH = UDP + UdpFlyweight.LENGTH;

    private final InboundCounters counters = new InboundCounters();
    private final InboundValidator validator = new InboundValidator(Icrc.defaultCalculator(), counters);
    private final RocePacket packet = new RocePacket();

    private DropReason validate(final UnsafeBuffer frame)
    {
        return validator.validate(frame, 0, frame.capacity(), packet);
    }

    /** A valid IPv4 RC SEND_ONLY of 8 bytes, altered by {@code change}, then given a correct IP checksum and ICRC. */
    private static UnsafeBuffer sendOnlyWith(final Consumer<UnsafeBuffer> change)
    {
        final UnsafeBuffer frame = Frames.build(Frames.spec(Opcode.RC_SEND_ONLY, false, false), 8);
        change.accept(frame);
        reseal(frame);
        return frame;
    }

    private static void reseal(final UnsafeBuffer frame)
    {
        final Ipv4Flyweight ip = new Ipv4Flyweight().wrapAt(frame, IP);
        ip.checksum(ip.computeChecksum());
        final int icrcOffset = Math.min(IP + ip.totalLength(), frame.capacity()) - Icrc.LENGTH;
        if (icrcOffset > IP)
        {
            Icrc.writeWire(frame, icrcOffset, Icrc.defaultCalculator().compute(frame, IP, false, icrcOffset));
        }
    }

    @Test
    void shouldAcceptEveryOpcodeBuiltByTheBuilder()
    {
        for (final int opcode : Frames.allOpcodes())
        {
            for (final boolean ipv6 : new boolean[]{ false, true })
            {
                for (final boolean vlan : new boolean[]{ false, true })
                {
                    for (final int size : new int[]{ 0, 1, 2, 3, 4, 5, 255, 4096 })
                    {
                        final int payloadLength = Frames.payloadLengthFor(opcode, size);
                        final UnsafeBuffer frame = Frames.build(Frames.spec(opcode, ipv6, vlan), payloadLength);
                        assertEquals(DropReason.NONE, validate(frame), Opcode.name(opcode) + " v6=" + ipv6 + " vlan=" + vlan);
                        assertEquals(opcode, packet.opcode());
                        assertEquals(payloadLength, packet.payloadLength());
                        assertEquals(-payloadLength & 3, packet.padCount());
                        assertEquals(ipv6 ? 6 : 4, packet.ipVersion());
                        assertEquals(vlan, packet.hasVlan());
                    }
                }
            }
        }
        assertEquals(counters.total(), counters.accepted());
    }

    @Test
    void shouldDropFramesShorterThanAnEthernetHeader()
    {
        assertEquals(DropReason.FRAME_TRUNCATED, validate(new UnsafeBuffer(new byte[13])));
        assertEquals(DropReason.FRAME_TRUNCATED, validate(new UnsafeBuffer(new byte[0])));
    }

    @Test
    void shouldDropNonIpEtherTypes()
    {
        assertEquals(DropReason.NOT_IP, validate(sendOnlyWith(f -> f.putShort(12, (short)0x0806, java.nio.ByteOrder.BIG_ENDIAN))));
        // 802.1ad / stacked tags are not RoCEv2 on our port
        assertEquals(DropReason.NOT_IP, validate(sendOnlyWith(f -> f.putShort(12, (short)0x88A8, java.nio.ByteOrder.BIG_ENDIAN))));
    }

    @Test
    void shouldDropIpVersionThatDisagreesWithEtherType()
    {
        assertEquals(DropReason.IP_VERSION_MISMATCH, validate(sendOnlyWith(f -> f.putByte(IP, (byte)0x65))));
        final UnsafeBuffer v6 = Frames.build(Frames.spec(Opcode.RC_SEND_ONLY, true, false), 8);
        v6.putByte(IP, (byte)(0x40 | (v6.getByte(IP) & 0x0F)));
        assertEquals(DropReason.IP_VERSION_MISMATCH, validate(v6));
    }

    @Test
    void shouldDropNonUdp()
    {
        assertEquals(DropReason.NOT_UDP, validate(sendOnlyWith(f -> f.putByte(IP + 9, (byte)6))));
        final UnsafeBuffer v6 = Frames.build(Frames.spec(Opcode.RC_SEND_ONLY, true, false), 8);
        v6.putByte(IP + Ipv6Flyweight.NEXT_HEADER_OFFSET, (byte)0); // hop-by-hop options
        assertEquals(DropReason.NOT_UDP, validate(v6));
    }

    @Test
    void shouldDropIpv4WithOptions()
    {
        assertEquals(DropReason.IPV4_IHL_NOT_5, validate(sendOnlyWith(f -> f.putByte(IP, (byte)0x46))));
    }

    @Test
    void shouldDropIpv4TotalLengthLongerThanTheFrameOrShorterThanTheHeader()
    {
        assertEquals(DropReason.IPV4_TOTAL_LENGTH, validate(sendOnlyWith(f -> new Ipv4Flyweight().wrapAt(f, IP)
            .totalLength(f.capacity() - IP + 1))));
        assertEquals(DropReason.IPV4_TOTAL_LENGTH, validate(sendOnlyWith(f -> new Ipv4Flyweight().wrapAt(f, IP)
            .totalLength(19))));
    }

    @Test
    void shouldDropBadIpv4HeaderChecksum()
    {
        final UnsafeBuffer frame = Frames.build(Frames.spec(Opcode.RC_SEND_ONLY, false, false), 8);
        final Ipv4Flyweight ip = new Ipv4Flyweight().wrapAt(frame, IP);
        ip.checksum(ip.checksum() ^ 0x0100);
        assertEquals(DropReason.IPV4_HEADER_CHECKSUM, validate(frame));
    }

    @Test
    void shouldDropFragmentsAndFramesWithoutDontFragment()
    {
        assertEquals(DropReason.IPV4_FRAGMENT, validate(sendOnlyWith(f -> new Ipv4Flyweight().wrapAt(f, IP)
            .flagsAndFragmentOffset(0x4000 | 0x0010))));
        assertEquals(DropReason.IPV4_FRAGMENT, validate(sendOnlyWith(f -> new Ipv4Flyweight().wrapAt(f, IP)
            .flagsAndFragmentOffset(0x2000))));
        assertEquals(DropReason.IPV4_DONT_FRAGMENT_CLEAR, validate(sendOnlyWith(f -> new Ipv4Flyweight().wrapAt(f, IP)
            .flagsAndFragmentOffset(0))));
        assertEquals(DropReason.IPV4_DONT_FRAGMENT_CLEAR, validate(sendOnlyWith(f -> new Ipv4Flyweight().wrapAt(f, IP)
            .flagsAndFragmentOffset(0x8000 | 0x4000))));
    }

    @Test
    void shouldDropIpv6PayloadLengthLongerThanTheFrame()
    {
        final UnsafeBuffer v6 = Frames.build(Frames.spec(Opcode.RC_SEND_ONLY, true, false), 64);
        final Ipv6Flyweight ip = new Ipv6Flyweight().wrapAt(v6, IP);
        ip.payloadLength(ip.payloadLength() + 1);
        assertEquals(DropReason.IPV6_PAYLOAD_LENGTH, validate(v6));
    }

    @Test
    void shouldDropWrongUdpPortAndLength()
    {
        assertEquals(DropReason.NOT_ROCEV2_PORT, validate(sendOnlyWith(f -> new UdpFlyweight().wrapAt(f, UDP)
            .destinationPort(4790))));
        assertEquals(DropReason.UDP_LENGTH, validate(sendOnlyWith(f -> new UdpFlyweight().wrapAt(f, UDP)
            .length(new UdpFlyweight().wrapAt(f, UDP).length() - 4))));
        assertEquals(DropReason.UDP_TRUNCATED, validate(sendOnlyWith(f -> new Ipv4Flyweight().wrapAt(f, IP)
            .totalLength(Ipv4Flyweight.LENGTH + 4))));
    }

    @Test
    void shouldDropTransportVersionOtherThanZeroAndDestinationQpZero()
    {
        assertEquals(DropReason.TVER_NONZERO, validate(sendOnlyWith(f -> new BthFlyweight().wrapAt(f, BTH)
            .flags(false, false, 0, 1))));
        assertEquals(DropReason.DEST_QP_ZERO, validate(sendOnlyWith(f -> new BthFlyweight().wrapAt(f, BTH)
            .destinationQp(0))));
    }

    @Test
    void shouldDropReliableDatagramAndReservedOpcodes()
    {
        for (final int opcode : new int[]{ 0x40, 0x44, 0x15, 0x18, 0x1F, 0x2C, 0x60, 0x66, 0x80, 0x82, 0xFF })
        {
            assertEquals(DropReason.UNKNOWN_OPCODE, validate(sendOnlyWith(f -> new BthFlyweight().wrapAt(f, BTH)
                .opcode(opcode))), String.format("0x%02x", opcode));
        }
    }

    @Test
    void shouldDropPacketsTooShortForTheirExtensionHeaders()
    {
        // An 8-byte SEND_ONLY relabelled as WRITE_ONLY lacks 8 of the RETH's 16 bytes.
        assertEquals(DropReason.HEADERS_TRUNCATED, validate(sendOnlyWith(f -> new BthFlyweight().wrapAt(f, BTH)
            .opcode(Opcode.RC_RDMA_WRITE_ONLY))));
    }

    @Test
    void shouldDropPayloadOnOpcodesThatCarryNone()
    {
        // 8 bytes after an ACK's AETH: 4 too many.
        assertEquals(DropReason.UNEXPECTED_PAYLOAD, validate(sendOnlyWith(f -> new BthFlyweight().wrapAt(f, BTH)
            .opcode(Opcode.RC_ACKNOWLEDGE))));
        final UnsafeBuffer ack = Frames.build(Frames.spec(Opcode.RC_ACKNOWLEDGE, false, false), 0);
        new BthFlyweight().wrapAt(ack, BTH).flags(false, false, 1, 0);
        reseal(ack);
        assertEquals(DropReason.UNEXPECTED_PAYLOAD, validate(ack));
    }

    @Test
    void shouldDropPadCountLargerThanPayloadAndUnalignedLengths()
    {
        final UnsafeBuffer empty = Frames.build(Frames.spec(Opcode.RC_SEND_ONLY, false, false).padCount(0), 0);
        new BthFlyweight().wrapAt(empty, BTH).flags(false, false, 3, 0);
        reseal(empty);
        assertEquals(DropReason.PAD_EXCEEDS_PAYLOAD, validate(empty));

        final UnsafeBuffer odd = Frames.build(Frames.spec(Opcode.RC_SEND_ONLY, false, false).padCount(0), 5);
        assertEquals(DropReason.LENGTH_NOT_ALIGNED, validate(odd));
    }

    @Test
    void shouldDropAnyFlippedBitInTheInvariantPartOnTheIcrc()
    {
        final UnsafeBuffer pristine = Frames.build(Frames.spec(Opcode.RC_RDMA_WRITE_ONLY, false, false), 64);
        int icrcDrops = 0;
        for (int i = BTH; i < pristine.capacity(); i++)
        {
            if (i == BTH + BthFlyweight.FECN_BECN_OFFSET)
            {
                continue; // the variant BTH byte is masked
            }
            final UnsafeBuffer frame = new UnsafeBuffer(pristine.byteArray().clone());
            frame.putByte(i, (byte)(frame.getByte(i) ^ 0x01));
            final DropReason reason = validate(frame);
            assertNotEquals(DropReason.NONE, reason, "bit flip at " + i);
            icrcDrops += reason == DropReason.ICRC_MISMATCH ? 1 : 0;
        }
        assertEquals(counters.get(DropReason.ICRC_MISMATCH), icrcDrops);
    }

    @Test
    void shouldAcceptChangesToTheVariantFields()
    {
        final UnsafeBuffer frame = Frames.build(Frames.spec(Opcode.RC_RDMA_WRITE_ONLY, false, false), 64);
        final Ipv4Flyweight ip = new Ipv4Flyweight().wrapAt(frame, IP);
        ip.dscpEcn(26, 3).ttl(1).checksum(ip.computeChecksum()); // a router decremented TTL and marked CE
        new BthFlyweight().wrapAt(frame, BTH).fecnBecn(true, true);
        new UdpFlyweight().wrapAt(frame, UDP).checksum(0xBEEF);
        assertEquals(DropReason.NONE, validate(frame));
        assertEquals(3, packet.ecn());
        assertEquals(26, packet.dscp());
    }

    @Test
    void shouldNeverAcceptOrReadPastATruncatedFrame()
    {
        for (final int opcode : Frames.allOpcodes())
        {
            for (final boolean ipv6 : new boolean[]{ false, true })
            {
                final UnsafeBuffer full = Frames.build(Frames.spec(opcode, ipv6, true), Frames.payloadLengthFor(opcode, 37));
                for (int length = 0; length < full.capacity(); length++)
                {
                    final byte[] prefix = new byte[length];
                    full.getBytes(0, prefix);
                    final UnsafeBuffer truncated = new UnsafeBuffer(prefix); // reads past its end would throw
                    final DropReason reason = validate(truncated);
                    if (full.capacity() > EthernetFlyweight.MIN_FRAME_LENGTH || length < 60)
                    {
                        // a frame shorter than 60 bytes carries Ethernet padding: cutting padding is harmless
                        final boolean onlyPaddingCut = length >= datagramEnd(full);
                        assertEquals(onlyPaddingCut, reason == DropReason.NONE,
                            Opcode.name(opcode) + " cut to " + length + ": " + reason);
                    }
                }
            }
        }
    }

    private int datagramEnd(final UnsafeBuffer full)
    {
        validator.check(full, 0, full.capacity(), packet);
        return packet.datagramEnd();
    }

    @Test
    void shouldValidateAFrameAtAnOffsetInsideALargerBuffer()
    {
        final UnsafeBuffer frame = Frames.build(Frames.spec(Opcode.RC_RDMA_WRITE_FIRST, true, true), 256);
        final UnsafeBuffer ring = new UnsafeBuffer(new byte[8192]);
        ring.putBytes(1001, frame, 0, frame.capacity());
        assertEquals(DropReason.NONE, validator.validate(ring, 1001, frame.capacity(), packet));
        assertEquals(1001 + EthernetFlyweight.TAGGED_LENGTH, packet.ipOffset());
        assertEquals(packet.bthOffset() + 28, packet.payloadOffset());
        assertEquals(packet.bthOffset() + 12, packet.headerOffset(Opcode.RETH));
        assertEquals(-1, packet.headerOffset(Opcode.AETH));
    }
}
