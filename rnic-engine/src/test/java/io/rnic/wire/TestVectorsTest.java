package io.rnic.wire;

import io.rnic.testing.Json;
import io.rnic.testing.TestVectors.Vector;
import io.rnic.testing.TestVectors;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.HexFormat;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The independent vectors: every valid frame is accepted, decodes to its expected fields and re-encodes byte for
 * byte through {@link PacketBuilder}; every invalid frame is dropped for the expected reason.
 */
class TestVectorsTest
{
    static List<Vector> validVectors()
    {
        return TestVectors.valid();
    }

    static List<Vector> invalidVectors()
    {
        return TestVectors.invalid();
    }

    /** A buffer exactly as long as the frame: with bounds checks on, any read past its end throws. */
    static UnsafeBuffer exact(final byte[] frame)
    {
        return new UnsafeBuffer(frame.clone());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("validVectors")
    void shouldAcceptAndDecodeEveryValidVector(final Vector vector)
    {
        final InboundValidator validator = new InboundValidator();
        final RocePacket packet = new RocePacket();
        final UnsafeBuffer buffer = exact(vector.frame());

        assertEquals(DropReason.NONE, validator.validate(buffer, 0, vector.frame().length, packet), vector.name());

        final Map<String, Object> decoded = new FrameFields().decode(buffer, 0, vector.frame().length);
        for (final Map.Entry<String, Object> expected : vector.expected().entrySet())
        {
            assertTrue(decoded.containsKey(expected.getKey()), vector.name() + ": no field " + expected.getKey());
            assertEquals(Json.normalise(expected.getValue()), Json.normalise(decoded.get(expected.getKey())),
                vector.name() + ": field " + expected.getKey());
        }
        assertEquals(true, decoded.get("icrc_ok"));
        assertEquals(toLong(vector.expected().get("payload_len")), packet.payloadLength());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("validVectors")
    void shouldReencodeEveryValidVectorByteForByte(final Vector vector)
    {
        final byte[] frame = vector.frame();
        final UnsafeBuffer original = exact(frame);
        final Map<String, Object> e = vector.expected();
        final FrameSpec spec = new FrameSpec();

        // Addressing that the expected fields do not list is read from the frame itself.
        final EthernetFlyweight ethernet = new EthernetFlyweight().wrapAt(original, 0);
        spec.ethernet(ethernet.destinationMac(), ethernet.sourceMac());
        final int ipOffset;
        if (e.get("vlan") instanceof Map<?, ?> vlan)
        {
            spec.vlan((int)toLong(vlan.get("pcp")), (int)toLong(vlan.get("dei")), (int)toLong(vlan.get("vid")));
            ipOffset = EthernetFlyweight.TAGGED_LENGTH;
        }
        else
        {
            ipOffset = EthernetFlyweight.LENGTH;
        }
        final int udpOffset;
        if (ethernet.etherType() == EthernetFlyweight.ETHERTYPE_IPV6)
        {
            final Ipv6Flyweight ip = new Ipv6Flyweight().wrapAt(original, ipOffset);
            spec.ipv6(ip.sourceHigh(), ip.sourceLow(), ip.destinationHigh(), ip.destinationLow())
                .flowLabel(ip.flowLabel())
                .hopLimit(ip.hopLimit());
            udpOffset = ipOffset + Ipv6Flyweight.LENGTH;
        }
        else
        {
            final Ipv4Flyweight ip = new Ipv4Flyweight().wrapAt(original, ipOffset);
            spec.ipv4(ip.source(), ip.destination()).ipv4Identification(ip.identification()).hopLimit(ip.ttl());
            udpOffset = ipOffset + Ipv4Flyweight.LENGTH;
        }
        spec.udpChecksum(new UdpFlyweight().wrapAt(original, udpOffset).checksum() != 0);

        final int opcode = (int)toLong(e.get("opcode"));
        spec.trafficClass((int)toLong(e.get("ip_dscp")), (int)toLong(e.get("ip_ecn")))
            .udpSourcePort((int)toLong(e.get("udp_sport")))
            .bth(opcode, (int)toLong(e.get("dest_qp")), (int)toLong(e.get("psn")))
            .solicitedEvent(toLong(e.get("se")) == 1)
            .migrationRequest(toLong(e.get("m")) == 1)
            .padCount((int)toLong(e.get("pad")))
            .partitionKey((int)toLong(e.get("pkey")))
            .fecnBecn(toLong(e.get("fecn")) == 1, toLong(e.get("becn")) == 1)
            .ackRequest(toLong(e.get("ack_req")) == 1);
        if (e.containsKey("reth_va"))
        {
            spec.reth(toLong(e.get("reth_va")), toLong(e.get("reth_rkey")), toLong(e.get("reth_dmalen")));
        }
        if (e.containsKey("syndrome"))
        {
            spec.aeth((int)toLong(e.get("syndrome")), (int)toLong(e.get("aeth_msn")));
        }
        if (e.containsKey("atomic_va"))
        {
            spec.atomicEth(toLong(e.get("atomic_va")), toLong(e.get("atomic_rkey")),
                toLong(e.get("atomic_swap_add")), toLong(e.get("atomic_compare")));
        }
        if (e.containsKey("atomic_orig"))
        {
            spec.atomicAckEth(toLong(e.get("atomic_orig")));
        }
        if (e.containsKey("deth_qkey"))
        {
            spec.deth(toLong(e.get("deth_qkey")), (int)toLong(e.get("deth_src_qp")));
        }
        if (e.containsKey("immdt"))
        {
            spec.immediate((int)toLong(e.get("immdt")));
        }
        if (e.containsKey("ieth_rkey"))
        {
            spec.ieth(toLong(e.get("ieth_rkey")));
        }
        final byte[] payload = e.containsKey("payload_hex") ?
            HexFormat.of().parseHex((String)e.get("payload_hex")) : new byte[0];

        final UnsafeBuffer out = new UnsafeBuffer(new byte[frame.length + 64]);
        final int length = new PacketBuilder().build(out, 0, spec, new UnsafeBuffer(payload), 0, payload.length);

        final byte[] rebuilt = new byte[length];
        out.getBytes(0, rebuilt);
        assertEquals(HexFormat.of().formatHex(frame), HexFormat.of().formatHex(rebuilt), vector.name());
        assertArrayEquals(frame, rebuilt);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalidVectors")
    void shouldDropEveryInvalidVectorForItsReason(final Vector vector)
    {
        final DropReason expected = TestVectors.INVALID_CASE_REASONS.get(vector.caseName());
        assertTrue(expected != null, "no expected reason for case " + vector.caseName());

        final InboundCounters counters = new InboundCounters();
        final InboundValidator validator = new InboundValidator(io.rnic.icrc.Icrc.defaultCalculator(), counters);
        final DropReason reason = validator.validate(
            exact(vector.frame()), 0, vector.frame().length, new RocePacket());

        assertEquals(expected, reason, vector.name() + " (" + vector.dropReason() + ")");
        assertEquals(1, counters.get(expected));
        assertEquals(0, counters.accepted());
    }

    static long toLong(final Object value)
    {
        if (value instanceof Number n)
        {
            return n.longValue();
        }
        final String s = (String)value;
        return s.startsWith("0x") ? Long.parseUnsignedLong(s.substring(2), 16) : Long.parseLong(s);
    }
}
