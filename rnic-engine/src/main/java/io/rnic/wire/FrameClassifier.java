package io.rnic.wire;

import org.agrona.DirectBuffer;

import java.nio.ByteOrder;

/**
 * Sorts a received Ethernet frame by what it carries, before anything else reads it: RoCEv2 (UDP to port
 * {@value UdpFlyweight#ROCEV2_PORT} over IPv4 or IPv6, untagged or with one 802.1Q tag), ARP or ICMPv6 (neighbour
 * discovery's, untagged only), or something else: the kernel's own traffic shares an AF_PACKET interface. It reads
 * no more than the sort needs (the EtherType, the IP protocol, the UDP destination port) and checks nothing else:
 * the {@link InboundValidator} checks the RoCEv2 frames whole, counting what it drops by reason. Static and
 * allocation-free: one call per received frame.
 */
public final class FrameClassifier
{
    /** An ARP frame (untagged). */
    public static final int ARP = -1;
    /** An ICMPv6 packet in an untagged IPv6 frame: neighbour solicitations and advertisements among others. */
    public static final int ICMPV6 = -2;
    /** A well-formed frame that is none of the above: another EtherType, protocol or UDP port, a tagged ARP … */
    public static final int NOT_ROCE = -3;
    /** A frame too short for the headers its EtherType announces (or for an Ethernet header). */
    public static final int TRUNCATED = -4;

    private FrameClassifier()
    {
    }

    /**
     * @return the index in {@code buffer} of the RoCEv2 payload (the BTH) when the frame is RoCEv2, else
     * {@link #ARP}, {@link #ICMPV6}, {@link #NOT_ROCE} or {@link #TRUNCATED}.
     */
    public static int classify(final DirectBuffer buffer, final int offset, final int length)
    {
        if (length < EthernetFlyweight.LENGTH)
        {
            return TRUNCATED;
        }
        int etherType = u16(buffer, offset + EthernetFlyweight.TYPE_OFFSET);
        int l3 = offset + EthernetFlyweight.LENGTH;
        if (etherType == EthernetFlyweight.TPID_8021Q)
        {
            if (length < EthernetFlyweight.TAGGED_LENGTH)
            {
                return TRUNCATED;
            }
            etherType = u16(buffer, offset + EthernetFlyweight.INNER_TYPE_OFFSET);
            l3 += EthernetFlyweight.VLAN_TAG_LENGTH;
        }
        final int end = offset + length;
        final boolean tagged = l3 != offset + EthernetFlyweight.LENGTH;
        return switch (etherType)
        {
            case EthernetFlyweight.ETHERTYPE_IPV4 -> ipv4(buffer, l3, end);
            case EthernetFlyweight.ETHERTYPE_IPV6 -> ipv6(buffer, l3, end, tagged);
            case EthernetFlyweight.ETHERTYPE_ARP -> tagged ? NOT_ROCE : ARP;
            default -> NOT_ROCE;
        };
    }

    /** The header length is the IHL's, options included: the validator refuses options, with a counter. */
    private static int ipv4(final DirectBuffer buffer, final int l3, final int end)
    {
        if (l3 + Ipv4Flyweight.LENGTH + UdpFlyweight.LENGTH > end)
        {
            return TRUNCATED;
        }
        if (buffer.getByte(l3 + Ipv4Flyweight.PROTOCOL_OFFSET) != Ipv4Flyweight.PROTOCOL_UDP)
        {
            return NOT_ROCE;
        }
        final int udp = l3 + (buffer.getByte(l3 + Ipv4Flyweight.VERSION_IHL_OFFSET) & 0x0F) * 4;
        if (udp + UdpFlyweight.LENGTH > end)
        {
            return TRUNCATED;
        }
        return roceAfterUdp(buffer, udp);
    }

    private static int ipv6(final DirectBuffer buffer, final int l3, final int end, final boolean tagged)
    {
        if (l3 + Ipv6Flyweight.LENGTH + UdpFlyweight.LENGTH > end)
        {
            return TRUNCATED;
        }
        final int nextHeader = buffer.getByte(l3 + Ipv6Flyweight.NEXT_HEADER_OFFSET) & 0xFF;
        if (nextHeader == Ipv6Flyweight.NEXT_HEADER_UDP)
        {
            return roceAfterUdp(buffer, l3 + Ipv6Flyweight.LENGTH);
        }
        return nextHeader == Ipv6Flyweight.NEXT_HEADER_ICMPV6 && !tagged ? ICMPV6 : NOT_ROCE;
    }

    private static int roceAfterUdp(final DirectBuffer buffer, final int udp)
    {
        return u16(buffer, udp + UdpFlyweight.DESTINATION_PORT_OFFSET) == UdpFlyweight.ROCEV2_PORT ?
            udp + UdpFlyweight.LENGTH : NOT_ROCE;
    }

    private static int u16(final DirectBuffer buffer, final int index)
    {
        return buffer.getShort(index, ByteOrder.BIG_ENDIAN) & 0xFFFF;
    }
}
