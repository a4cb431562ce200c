package io.rnic.wire;

import io.rnic.icrc.Icrc;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PacketBuilderTest
{
    @Test
    void shouldWriteEveryFieldOfEveryOpcodeSoThatItDecodesBack()
    {
        final FrameFields fields = new FrameFields();
        for (final int opcode : Frames.allOpcodes())
        {
            for (final boolean ipv6 : new boolean[]{ false, true })
            {
                final int payloadLength = Frames.payloadLengthFor(opcode, 13);
                final UnsafeBuffer frame = Frames.build(Frames.spec(opcode, ipv6, true), payloadLength);
                final Map<String, Object> f = fields.decode(frame, 0, frame.capacity());
                final String what = Opcode.name(opcode);
                assertEquals("accept", f.get("verdict"), what);
                assertEquals(opcode, f.get("opcode"), what);
                assertEquals(0x1234, f.get("dest_qp"), what);
                assertEquals(ipv6 ? 6 : 4, f.get("ipver"), what);
                assertEquals(payloadLength, f.get("payload_len"), what);
                assertEquals(Map.of("tpid", 0x8100, "pcp", 3, "dei", 0, "vid", 100), f.get("vlan"), what);
                if (Opcode.hasHeader(opcode, Opcode.RETH))
                {
                    assertEquals("0x00007f0012345678", f.get("reth_va"));
                    assertEquals(0xCAFEBABEL, f.get("reth_rkey"));
                    assertEquals(4096L, f.get("reth_dmalen"));
                }
                if (Opcode.hasHeader(opcode, Opcode.ATOMIC_ETH))
                {
                    assertEquals("0x0102030405060708", f.get("atomic_swap_add"));
                    assertEquals("0x1112131415161718", f.get("atomic_compare"));
                }
                if (Opcode.hasHeader(opcode, Opcode.AETH))
                {
                    assertEquals(0x1F, f.get("syndrome"));
                    assertEquals(0x42, f.get("aeth_msn"));
                }
                if (Opcode.hasHeader(opcode, Opcode.ATOMIC_ACK_ETH))
                {
                    assertEquals("0x2122232425262728", f.get("atomic_orig"));
                }
                if (Opcode.hasHeader(opcode, Opcode.DETH))
                {
                    assertEquals(0x11111111L, f.get("deth_qkey"));
                    assertEquals(0x11, f.get("deth_src_qp"));
                }
                if (Opcode.hasHeader(opcode, Opcode.IMMDT))
                {
                    assertEquals(0xDEADBEEFL, f.get("immdt"));
                }
                if (Opcode.hasHeader(opcode, Opcode.IETH))
                {
                    assertEquals(0x33334444L, f.get("ieth_rkey"));
                }
                if (opcode == Opcode.CNP)
                {
                    assertEquals(1, f.get("becn"));
                    assertEquals("00000000000000000000000000000000", f.get("cnp_reserved_hex"));
                    assertEquals(2, f.get("ip_ecn"));
                    assertEquals(48, f.get("ip_dscp"));
                }
            }
        }
    }

    @Test
    void shouldPadShortFramesToTheEthernetMinimumAfterTheDatagram()
    {
        final FrameSpec spec = Frames.spec(Opcode.RC_SEND_ONLY, false, false);
        final UnsafeBuffer frame = Frames.build(spec, 0);
        assertEquals(60, frame.capacity());
        final Ipv4Flyweight ip = new Ipv4Flyweight().wrapAt(frame, EthernetFlyweight.LENGTH);
        assertEquals(20 + 8 + 12 + 4, ip.totalLength());
        assertEquals(0, frame.getShort(58));
    }

    @Test
    void shouldComputeTheSameIcrcAsACopyUnderJavaUtilZipCrc32()
    {
        final UnsafeBuffer frame = Frames.build(Frames.spec(Opcode.RC_RDMA_WRITE_ONLY, true, true), 1000);
        final int ipOffset = EthernetFlyweight.TAGGED_LENGTH;
        final int icrcOffset = frame.capacity() - 4;
        final byte[] masked = new byte[8 + icrcOffset - ipOffset];
        java.util.Arrays.fill(masked, 0, 8, (byte)0xFF);
        frame.getBytes(ipOffset, masked, 8, icrcOffset - ipOffset);
        masked[8] |= 0x0F;
        masked[9] = masked[10] = masked[11] = (byte)0xFF;
        masked[8 + 7] = (byte)0xFF;
        masked[8 + 40 + 6] = masked[8 + 40 + 7] = (byte)0xFF;
        masked[8 + 48 + 4] = (byte)0xFF;
        final java.util.zip.CRC32 crc = new java.util.zip.CRC32();
        crc.update(masked);
        assertEquals((int)crc.getValue(), Icrc.readWire(frame, icrcOffset));
    }

    /**
     * The builder computes the ICRC before the variant fields get their values (ones in their place, PremaskedIcrc):
     * with every variant field non-zero, tagged or not, IPv4 and IPv6, at an offset in heap and off-heap memory, the
     * frame's ICRC is the one a receiver computes from the finished frame, and every variant field holds its value.
     */
    @Test
    void shouldComputeTheIcrcOfTheFinishedFrameWithEveryVariantFieldSet()
    {
        final PacketBuilder builder = new PacketBuilder();
        final io.rnic.icrc.IcrcCalculator receiver = Icrc.defaultCalculator();
        final int offset = 13;
        for (final boolean ipv6 : new boolean[]{ false, true })
        {
            for (final boolean vlan : new boolean[]{ false, true })
            {
                for (final int payloadLength : new int[]{ 0, 1, 62, 1000, 4096 })
                {
                    for (final boolean direct : new boolean[]{ false, true })
                    {
                        final FrameSpec spec = Frames.spec(Opcode.RC_RDMA_WRITE_ONLY, ipv6, vlan)
                            .trafficClass(46, 3).hopLimit(17).fecnBecn(true, true).udpChecksum(true);
                        final int length = PacketBuilder.frameLength(spec, payloadLength);
                        final UnsafeBuffer buffer = direct ?
                            new UnsafeBuffer(java.nio.ByteBuffer.allocateDirect(offset + length)) :
                            new UnsafeBuffer(new byte[offset + length]);
                        buffer.setMemory(0, offset + length, (byte)0x5A);
                        final UnsafeBuffer payload = new UnsafeBuffer(new byte[payloadLength]);
                        for (int i = 0; i < payloadLength; i++)
                        {
                            payload.putByte(i, (byte)(i * 13 + 1));
                        }
                        assertEquals(length, builder.build(buffer, offset, spec, payload, 0, payloadLength));

                        final int ipOffset = offset + (vlan ? EthernetFlyweight.TAGGED_LENGTH : EthernetFlyweight.LENGTH);
                        final int udpOffset = ipOffset + (ipv6 ? 40 : 20);
                        final UdpFlyweight udp = new UdpFlyweight().wrapAt(buffer, udpOffset);
                        final int icrcOffset = udpOffset + udp.length() - Icrc.LENGTH;
                        final String what = (ipv6 ? "IPv6" : "IPv4") + (vlan ? " tagged" : "") + ", " +
                            payloadLength + " B" + (direct ? ", off-heap" : ", heap");
                        assertEquals(receiver.compute(buffer, ipOffset, ipv6, icrcOffset),
                            Icrc.readWire(buffer, icrcOffset), what);
                        assertEquals(0x5A, buffer.getByte(offset - 1), what); // nothing written before the frame
                        final EthernetFlyweight ethernet = new EthernetFlyweight().wrapAt(buffer, offset);
                        assertEquals(Frames.MAC_A, ethernet.sourceMac(), what);
                        assertEquals(Frames.MAC_B, ethernet.destinationMac(), what);
                        if (ipv6)
                        {
                            final Ipv6Flyweight ip = new Ipv6Flyweight().wrapAt(buffer, ipOffset);
                            assertEquals((46 << 2) | 3, ip.trafficClass(), what);
                            assertEquals(0x12345, ip.flowLabel(), what);
                            assertEquals(17, ip.hopLimit(), what);
                        }
                        else
                        {
                            final Ipv4Flyweight ip = new Ipv4Flyweight().wrapAt(buffer, ipOffset);
                            assertEquals(46, ip.dscp(), what);
                            assertEquals(3, ip.ecn(), what);
                            assertEquals(17, ip.ttl(), what);
                            assertTrue(ip.isChecksumValid(), what);
                        }
                        assertEquals(udp.checksum(), InternetChecksum.udp(buffer, ipOffset, ipv6, udpOffset,
                            udp.length()), what);
                        final int bthOffset = udpOffset + UdpFlyweight.LENGTH;
                        assertEquals(0xC0, buffer.getByte(bthOffset + BthFlyweight.FECN_BECN_OFFSET) & 0xFF, what);
                    }
                }
            }
        }
    }

    @Test
    void shouldWriteAValidUdpChecksumWhenAsked()
    {
        for (final boolean ipv6 : new boolean[]{ false, true })
        {
            final UnsafeBuffer frame = Frames.build(Frames.spec(Opcode.RC_SEND_ONLY, ipv6, false).udpChecksum(true), 33);
            final int ipOffset = EthernetFlyweight.LENGTH;
            final int udpOffset = ipOffset + (ipv6 ? 40 : 20);
            final UdpFlyweight udp = new UdpFlyweight().wrapAt(frame, udpOffset);
            assertTrue(udp.checksum() != 0);
            assertEquals(udp.checksum(), InternetChecksum.udp(frame, ipOffset, ipv6, udpOffset, udp.length()));
        }
    }

    @Test
    void shouldBuildAroundAPayloadAlreadyInPlace()
    {
        final FrameSpec spec = Frames.spec(Opcode.RC_RDMA_WRITE_MIDDLE, false, false);
        final UnsafeBuffer expected = Frames.build(spec, 1024);
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[2048]);
        final int payloadOffset = PacketBuilder.payloadOffset(0, spec);
        for (int i = 0; i < 1024; i++)
        {
            buffer.putByte(payloadOffset + i, (byte)(i * 7 + 3));
        }
        final int length = new PacketBuilder().buildAroundPayload(buffer, 0, spec, 1024);
        assertEquals(expected.capacity(), length);
        for (int i = 0; i < length; i++)
        {
            assertEquals(expected.getByte(i), buffer.getByte(i), "byte " + i);
        }
    }

    /**
     * The headers, the payload left in pieces elsewhere and the trailer (pad and ICRC) written after the headers
     * make, end to end, the frame built around the payload in place: same bytes, same ICRC (for every pad count,
     * IPv4 and IPv6, tagged or not, pieces on and off heap boundaries).
     */
    @Test
    void shouldBuildAroundAPayloadElsewhereTheSameFrameAsInPlace()
    {
        final PacketBuilder builder = new PacketBuilder();
        final UnsafeBuffer region = new UnsafeBuffer(java.nio.ByteBuffer.allocateDirect(8192));
        for (int i = 0; i < region.capacity(); i++)
        {
            region.putByte(i, (byte)(i * 31 + 7));
        }
        for (final boolean ipv6 : new boolean[]{ false, true })
        {
            for (final boolean vlan : new boolean[]{ false, true })
            {
                for (final int payloadLength : new int[]{ 512, 1021, 1022, 1023, 4096 })
                {
                    final FrameSpec spec = Frames.spec(Opcode.RC_SEND_ONLY, ipv6, vlan).trafficClass(46, 3)
                        .hopLimit(17).fecnBecn(true, false);
                    final UnsafeBuffer expected = new UnsafeBuffer(new byte[PacketBuilder.frameLength(spec,
                        payloadLength)]);
                    builder.build(expected, 0, spec, region, 100, payloadLength);

                    final PayloadPieces pieces = new PayloadPieces();
                    final int first = payloadLength / 3;
                    pieces.add(region.addressOffset() + 100, first);
                    pieces.add(region.addressOffset() + 100 + first, payloadLength - first);
                    final UnsafeBuffer headers = new UnsafeBuffer(java.nio.ByteBuffer.allocateDirect(256));
                    final int written = builder.buildAroundPayloadElsewhere(headers, 0, spec, pieces);
                    final int headerBytes = PacketBuilder.headersLength(spec);

                    final String what = (ipv6 ? "IPv6" : "IPv4") + (vlan ? " tagged" : "") + ", " + payloadLength;
                    assertEquals(expected.capacity(), written + payloadLength, what);
                    for (int i = 0; i < headerBytes; i++)
                    {
                        assertEquals(expected.getByte(i), headers.getByte(i), what + ": header byte " + i);
                    }
                    for (int i = headerBytes; i < written; i++)
                    {
                        assertEquals(expected.getByte(i + payloadLength), headers.getByte(i), what + ": trailer " + i);
                    }
                }
            }
        }
    }

    @Test
    void shouldRejectUnknownOpcodesAndTooSmallBuffersWithAClearError()
    {
        final PacketBuilder builder = new PacketBuilder();
        final FrameSpec rd = Frames.spec(0x44, false, false);
        final IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
            () -> builder.buildAroundPayload(new UnsafeBuffer(new byte[256]), 0, rd, 0));
        assertTrue(unknown.getMessage().contains("0x44"), unknown.getMessage());

        final FrameSpec write = Frames.spec(Opcode.RC_RDMA_WRITE_ONLY, false, false);
        final IllegalArgumentException small = assertThrows(IllegalArgumentException.class,
            () -> builder.buildAroundPayload(new UnsafeBuffer(new byte[100]), 0, write, 64));
        assertTrue(small.getMessage().contains("does not fit"), small.getMessage());
    }
}
