package io.rnic.pcap;

import io.rnic.testing.SharedFiles;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PcapngTest
{
    private static final int LINKTYPE_RAW = 101;

    @TempDir
    Path dir;

    /** Two sections (one per byte order), interfaces with their own link types and resolutions, EPB, SPB. */
    static byte[] handWritten(final ByteOrder first)
    {
        final ByteOrder second = first == ByteOrder.BIG_ENDIAN ? ByteOrder.LITTLE_ENDIAN : ByteOrder.BIG_ENDIAN;
        return new PcapngBuilder(first)
            .section()
            .iface(PcapFormat.LINKTYPE_ETHERNET, 0, null, null)                  // default: microseconds
            .other(0x0000_0004, 8)                                               // name resolution: skipped
            .iface(LINKTYPE_RAW, 96, 9, 10L)                                     // nanoseconds, +10 s offset
            .enhanced(0, 1_700_000_000_123_456L, frame(1, 60), 60)
            .other(0x4000_0BAD, 20)                                              // custom block: skipped
            .enhanced(1, 1_700_000_000_987_654_321L, frame(2, 3), 1500)
            .simple(frame(3, 61), 61)                                            // interface 0, no timestamp
            .section(second)                                                     // interfaces reset
            .iface(PcapFormat.LINKTYPE_ETHERNET, 65535, 0x80 | 20, null)        // 2^-20 s
            .enhanced(0, (1_700_000_000L << 20) | (1 << 19), frame(4, 0), 0)     // x.5 s
            .enhanced(0, 1L << 20, frame(5, 1514), 1514)
            .bytes();
    }

    static byte[] frame(final int seed, final int length)
    {
        final byte[] frame = new byte[length];
        new Random(seed).nextBytes(frame);
        return frame;
    }

    @ParameterizedTest
    @ValueSource(strings = { "LITTLE_ENDIAN", "BIG_ENDIAN" })
    void shouldReadHandWrittenPcapngInEitherByteOrder(final String orderName) throws IOException
    {
        final ByteOrder order = "BIG_ENDIAN".equals(orderName) ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN;
        final Path file = dir.resolve("hand.pcapng");
        Files.write(file, handWritten(order));

        try (PcapReader reader = PcapReader.open(file))
        {
            assertTrue(reader.isPcapng());
            assertPacket(reader, 1, PcapFormat.LINKTYPE_ETHERNET, frame(1, 60), 60, 1_700_000_000_123_456_000L);
            assertPacket(reader, 2, LINKTYPE_RAW, frame(2, 3), 1500, 1_700_000_010_987_654_321L);
            assertPacket(reader, 3, PcapFormat.LINKTYPE_ETHERNET, frame(3, 61), 61, 0);
            assertPacket(reader, 4, PcapFormat.LINKTYPE_ETHERNET, frame(4, 0), 0, 1_700_000_000_500_000_000L);
            assertPacket(reader, 5, PcapFormat.LINKTYPE_ETHERNET, frame(5, 1514), 1514, 1_000_000_000L);
            assertFalse(reader.next());
        }
    }

    @Test
    void shouldCutSimplePacketsToTheInterfaceSnaplen() throws IOException
    {
        final Path file = dir.resolve("spb.pcapng");
        Files.write(file, new PcapngBuilder(ByteOrder.LITTLE_ENDIAN)
            .section()
            .iface(PcapFormat.LINKTYPE_ETHERNET, 16, null, null)
            .simple(frame(9, 16), 100)
            .bytes());
        try (PcapReader reader = PcapReader.open(file))
        {
            assertPacket(reader, 1, PcapFormat.LINKTYPE_ETHERNET, frame(9, 16), 100, 0);
            assertFalse(reader.next());
        }
    }

    @Test
    void shouldReadTsharkConvertedVectorsLikeTheClassicFile() throws Exception
    {
        final Path classic = SharedFiles.vectors("vectors.pcap");
        final Path pcapng = dir.resolve("vectors.pcapng");
        Wireshark.run(List.of(Wireshark.tool("editcap").toString(), "-F", "pcapng", classic.toString(),
            pcapng.toString()), dir);

        assertSameFrames(classic, pcapng, 104);
    }

    @Test
    void shouldKeepNanosecondsThroughTsharkPcapng() throws Exception
    {
        final Path classic = dir.resolve("ns.pcap");
        final Random random = new Random(3);
        try (PcapWriter writer = new PcapWriter(classic))
        {
            for (int i = 0; i < 50; i++)
            {
                final byte[] frame = frame(i, 60 + random.nextInt(1400));
                writer.write(new UnsafeBuffer(frame), 0, frame.length, 1_700_000_000_000_000_001L + i * 333_333_333L);
            }
        }
        final Path pcapng = dir.resolve("ns.pcapng");
        Wireshark.run(List.of(Wireshark.tool("tshark").toString(), "-r", classic.toString(), "-F", "pcapng",
            "-w", pcapng.toString()), dir);

        assertSameFrames(classic, pcapng, 50);
    }

    private static void assertSameFrames(final Path classic, final Path pcapng, final int expectedFrames)
        throws IOException
    {
        final List<byte[]> frames = new ArrayList<>();
        final List<Long> timestamps = new ArrayList<>();
        try (PcapReader reader = PcapReader.open(classic))
        {
            while (reader.next())
            {
                frames.add(PcapRoundTripTest.bytes(reader));
                timestamps.add(reader.timestampNs());
            }
        }
        assertEquals(expectedFrames, frames.size());
        try (PcapReader reader = PcapReader.open(pcapng))
        {
            assertTrue(reader.isPcapng());
            for (int i = 0; i < frames.size(); i++)
            {
                assertPacket(reader, i + 1, PcapFormat.LINKTYPE_ETHERNET, frames.get(i), frames.get(i).length,
                    timestamps.get(i));
            }
            assertFalse(reader.next());
        }
    }

    private static void assertPacket(final PcapReader reader, final int number, final int linkType,
        final byte[] frame, final int originalLength, final long timestampNs) throws IOException
    {
        assertTrue(reader.next(), "frame " + number + " missing");
        assertEquals(number, reader.frameNumber());
        assertEquals(linkType, reader.linkType(), "link type of frame " + number);
        assertEquals(frame.length, reader.frameLength(), "length of frame " + number);
        assertEquals(frame.length, reader.frame().capacity());
        assertEquals(originalLength, reader.originalLength(), "original length of frame " + number);
        assertEquals(timestampNs, reader.timestampNs(), "timestamp of frame " + number);
        assertArrayEquals(frame, PcapRoundTripTest.bytes(reader), "bytes of frame " + number);
    }
}
