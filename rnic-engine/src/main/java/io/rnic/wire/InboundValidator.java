package io.rnic.wire;

import io.rnic.icrc.Icrc;
import io.rnic.icrc.IcrcCalculator;
import org.agrona.DirectBuffer;

/**
 * Inbound validation of one Ethernet frame, as {@code rxe_recv.c} does before routing a packet: Ethernet and one
 * optional 802.1Q tag, IPv4 or IPv6, UDP, BTH, the extension headers the opcode requires, pad count, and the
 * ICRC. Every rule that the annex says is "silently dropped" yields a {@link DropReason} and bumps its counter;
 * an accepted frame fills a {@link RocePacket} with the offsets of its parts.
 * <p>
 * Never reads a byte outside {@code [offset, offset + length)}; allocates nothing; throws nothing on bad input.
 * Single-threaded: one validator per engine thread.
 */
public final class InboundValidator
{
    private final EthernetFlyweight ethernet = new EthernetFlyweight();
    private final Ipv4Flyweight ipv4 = new Ipv4Flyweight();
    private final Ipv6Flyweight ipv6 = new Ipv6Flyweight();
    private final UdpFlyweight udp = new UdpFlyweight();
    private final BthFlyweight bth = new BthFlyweight();
    private final IcrcCalculator icrc;
    private final InboundCounters counters;

    public InboundValidator()
    {
        this(Icrc.defaultCalculator(), new InboundCounters());
    }

    public InboundValidator(final IcrcCalculator icrc, final InboundCounters counters)
    {
        this.icrc = icrc;
        this.counters = counters;
    }

    public InboundCounters counters()
    {
        return counters;
    }

    /**
     * Validates the frame and counts the verdict.
     *
     * @param buffer holding the frame.
     * @param offset of the first byte of the Ethernet header.
     * @param length of the frame as received (without FCS; may include Ethernet padding).
     * @param packet filled with the offsets of the frame's parts (partially, up to the failing check, on a drop).
     * @return {@link DropReason#NONE} when the frame is a valid RoCEv2 packet, otherwise why it was dropped.
     */
    public DropReason validate(final DirectBuffer buffer, final int offset, final int length, final RocePacket packet)
    {
        final DropReason reason = check(buffer, offset, length, packet);
        counters.increment(reason);
        return reason;
    }

    /** Validates without counting (for tools that only look, like {@code rnic inspect}). */
    public DropReason check(final DirectBuffer buffer, final int offset, final int length, final RocePacket packet)
    {
        packet.reset(buffer, offset, length);
        final int frameEnd = offset + length;
        if (length < EthernetFlyweight.LENGTH || frameEnd > buffer.capacity() || offset < 0)
        {
            return DropReason.FRAME_TRUNCATED;
        }

        ethernet.wrapAt(buffer, offset);
        final int ipOffset;
        final int etherType;
        if (ethernet.outerType() == EthernetFlyweight.TPID_8021Q)
        {
            if (length < EthernetFlyweight.TAGGED_LENGTH)
            {
                return DropReason.FRAME_TRUNCATED;
            }
            packet.hasVlan = true;
            packet.vlanTci = ethernet.vlanTci();
            etherType = ethernet.etherType();
            ipOffset = offset + EthernetFlyweight.TAGGED_LENGTH;
        }
        else
        {
            etherType = ethernet.outerType();
            ipOffset = offset + EthernetFlyweight.LENGTH;
        }
        packet.ipOffset = ipOffset;

        final int udpOffset;
        final int datagramEnd;
        if (etherType == EthernetFlyweight.ETHERTYPE_IPV4)
        {
            packet.ipVersion = 4;
            if (frameEnd - ipOffset < Ipv4Flyweight.LENGTH)
            {
                return DropReason.IP_HEADER_TRUNCATED;
            }
            ipv4.wrapAt(buffer, ipOffset);
            packet.ipTos = ipv4.tos();
            if (ipv4.version() != 4)
            {
                return DropReason.IP_VERSION_MISMATCH;
            }
            if (ipv4.protocol() != Ipv4Flyweight.PROTOCOL_UDP)
            {
                return DropReason.NOT_UDP;
            }
            if (ipv4.ihl() != 5)
            {
                return DropReason.IPV4_IHL_NOT_5;
            }
            final int totalLength = ipv4.totalLength();
            if (totalLength < Ipv4Flyweight.LENGTH || totalLength > frameEnd - ipOffset)
            {
                return DropReason.IPV4_TOTAL_LENGTH;
            }
            if (!ipv4.isChecksumValid())
            {
                return DropReason.IPV4_HEADER_CHECKSUM;
            }
            final int flags = ipv4.flagsAndFragmentOffset();
            if ((flags & (Ipv4Flyweight.FLAG_MORE_FRAGMENTS | Ipv4Flyweight.FRAGMENT_OFFSET_MASK)) != 0)
            {
                return DropReason.IPV4_FRAGMENT;
            }
            if ((flags & 0xE000) != Ipv4Flyweight.FLAG_DONT_FRAGMENT)
            {
                return DropReason.IPV4_DONT_FRAGMENT_CLEAR;
            }
            udpOffset = ipOffset + Ipv4Flyweight.LENGTH;
            datagramEnd = ipOffset + totalLength;
        }
        else if (etherType == EthernetFlyweight.ETHERTYPE_IPV6)
        {
            packet.ipVersion = 6;
            if (frameEnd - ipOffset < Ipv6Flyweight.LENGTH)
            {
                return DropReason.IP_HEADER_TRUNCATED;
            }
            ipv6.wrapAt(buffer, ipOffset);
            packet.ipTos = ipv6.trafficClass();
            if (ipv6.version() != 6)
            {
                return DropReason.IP_VERSION_MISMATCH;
            }
            if (ipv6.nextHeader() != Ipv6Flyweight.NEXT_HEADER_UDP)
            {
                return DropReason.NOT_UDP;
            }
            udpOffset = ipOffset + Ipv6Flyweight.LENGTH;
            final int payloadLength = ipv6.payloadLength();
            if (payloadLength > frameEnd - udpOffset)
            {
                return DropReason.IPV6_PAYLOAD_LENGTH;
            }
            datagramEnd = udpOffset + payloadLength;
        }
        else
        {
            return DropReason.NOT_IP;
        }

        packet.udpOffset = udpOffset;
        if (datagramEnd - udpOffset < UdpFlyweight.LENGTH)
        {
            return DropReason.UDP_TRUNCATED;
        }
        udp.wrapAt(buffer, udpOffset);
        if (udp.destinationPort() != UdpFlyweight.ROCEV2_PORT)
        {
            return DropReason.NOT_ROCEV2_PORT;
        }
        if (udp.length() != datagramEnd - udpOffset)
        {
            return DropReason.UDP_LENGTH;
        }

        final int bthOffset = udpOffset + UdpFlyweight.LENGTH;
        packet.bthOffset = bthOffset;
        if (datagramEnd - bthOffset < BthFlyweight.LENGTH + Icrc.LENGTH)
        {
            return DropReason.BTH_TRUNCATED;
        }
        final int icrcOffset = datagramEnd - Icrc.LENGTH;
        packet.icrcOffset = icrcOffset;

        bth.wrapAt(buffer, bthOffset);
        final int opcode = bth.opcode();
        packet.opcode = opcode;
        if (bth.transportVersion() != 0)
        {
            return DropReason.TVER_NONZERO;
        }
        if (!Opcode.isValid(opcode))
        {
            return DropReason.UNKNOWN_OPCODE;
        }
        if (bth.destinationQp() == 0)
        {
            return DropReason.DEST_QP_ZERO;
        }

        final int headersEnd = bthOffset + Opcode.headerLength(opcode);
        if (headersEnd > icrcOffset)
        {
            return DropReason.HEADERS_TRUNCATED;
        }
        final int afterHeaders = icrcOffset - headersEnd;
        final int padCount = bth.padCount();
        packet.padCount = padCount;
        packet.payloadOffset = headersEnd;
        if (Opcode.has(opcode, Opcode.FLAG_PAYLOAD))
        {
            if (padCount > afterHeaders)
            {
                return DropReason.PAD_EXCEEDS_PAYLOAD;
            }
            if ((afterHeaders & 0x3) != 0)
            {
                return DropReason.LENGTH_NOT_ALIGNED;
            }
            packet.payloadLength = afterHeaders - padCount;
        }
        else if (afterHeaders != 0 || padCount != 0)
        {
            return DropReason.UNEXPECTED_PAYLOAD;
        }

        final int computed = icrc.compute(buffer, ipOffset, packet.ipVersion == 6, icrcOffset);
        if (computed != Icrc.readWire(buffer, icrcOffset))
        {
            return DropReason.ICRC_MISMATCH;
        }

        return DropReason.NONE;
    }
}
