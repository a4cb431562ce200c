package io.rnic.wire;

import io.rnic.icrc.Icrc;
import io.rnic.icrc.PremaskedIcrc;
import io.rnic.icrc.PremaskedIcrcPass;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * Writes a complete RoCEv2 frame from a {@link FrameSpec} straight into a buffer: Ethernet (optionally tagged),
 * IPv4 (with header checksum) or IPv6, UDP, BTH, the extension headers the {@link Opcode} table lists, payload,
 * zero pad bytes, the ICRC (least-significant byte first) and, for frames shorter than 60 bytes, zero Ethernet
 * padding after the IP datagram. Lengths are derived, never given.
 * <p>
 * Two ways in: {@link #build} copies the payload from a source buffer; {@link #buildAroundPayload} expects the
 * payload already in place at {@link #payloadOffset} (the engine copies from a memory region straight there);
 * {@link #buildAroundPayloadElsewhere} leaves it where it lies and writes only what goes around it. Allocates
 * nothing. Single-threaded.
 */
public final class PacketBuilder
{
    private final EthernetFlyweight ethernet = new EthernetFlyweight();
    private final Ipv4Flyweight ipv4 = new Ipv4Flyweight();
    private final Ipv6Flyweight ipv6 = new Ipv6Flyweight();
    private final UdpFlyweight udp = new UdpFlyweight();
    private final BthFlyweight bth = new BthFlyweight();
    private final RethFlyweight reth = new RethFlyweight();
    private final AethFlyweight aeth = new AethFlyweight();
    private final AtomicEthFlyweight atomicEth = new AtomicEthFlyweight();
    private final AtomicAckEthFlyweight atomicAckEth = new AtomicAckEthFlyweight();
    private final DethFlyweight deth = new DethFlyweight();
    private final ImmDtFlyweight immDt = new ImmDtFlyweight();
    private final IethFlyweight ieth = new IethFlyweight();
    private final CnpFlyweight cnp = new CnpFlyweight();
    private final FethFlyweight feth = new FethFlyweight();
    private final PremaskedIcrc icrc = new PremaskedIcrc();
    private final PremaskedIcrcPass icrcAcross = new PremaskedIcrcPass();

    private static final int ALL_DSCP = 0x3F;
    private static final int ALL_ECN = 0x3;
    private static final int ALL_FLOW_LABEL = 0xF_FFFF;

    /** Bytes before the payload: Ethernet (+ tag), IP, UDP, BTH and extension headers. */
    public static int headersLength(final FrameSpec spec)
    {
        final int headerBytes = Opcode.headerLength(spec.opcode);
        if (headerBytes < 0)
        {
            throw new IllegalArgumentException(
                String.format("opcode 0x%02x is not a RoCEv2 RC/UC/UD opcode or the CNP", spec.opcode));
        }
        return l2Length(spec) + l3Length(spec) + UdpFlyweight.LENGTH + headerBytes;
    }

    /** Where the payload goes when the frame starts at {@code frameOffset}. */
    public static int payloadOffset(final int frameOffset, final FrameSpec spec)
    {
        return frameOffset + headersLength(spec);
    }

    /** Length of the frame {@code build} will write for a payload of this size, Ethernet padding included. */
    public static int frameLength(final FrameSpec spec, final int payloadLength)
    {
        final int length = headersLength(spec) + payloadLength + padCount(spec, payloadLength) + Icrc.LENGTH;
        return Math.max(length, EthernetFlyweight.MIN_FRAME_LENGTH);
    }

    /**
     * Copies {@code payloadLength} bytes from {@code payload} and writes the frame around them.
     *
     * @return the frame length written from {@code offset}.
     */
    public int build(
        final MutableDirectBuffer buffer,
        final int offset,
        final FrameSpec spec,
        final DirectBuffer payload,
        final int payloadSourceOffset,
        final int payloadLength)
    {
        checkCapacity(buffer, offset, spec, payloadLength);
        if (payloadLength > 0)
        {
            buffer.putBytes(payloadOffset(offset, spec), payload, payloadSourceOffset, payloadLength);
        }
        return buildAroundPayload(buffer, offset, spec, payloadLength);
    }

    /**
     * Writes the frame around a payload the caller has already put at {@link #payloadOffset}.
     *
     * @return the frame length written from {@code offset}.
     */
    public int buildAroundPayload(
        final MutableDirectBuffer buffer, final int offset, final FrameSpec spec, final int payloadLength)
    {
        checkCapacity(buffer, offset, spec, payloadLength);
        return build(buffer, offset, spec, payloadLength, null);
    }

    /**
     * Writes the headers of a frame whose payload stays where it lies, in {@code payload}'s pieces of native memory
     * (a DPDK port sends them from the memory region, chained after the headers), and right after the headers the
     * pad bytes and the ICRC, which the port sends after the payload. The ICRC covers the headers, the payload where
     * it lies and the pad: one pass, nothing copied. No UDP checksum (it would read the payload a second time): the
     * caller copies instead when {@link FrameSpec#udpChecksum} is set; nor Ethernet padding, which only a frame of
     * less than 60 bytes needs.
     *
     * @return the bytes written from {@code offset}: {@link #headersLength}, then the pad and the ICRC.
     */
    public int buildAroundPayloadElsewhere(
        final MutableDirectBuffer buffer, final int offset, final FrameSpec spec, final PayloadPieces payload)
    {
        final int payloadLength = payload.totalLength();
        if (!buildsAroundPayloadElsewhere(spec, payloadLength))
        {
            throw new IllegalArgumentException("a frame with a UDP checksum or Ethernet padding is built around " +
                "its payload in place");
        }
        checkCapacity(buffer, offset, spec, 3); // the headers, the longest pad and the ICRC
        return build(buffer, offset, spec, payloadLength, payload);
    }

    /** Whether {@link #buildAroundPayloadElsewhere} builds this frame: no UDP checksum, no Ethernet padding. */
    public static boolean buildsAroundPayloadElsewhere(final FrameSpec spec, final int payloadLength)
    {
        return !spec.udpChecksum && frameLength(spec, payloadLength) > EthernetFlyweight.MIN_FRAME_LENGTH;
    }

    /** The frame around its payload: in place at the payload offset, or {@code elsewhere} when not null. */
    private int build(
        final MutableDirectBuffer buffer,
        final int offset,
        final FrameSpec spec,
        final int payloadLength,
        final PayloadPieces elsewhere)
    {
        final int opcode = spec.opcode;
        final int pad = padCount(spec, payloadLength);
        final int ipOffset = offset + l2Length(spec);
        final int udpOffset = ipOffset + l3Length(spec);
        final int bthOffset = udpOffset + UdpFlyweight.LENGTH;
        final int payloadOffset = bthOffset + Opcode.headerLength(opcode);
        final int payloadEnd = elsewhere == null ? payloadOffset + payloadLength : payloadOffset;
        final int icrcOffset = payloadEnd + pad;
        final int datagramEnd = payloadOffset + payloadLength + pad + Icrc.LENGTH;
        final int udpLength = datagramEnd - udpOffset;

        // The ICRC first, over the frame with ones in every masked field and in the 8 bytes before the IP header
        // (PremaskedIcrc: one CRC pass over the frame where it lies, nothing copied, no masks folded in); then the
        // variant fields' values, and last the Ethernet header over those 8 bytes.
        buffer.putLong(ipOffset - Icrc.PREFIX_LENGTH, -1L);
        if (spec.ipv6)
        {
            ipv6.wrapAt(buffer, ipOffset)
                .versionClassFlow(6, ALL_DSCP, ALL_ECN, ALL_FLOW_LABEL)
                .payloadLength(datagramEnd - udpOffset)
                .nextHeader(Ipv6Flyweight.NEXT_HEADER_UDP)
                .hopLimit(0xFF)
                .source(spec.ipv6SourceHigh, spec.ipv6SourceLow)
                .destination(spec.ipv6DestinationHigh, spec.ipv6DestinationLow);
        }
        else
        {
            ipv4.wrapAt(buffer, ipOffset)
                .versionAndIhl(4, 5)
                .dscpEcn(ALL_DSCP, ALL_ECN)
                .totalLength(datagramEnd - ipOffset)
                .identification(spec.ipv4Identification)
                .flagsAndFragmentOffset(spec.ipv4FlagsAndFragmentOffset)
                .ttl(0xFF)
                .protocol(Ipv4Flyweight.PROTOCOL_UDP)
                .source(spec.ipv4Source)
                .destination(spec.ipv4Destination)
                .checksum(0xFFFF);
        }

        udp.wrapAt(buffer, udpOffset)
            .sourcePort(spec.udpSourcePort)
            .destinationPort(UdpFlyweight.ROCEV2_PORT)
            .length(udpLength)
            .checksum(0xFFFF);

        bth.wrapAt(buffer, bthOffset)
            .opcode(opcode)
            .flags(spec.solicitedEvent, spec.migrationRequest, pad, spec.transportVersion)
            .partitionKey(spec.partitionKey)
            .destinationQp(spec.destinationQp)
            .ackRequestAndPsn(spec.ackRequest, spec.psn);
        buffer.putByte(bthOffset + BthFlyweight.FECN_BECN_OFFSET, (byte)0xFF);

        writeExtensionHeaders(buffer, bthOffset, spec);

        for (int i = payloadEnd; i < icrcOffset; i++)
        {
            buffer.putByte(i, (byte)0);
        }
        Icrc.writeWire(buffer, icrcOffset, elsewhere == null ? icrc.compute(buffer, ipOffset, icrcOffset) :
            icrcAcross(buffer, ipOffset, payloadOffset, elsewhere, icrcOffset));

        if (spec.ipv6)
        {
            ipv6.versionClassFlow(6, spec.dscp, spec.ecn, spec.flowLabel).hopLimit(spec.hopLimit);
        }
        else
        {
            ipv4.dscpEcn(spec.dscp, spec.ecn).ttl(spec.hopLimit);
            // from the values, not read back from the stores just made (see Ipv4Flyweight.checksumOf)
            ipv4.checksum(Ipv4Flyweight.checksumOf(Ipv4Flyweight.tosOf(spec.dscp, spec.ecn), datagramEnd - ipOffset,
                spec.ipv4Identification, spec.ipv4FlagsAndFragmentOffset, spec.hopLimit, Ipv4Flyweight.PROTOCOL_UDP,
                spec.ipv4Source, spec.ipv4Destination));
        }
        bth.fecnBecn(spec.fecn, spec.becn);
        // The ICRC masks the UDP checksum, so it can be filled in last, over the datagram including the ICRC.
        udp.checksum(spec.udpChecksum ? InternetChecksum.udp(buffer, ipOffset, spec.ipv6, udpOffset, udpLength) : 0);

        final int etherType = spec.ipv6 ? EthernetFlyweight.ETHERTYPE_IPV6 : EthernetFlyweight.ETHERTYPE_IPV4;
        ethernet.wrapAt(buffer, offset);
        ethernet.destinationMac(spec.destinationMac).sourceMac(spec.sourceMac);
        if (spec.vlan)
        {
            ethernet.vlan(spec.vlanPcp, spec.vlanDei, spec.vlanId, etherType);
        }
        else
        {
            ethernet.etherType(etherType);
        }

        if (elsewhere != null)
        {
            return icrcOffset + Icrc.LENGTH - offset;
        }
        int frameEnd = datagramEnd;
        final int minimumEnd = offset + EthernetFlyweight.MIN_FRAME_LENGTH;
        while (frameEnd < minimumEnd)
        {
            buffer.putByte(frameEnd++, (byte)0);
        }
        return frameEnd - offset;
    }

    /** The ICRC over the headers, then the payload's pieces where they lie, then the pad after the headers. */
    private int icrcAcross(final MutableDirectBuffer buffer, final int ipOffset, final int payloadOffset,
        final PayloadPieces payload, final int icrcOffset)
    {
        icrcAcross.start(buffer, ipOffset, payloadOffset);
        for (int i = 0; i < payload.count(); i++)
        {
            icrcAcross.add(payload.address(i), payload.length(i));
        }
        icrcAcross.add(buffer, payloadOffset, icrcOffset);
        return icrcAcross.finish();
    }

    private void writeExtensionHeaders(final MutableDirectBuffer buffer, final int bthOffset, final FrameSpec spec)
    {
        final int opcode = spec.opcode;
        if (Opcode.hasHeader(opcode, Opcode.DETH))
        {
            deth.wrapAt(buffer, bthOffset + Opcode.offset(opcode, Opcode.DETH))
                .qKey(spec.dethQKey)
                .sourceQp(spec.dethSourceQp);
        }
        if (Opcode.hasHeader(opcode, Opcode.FETH))
        {
            feth.wrapAt(buffer, bthOffset + Opcode.offset(opcode, Opcode.FETH))
                .set(spec.fethPlacementType, spec.fethSelectivityLevel);
        }
        if (Opcode.hasHeader(opcode, Opcode.RETH))
        {
            reth.wrapAt(buffer, bthOffset + Opcode.offset(opcode, Opcode.RETH))
                .virtualAddress(spec.rethVirtualAddress)
                .rKey(spec.rethRKey)
                .dmaLength(spec.rethDmaLength);
        }
        if (Opcode.hasHeader(opcode, Opcode.ATOMIC_ETH))
        {
            atomicEth.wrapAt(buffer, bthOffset + Opcode.offset(opcode, Opcode.ATOMIC_ETH))
                .virtualAddress(spec.atomicVirtualAddress)
                .rKey(spec.atomicRKey)
                .swapOrAdd(spec.atomicSwapOrAdd)
                .compare(spec.atomicCompare);
        }
        if (Opcode.hasHeader(opcode, Opcode.AETH))
        {
            aeth.wrapAt(buffer, bthOffset + Opcode.offset(opcode, Opcode.AETH))
                .syndromeAndMsn(spec.aethSyndrome, spec.aethMsn);
        }
        if (Opcode.hasHeader(opcode, Opcode.ATOMIC_ACK_ETH))
        {
            atomicAckEth.wrapAt(buffer, bthOffset + Opcode.offset(opcode, Opcode.ATOMIC_ACK_ETH))
                .originalRemoteData(spec.atomicAckOriginal);
        }
        if (Opcode.hasHeader(opcode, Opcode.IMMDT))
        {
            immDt.wrapAt(buffer, bthOffset + Opcode.offset(opcode, Opcode.IMMDT)).immediate(spec.immediate);
        }
        if (Opcode.hasHeader(opcode, Opcode.IETH))
        {
            ieth.wrapAt(buffer, bthOffset + Opcode.offset(opcode, Opcode.IETH)).rKey(spec.iethRKey);
        }
        if (Opcode.hasHeader(opcode, Opcode.CNP_RESERVED))
        {
            cnp.wrapAt(buffer, bthOffset + Opcode.offset(opcode, Opcode.CNP_RESERVED)).clearReserved();
        }
    }

    private static int l2Length(final FrameSpec spec)
    {
        return spec.vlan ? EthernetFlyweight.TAGGED_LENGTH : EthernetFlyweight.LENGTH;
    }

    private static int l3Length(final FrameSpec spec)
    {
        return spec.ipv6 ? Ipv6Flyweight.LENGTH : Ipv4Flyweight.LENGTH;
    }

    private static int padCount(final FrameSpec spec, final int payloadLength)
    {
        return spec.padCount == FrameSpec.AUTO_PAD ? -payloadLength & 0x3 : spec.padCount & 0x3;
    }

    private static void checkCapacity(
        final MutableDirectBuffer buffer, final int offset, final FrameSpec spec, final int payloadLength)
    {
        if (payloadLength < 0)
        {
            throw new IllegalArgumentException("negative payload length " + payloadLength);
        }
        final int needed = frameLength(spec, payloadLength);
        if (offset < 0 || (long)offset + needed > buffer.capacity())
        {
            throw new IllegalArgumentException("frame of " + needed + " bytes at offset " + offset +
                " does not fit a buffer of " + buffer.capacity() + " bytes");
        }
    }
}
