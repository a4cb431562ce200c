package io.rnic.icrc;

import io.rnic.testing.Json;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The frames made by scapy, rxe and a ConnectX-4 Lx in {@code shared/vectors/}: every implementation computes the
 * ICRC the vectors expect, which is also what the wire carries least-significant byte first.
 */
class IcrcVectorsTest
{
    private record Frame(String name, byte[] bytes, Map<String, Object> expected)
    {
    }

    /** Where the IP header and the ICRC are, found from the Ethernet type and the IP length (never the frame end). */
    private record Located(int ipOffset, boolean ipv6, int icrcOffset)
    {
        static Located of(final byte[] frame)
        {
            int typeOffset = 12;
            if ((frame[typeOffset] & 0xFF) == 0x81 && frame[typeOffset + 1] == 0x00)
            {
                typeOffset += 4;
            }
            final int type = ((frame[typeOffset] & 0xFF) << 8) | (frame[typeOffset + 1] & 0xFF);
            final int ip = typeOffset + 2;
            final boolean ipv6 = type == 0x86DD;
            assertTrue(ipv6 || type == 0x0800, "ethertype " + Integer.toHexString(type));
            final int lengthField = ((frame[ip + (ipv6 ? 4 : 2)] & 0xFF) << 8) | (frame[ip + (ipv6 ? 5 : 3)] & 0xFF);
            final int datagram = ipv6 ? Icrc.IPV6_HEADER_LENGTH + lengthField : lengthField;
            return new Located(ip, ipv6, ip + datagram - Icrc.LENGTH);
        }
    }

    private static Map<String, IcrcCalculator> calculators()
    {
        final Map<String, IcrcCalculator> all = new LinkedHashMap<>();
        all.put("Scalar", new ScalarIcrc());
        all.put("Crc32Copy", new Crc32CopyIcrc());
        all.put("Vector", new VectorIcrc());
        all.put("Vector(gather)", new VectorIcrc(VectorIcrc.Strategy.GATHER_SEED));
        all.put("Vector(copy)", new VectorIcrc(VectorIcrc.Strategy.MASKED_COPY));
        all.put("Seeded", new SeededIcrc());
        all.put("Adaptive", new AdaptiveIcrc());
        return all;
    }

    @SuppressWarnings("unchecked")
    private static List<Frame> load(final String fileName)
    {
        final java.nio.file.Path path = IcrcTestSupport.vectorsDir().resolve(fileName);
        try
        {
            final List<Frame> frames = new ArrayList<>();
            for (final String line : Files.readAllLines(path))
            {
                if (!line.isBlank())
                {
                    final Map<String, Object> o = Json.parseObject(line);
                    frames.add(new Frame((String)o.get("name"), HexFormat.of().parseHex((String)o.get("frame_hex")),
                        (Map<String, Object>)o.getOrDefault("expected", Map.of())));
                }
            }
            return frames;
        }
        catch (final IOException ex)
        {
            throw new AssertionError("cannot read " + path, ex);
        }
    }

    private static int expectedIcrc(final Frame frame)
    {
        final String hex = (String)frame.expected().get("icrc");
        assertTrue(hex != null && hex.startsWith("0x"), frame.name() + " has no expected.icrc");
        return (int)Long.parseLong(hex.substring(2), 16);
    }

    @Test
    void shouldComputeTheExpectedIcrcOfEveryValidVector()
    {
        final List<Frame> frames = new ArrayList<>(load("vectors.jsonl"));
        assertEquals(104, frames.size(), "vectors.jsonl");
        final List<Frame> hardware = load("hw_captured.jsonl");
        assertFalse(hardware.isEmpty(), "hw_captured.jsonl");
        frames.addAll(hardware);

        final Map<String, IcrcCalculator> calculators = calculators();
        for (final Frame frame : frames)
        {
            final Located at = Located.of(frame.bytes());
            final Object ipver = frame.expected().get("ipver");
            if (ipver != null)
            {
                assertEquals(((Number)ipver).intValue(), at.ipv6() ? 6 : 4, frame.name());
            }
            assertEquals(frame.expected().get("vlan") != null, at.ipOffset() == 18, frame.name() + " vlan");
            final int expected = expectedIcrc(frame);
            for (final UnsafeBuffer buffer : buffersHolding(frame.bytes()))
            {
                assertEquals(expected, Icrc.readWire(buffer, at.icrcOffset()), frame.name() + " wire bytes LSB first");
                for (final Map.Entry<String, IcrcCalculator> e : calculators.entrySet())
                {
                    assertEquals(expected, e.getValue().compute(buffer, at.ipOffset(), at.ipv6(), at.icrcOffset()),
                        e.getKey() + " on " + frame.name());
                }
            }
        }
    }

    @Test
    void shouldMatchTheIcrcAConnectX4WroteInHardware()
    {
        final Frame cnp = load("hw_captured.jsonl").get(0);
        final Located at = Located.of(cnp.bytes());
        final UnsafeBuffer buffer = new UnsafeBuffer(cnp.bytes());
        assertEquals(0x2A00FD82, expectedIcrc(cnp));
        assertEquals(0x2A00FD82, Icrc.defaultCalculator().compute(buffer, at.ipOffset(), at.ipv6(), at.icrcOffset()));
    }

    @Test
    void shouldFindTheIcrcFromTheIpLengthNotTheFrameEnd()
    {
        final Frame padded = load("vectors.jsonl").stream()
            .filter(f -> f.name().equals("eth_min_padding__v4__0")).findFirst().orElseThrow();
        final Located at = Located.of(padded.bytes());
        assertTrue(at.icrcOffset() + Icrc.LENGTH < padded.bytes().length, "frame carries Ethernet padding");
        assertEquals(expectedIcrc(padded), Icrc.defaultCalculator()
            .compute(new UnsafeBuffer(padded.bytes()), at.ipOffset(), at.ipv6(), at.icrcOffset()));
    }

    @Test
    void shouldDisagreeWithTheWireOnBadAndByteSwappedIcrcs()
    {
        final List<Frame> invalid = load("invalid.jsonl");
        int checked = 0;
        for (final Frame frame : invalid)
        {
            if (!frame.name().equals("bad_icrc__v4__0") && !frame.name().equals("icrc_big_endian__v4__0"))
            {
                continue;
            }
            checked++;
            final Located at = Located.of(frame.bytes());
            final UnsafeBuffer buffer = new UnsafeBuffer(frame.bytes());
            final int wire = Icrc.readWire(buffer, at.icrcOffset());
            for (final Map.Entry<String, IcrcCalculator> e : calculators().entrySet())
            {
                final int computed = e.getValue().compute(buffer, at.ipOffset(), at.ipv6(), at.icrcOffset());
                assertNotEquals(wire, computed, e.getKey() + " on " + frame.name());
                if (frame.name().startsWith("icrc_big_endian"))
                {
                    assertEquals(Integer.reverseBytes(wire), computed, "the right CRC, written big-endian");
                }
            }
        }
        assertEquals(2, checked, "bad_icrc__v4__0 and icrc_big_endian__v4__0 in invalid.jsonl");
    }

    @Test
    void shouldWriteTheWireFormLeastSignificantByteFirst()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[8]);
        Icrc.writeWire(buffer, 2, 0x2A00FD82);
        assertEquals("000082fd002a0000", HexFormat.of().formatHex(buffer.byteArray()));
        assertEquals(0x2A00FD82, Icrc.readWire(buffer, 2));
    }

    /** The frame in a heap buffer, in a direct ByteBuffer, and at an odd offset of a raw-address buffer. */
    private static List<UnsafeBuffer> buffersHolding(final byte[] frame)
    {
        final UnsafeBuffer heap = new UnsafeBuffer(frame);
        final ByteBuffer direct = ByteBuffer.allocateDirect(frame.length);
        direct.put(0, frame);
        final ByteBuffer rawBacking = ByteBuffer.allocateDirect(frame.length + 64);
        final UnsafeBuffer raw = new UnsafeBuffer(org.agrona.BufferUtil.address(rawBacking) + 3, frame.length);
        raw.putBytes(0, frame);
        return List.of(heap, new UnsafeBuffer(direct), raw);
    }
}
