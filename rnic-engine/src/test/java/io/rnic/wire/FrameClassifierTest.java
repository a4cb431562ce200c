package io.rnic.wire;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteOrder;

import static org.junit.jupiter.api.Assertions.assertEquals;

class FrameClassifierTest
{
    private static final int UNTAGGED = EthernetFlyweight.LENGTH;
    private static final int TAGGED = EthernetFlyweight.TAGGED_LENGTH;
    private static final int UDP_V4 = Ipv4Flyweight.LENGTH + UdpFlyweight.LENGTH;
    private static final int UDP_V6 = Ipv6Flyweight.LENGTH + UdpFlyweight.LENGTH;

    private static int classify(final UnsafeBuffer frame)
    {
        return FrameClassifier.classify(frame, 0, frame.capacity());
    }

    private static UnsafeBuffer roce(final boolean ipv6, final boolean vlan)
    {
        return Frames.build(Frames.spec(Opcode.RC_SEND_ONLY, ipv6, vlan), 8);
    }

    /** The first {@code length} bytes of {@code frame} in a buffer of exactly that length (reads past it throw). */
    private static UnsafeBuffer cut(final UnsafeBuffer frame, final int length)
    {
        final byte[] bytes = new byte[length];
        frame.getBytes(0, bytes);
        return new UnsafeBuffer(bytes);
    }

    /** A frame of {@code length} zeros but for its EtherType, tagged (VLAN 100) or not. */
    private static UnsafeBuffer frame(final int etherType, final boolean vlan, final int length)
    {
        final UnsafeBuffer frame = new UnsafeBuffer(new byte[length]);
        if (vlan)
        {
            frame.putShort(EthernetFlyweight.TYPE_OFFSET, (short)EthernetFlyweight.TPID_8021Q, ByteOrder.BIG_ENDIAN);
            frame.putShort(EthernetFlyweight.TCI_OFFSET, (short)100, ByteOrder.BIG_ENDIAN);
            frame.putShort(EthernetFlyweight.INNER_TYPE_OFFSET, (short)etherType, ByteOrder.BIG_ENDIAN);
        }
        else
        {
            frame.putShort(EthernetFlyweight.TYPE_OFFSET, (short)etherType, ByteOrder.BIG_ENDIAN);
        }
        return frame;
    }

    /** An IPv6 frame whose next header is ICMPv6: a neighbour solicitation's size (ICMPv6 body left zero). */
    private static UnsafeBuffer icmpv6(final boolean vlan)
    {
        final int l3 = vlan ? TAGGED : UNTAGGED;
        final UnsafeBuffer frame = frame(EthernetFlyweight.ETHERTYPE_IPV6, vlan, l3 + Ipv6Flyweight.LENGTH + 24);
        frame.putByte(l3, (byte)0x60);
        frame.putByte(l3 + Ipv6Flyweight.NEXT_HEADER_OFFSET, (byte)Ipv6Flyweight.NEXT_HEADER_ICMPV6);
        return frame;
    }

    @Test
    void shouldFindTheBthOfRoceOverIpv4AndIpv6TaggedOrNot()
    {
        assertEquals(UNTAGGED + UDP_V4, classify(roce(false, false)));
        assertEquals(TAGGED + UDP_V4, classify(roce(false, true)));
        assertEquals(UNTAGGED + UDP_V6, classify(roce(true, false)));
        assertEquals(TAGGED + UDP_V6, classify(roce(true, true)));
    }

    @Test
    void shouldReturnTheBthIndexInTheBufferForAFrameAtAnOffset()
    {
        final UnsafeBuffer frame = roce(true, true);
        final int offset = 37;
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[offset + frame.capacity() + 11]);
        buffer.putBytes(offset, frame, 0, frame.capacity());

        assertEquals(offset + TAGGED + UDP_V6, FrameClassifier.classify(buffer, offset, frame.capacity()));
    }

    @Test
    void shouldSkipIpv4OptionsToFindTheUdpHeader()
    {
        final UnsafeBuffer plain = roce(false, true);
        final int options = 8;
        final int ip = TAGGED;
        final UnsafeBuffer frame = new UnsafeBuffer(new byte[plain.capacity() + options]);
        frame.putBytes(0, plain, 0, ip + Ipv4Flyweight.LENGTH);
        frame.putBytes(ip + Ipv4Flyweight.LENGTH + options, plain, ip + Ipv4Flyweight.LENGTH,
            plain.capacity() - ip - Ipv4Flyweight.LENGTH);
        frame.putByte(ip + Ipv4Flyweight.VERSION_IHL_OFFSET, (byte)(0x40 | (Ipv4Flyweight.LENGTH + options) / 4));

        assertEquals(ip + Ipv4Flyweight.LENGTH + options + UdpFlyweight.LENGTH, classify(frame));
    }

    @Test
    void shouldCallFramesTooShortForTheirHeadersTruncatedWithoutReadingPastThem()
    {
        assertEquals(FrameClassifier.TRUNCATED, classify(new UnsafeBuffer(new byte[0])));
        assertEquals(FrameClassifier.TRUNCATED, classify(cut(roce(false, false), UNTAGGED - 1)));
        assertEquals(FrameClassifier.TRUNCATED, classify(cut(roce(false, true), TAGGED - 1)));
        assertEquals(FrameClassifier.TRUNCATED, classify(cut(roce(false, false), UNTAGGED + UDP_V4 - 1)));
        assertEquals(FrameClassifier.TRUNCATED, classify(cut(roce(false, true), TAGGED + UDP_V4 - 1)));
        assertEquals(FrameClassifier.TRUNCATED, classify(cut(roce(true, false), UNTAGGED + UDP_V6 - 1)));
        assertEquals(FrameClassifier.TRUNCATED, classify(cut(roce(true, true), TAGGED + UDP_V6 - 1)));
        assertEquals(FrameClassifier.TRUNCATED, classify(cut(icmpv6(false), UNTAGGED + UDP_V6 - 1)));

        final UnsafeBuffer longOptions = cut(roce(false, false), UNTAGGED + UDP_V4 + 8);
        longOptions.putByte(UNTAGGED + Ipv4Flyweight.VERSION_IHL_OFFSET, (byte)0x4F); // 60 bytes of header
        assertEquals(FrameClassifier.TRUNCATED, classify(longOptions));
    }

    @Test
    void shouldNotTakeUdpToAnotherPortOrAnotherIpProtocolForRoce()
    {
        for (final boolean vlan : new boolean[]{ false, true })
        {
            final int l3 = vlan ? TAGGED : UNTAGGED;
            final UnsafeBuffer v4 = roce(false, vlan);
            v4.putShort(l3 + Ipv4Flyweight.LENGTH + UdpFlyweight.DESTINATION_PORT_OFFSET, (short)4792,
                ByteOrder.BIG_ENDIAN);
            assertEquals(FrameClassifier.NOT_ROCE, classify(v4));

            final UnsafeBuffer v6 = roce(true, vlan);
            v6.putShort(l3 + Ipv6Flyweight.LENGTH + UdpFlyweight.DESTINATION_PORT_OFFSET, (short)53,
                ByteOrder.BIG_ENDIAN);
            assertEquals(FrameClassifier.NOT_ROCE, classify(v6));

            final UnsafeBuffer tcp = roce(false, vlan);
            tcp.putByte(l3 + Ipv4Flyweight.PROTOCOL_OFFSET, (byte)6);
            assertEquals(FrameClassifier.NOT_ROCE, classify(tcp));

            final UnsafeBuffer sourcePortOnly = roce(true, vlan); // 4791 as the source port is not RoCEv2
            sourcePortOnly.putShort(l3 + Ipv6Flyweight.LENGTH + UdpFlyweight.SOURCE_PORT_OFFSET,
                (short)UdpFlyweight.ROCEV2_PORT, ByteOrder.BIG_ENDIAN);
            sourcePortOnly.putShort(l3 + Ipv6Flyweight.LENGTH + UdpFlyweight.DESTINATION_PORT_OFFSET, (short)4790,
                ByteOrder.BIG_ENDIAN);
            assertEquals(FrameClassifier.NOT_ROCE, classify(sourcePortOnly));
        }
    }

    @Test
    void shouldHandArpToNeighbourDiscoveryOnlyWhenUntagged()
    {
        assertEquals(FrameClassifier.ARP, classify(frame(EthernetFlyweight.ETHERTYPE_ARP, false, UNTAGGED + 28)));
        assertEquals(FrameClassifier.ARP, classify(frame(EthernetFlyweight.ETHERTYPE_ARP, false, UNTAGGED)));
        assertEquals(FrameClassifier.NOT_ROCE, classify(frame(EthernetFlyweight.ETHERTYPE_ARP, true, TAGGED + 28)));
    }

    @Test
    void shouldHandIcmpv6ToNeighbourDiscoveryOnlyWhenUntagged()
    {
        assertEquals(FrameClassifier.ICMPV6, classify(icmpv6(false)));
        assertEquals(FrameClassifier.NOT_ROCE, classify(icmpv6(true)));
    }

    @Test
    void shouldIgnoreOtherEtherTypes()
    {
        assertEquals(FrameClassifier.NOT_ROCE, classify(frame(0x88CC, false, 60))); // LLDP
        assertEquals(FrameClassifier.NOT_ROCE, classify(frame(0x88CC, true, 64)));
        assertEquals(FrameClassifier.NOT_ROCE, classify(frame(EthernetFlyweight.TPID_8021Q, true, 64))); // QinQ
    }
}
