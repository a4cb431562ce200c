package io.rnic.wire;

import io.rnic.icrc.Icrc;
import io.rnic.icrc.IcrcCalculator;
import org.agrona.DirectBuffer;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Decodes a frame into named fields for people and tools ({@code rnic inspect}), with the field names and value
 * formats of the {@code expected} objects of the shared test vectors: numbers for fields up to 32 bits,
 * {@code "0x%016x"} strings for 64-bit values, {@code "0x%08x"} for the ICRC value, hex strings for byte runs.
 * Control path only: it allocates freely.
 */
public final class FrameFields
{
    private final InboundValidator validator;
    private final IcrcCalculator icrc;
    private final RocePacket packet = new RocePacket();
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
    private final FethFlyweight feth = new FethFlyweight();

    public FrameFields()
    {
        this(Icrc.defaultCalculator());
    }

    public FrameFields(final IcrcCalculator icrc)
    {
        this.icrc = icrc;
        this.validator = new InboundValidator(icrc, new InboundCounters());
    }

    /**
     * Every field that can be read from the frame, plus {@code verdict} ("accept"/"drop"), {@code drop_reason}
     * (a {@link DropReason} name, or null) and {@code icrc_ok} (null when the ICRC could not be located).
     */
    public Map<String, Object> decode(final DirectBuffer buffer, final int offset, final int length)
    {
        final DropReason reason = validator.check(buffer, offset, length, packet);
        final Map<String, Object> f = new LinkedHashMap<>();
        f.put("frame_len", length);
        f.put("verdict", reason == DropReason.NONE ? "accept" : "drop");
        f.put("drop_reason", reason == DropReason.NONE ? null : reason.name());

        if (length >= EthernetFlyweight.LENGTH)
        {
            ethernet.wrapAt(buffer, offset);
            f.put("eth_dst", EthernetFlyweight.macToString(ethernet.destinationMac()));
            f.put("eth_src", EthernetFlyweight.macToString(ethernet.sourceMac()));
            if (packet.hasVlan())
            {
                final Map<String, Object> vlan = new LinkedHashMap<>();
                vlan.put("tpid", EthernetFlyweight.TPID_8021Q);
                vlan.put("pcp", ethernet.vlanPcp());
                vlan.put("dei", ethernet.vlanDei());
                vlan.put("vid", ethernet.vlanId());
                f.put("vlan", vlan);
            }
            else
            {
                f.put("vlan", null);
            }
        }

        final int ipOffset = packet.ipOffset();
        final int frameEnd = offset + length;
        if (packet.ipVersion() == 4 && frameEnd - ipOffset >= Ipv4Flyweight.LENGTH)
        {
            ipv4.wrapAt(buffer, ipOffset);
            f.put("ipver", ipv4.version());
            f.put("ip_dscp", ipv4.dscp());
            f.put("ip_ecn", ipv4.ecn());
            f.put("ip_len", ipv4.totalLength());
            f.put("ip_id", ipv4.identification());
            f.put("ip_ttl", ipv4.ttl());
            f.put("ip_src", Ipv4Flyweight.addressToString(ipv4.source()));
            f.put("ip_dst", Ipv4Flyweight.addressToString(ipv4.destination()));
        }
        else if (packet.ipVersion() == 6 && frameEnd - ipOffset >= Ipv6Flyweight.LENGTH)
        {
            ipv6.wrapAt(buffer, ipOffset);
            f.put("ipver", ipv6.version());
            f.put("ip_dscp", ipv6.dscp());
            f.put("ip_ecn", ipv6.ecn());
            f.put("ip_len", ipv6.payloadLength());
            f.put("ip_flow", ipv6.flowLabel());
            f.put("ip_hlim", ipv6.hopLimit());
            f.put("ip_src", ipv6ToString(buffer, ipOffset + Ipv6Flyweight.SOURCE_OFFSET));
            f.put("ip_dst", ipv6ToString(buffer, ipOffset + Ipv6Flyweight.DESTINATION_OFFSET));
        }

        final int udpOffset = packet.udpOffset();
        if (udpOffset >= 0 && frameEnd - udpOffset >= UdpFlyweight.LENGTH)
        {
            udp.wrapAt(buffer, udpOffset);
            f.put("udp_sport", udp.sourcePort());
            f.put("udp_dport", udp.destinationPort());
            f.put("udp_len", udp.length());
            f.put("udp_csum", udp.checksum());
        }

        final int bthOffset = packet.bthOffset();
        if (bthOffset >= 0 && packet.icrcOffset() >= 0)
        {
            decodeTransport(buffer, f, bthOffset);
        }
        return f;
    }

    private void decodeTransport(final DirectBuffer buffer, final Map<String, Object> f, final int bthOffset)
    {
        bth.wrapAt(buffer, bthOffset);
        final int opcode = bth.opcode();
        f.put("opcode", opcode);
        f.put("opcode_name", Opcode.name(opcode));
        f.put("se", bth.solicitedEvent() ? 1 : 0);
        f.put("m", bth.migrationRequest() ? 1 : 0);
        f.put("pad", bth.padCount());
        f.put("tver", bth.transportVersion());
        f.put("pkey", bth.partitionKey());
        f.put("fecn", bth.fecn() ? 1 : 0);
        f.put("becn", bth.becn() ? 1 : 0);
        f.put("dest_qp", bth.destinationQp());
        f.put("ack_req", bth.ackRequest() ? 1 : 0);
        f.put("psn", bth.psn());

        final int icrcOffset = packet.icrcOffset();
        final int computed = icrc.compute(buffer, packet.ipOffset(), packet.isIpv6(), icrcOffset);
        final int wire = Icrc.readWire(buffer, icrcOffset);
        f.put("icrc", String.format("0x%08x", wire));
        f.put("icrc_wire_hex", hex(buffer, icrcOffset, Icrc.LENGTH));
        f.put("icrc_computed", String.format("0x%08x", computed));
        f.put("icrc_ok", computed == wire);

        if (!Opcode.isValid(opcode) || bthOffset + Opcode.headerLength(opcode) > icrcOffset)
        {
            return;
        }
        final List<String> extHeaders = new ArrayList<>();
        for (int position = 0; position < Opcode.HEADER_COUNT; position++)
        {
            final int header = Opcode.headerInWireOrder(position);
            if (Opcode.hasHeader(opcode, header) && header != Opcode.CNP_RESERVED)
            {
                extHeaders.add(Opcode.headerName(header));
            }
        }
        f.put("ext_headers", extHeaders);

        if (Opcode.hasHeader(opcode, Opcode.DETH))
        {
            deth.wrapAt(buffer, bthOffset + Opcode.offset(opcode, Opcode.DETH));
            f.put("deth_qkey", deth.qKey());
            f.put("deth_src_qp", deth.sourceQp());
        }
        if (Opcode.hasHeader(opcode, Opcode.FETH))
        {
            feth.wrapAt(buffer, bthOffset + Opcode.offset(opcode, Opcode.FETH));
            f.put("feth_placement_type", feth.placementType());
            f.put("feth_selectivity_level", feth.selectivityLevel());
            f.put("feth_reserved", feth.bits() >>> 6);
        }
        if (Opcode.hasHeader(opcode, Opcode.RETH))
        {
            reth.wrapAt(buffer, bthOffset + Opcode.offset(opcode, Opcode.RETH));
            f.put("reth_va", hex64(reth.virtualAddress()));
            f.put("reth_rkey", reth.rKey());
            f.put("reth_dmalen", reth.dmaLength());
        }
        if (Opcode.hasHeader(opcode, Opcode.ATOMIC_ETH))
        {
            atomicEth.wrapAt(buffer, bthOffset + Opcode.offset(opcode, Opcode.ATOMIC_ETH));
            f.put("atomic_va", hex64(atomicEth.virtualAddress()));
            f.put("atomic_rkey", atomicEth.rKey());
            f.put("atomic_swap_add", hex64(atomicEth.swapOrAdd()));
            f.put("atomic_compare", hex64(atomicEth.compare()));
        }
        if (Opcode.hasHeader(opcode, Opcode.AETH))
        {
            aeth.wrapAt(buffer, bthOffset + Opcode.offset(opcode, Opcode.AETH));
            final int syndrome = aeth.syndrome();
            f.put("aeth_msn", aeth.msn());
            f.put("syndrome", syndrome);
            f.put("syndrome_reserved_bit7", syndrome >>> 7);
            f.put("aeth_type", AethFlyweight.typeName(syndrome));
            switch (AethFlyweight.type(syndrome))
            {
                case AethFlyweight.TYPE_ACK -> f.put("credit_count", AethFlyweight.value(syndrome));
                case AethFlyweight.TYPE_RNR_NAK -> f.put("rnr_timer", AethFlyweight.value(syndrome));
                case AethFlyweight.TYPE_NAK ->
                {
                    f.put("nak_code", AethFlyweight.value(syndrome));
                    f.put("nak_name", AethFlyweight.nakName(AethFlyweight.value(syndrome)));
                }
                default ->
                {
                }
            }
        }
        if (Opcode.hasHeader(opcode, Opcode.ATOMIC_ACK_ETH))
        {
            atomicAckEth.wrapAt(buffer, bthOffset + Opcode.offset(opcode, Opcode.ATOMIC_ACK_ETH));
            f.put("atomic_orig", hex64(atomicAckEth.originalRemoteData()));
        }
        if (Opcode.hasHeader(opcode, Opcode.IMMDT))
        {
            immDt.wrapAt(buffer, bthOffset + Opcode.offset(opcode, Opcode.IMMDT));
            f.put("immdt", immDt.immediate() & 0xFFFF_FFFFL);
        }
        if (Opcode.hasHeader(opcode, Opcode.IETH))
        {
            ieth.wrapAt(buffer, bthOffset + Opcode.offset(opcode, Opcode.IETH));
            f.put("ieth_rkey", ieth.rKey());
        }
        if (Opcode.hasHeader(opcode, Opcode.CNP_RESERVED))
        {
            f.put("cnp_reserved_hex",
                hex(buffer, bthOffset + Opcode.offset(opcode, Opcode.CNP_RESERVED), CnpFlyweight.RESERVED_LENGTH));
        }

        final int headersEnd = bthOffset + Opcode.headerLength(opcode);
        final int afterHeaders = icrcOffset - headersEnd;
        if (Opcode.has(opcode, Opcode.FLAG_PAYLOAD))
        {
            final int payloadLength = Math.max(0, afterHeaders - bth.padCount());
            f.put("payload_len", payloadLength);
            f.put("payload_hex", hex(buffer, headersEnd, payloadLength));
        }
        else
        {
            f.put("payload_len", 0);
            f.put("payload_hex", "");
        }
    }

    private static String ipv6ToString(final DirectBuffer buffer, final int offset)
    {
        final byte[] address = new byte[16];
        buffer.getBytes(offset, address);
        try
        {
            return java.net.InetAddress.getByAddress(address).getHostAddress();
        }
        catch (final java.net.UnknownHostException ex)
        {
            return hex(buffer, offset, 16); // cannot happen for 16 bytes
        }
    }

    private static String hex64(final long value)
    {
        return String.format("0x%016x", value);
    }

    private static String hex(final DirectBuffer buffer, final int offset, final int length)
    {
        final StringBuilder sb = new StringBuilder(length * 2);
        for (int i = 0; i < length; i++)
        {
            final int b = buffer.getByte(offset + i) & 0xFF;
            sb.append(Character.forDigit(b >>> 4, 16)).append(Character.forDigit(b & 0xF, 16));
        }
        return sb.toString();
    }
}
