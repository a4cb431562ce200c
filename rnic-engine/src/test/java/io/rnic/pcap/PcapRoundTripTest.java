package io.rnic.pcap;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PcapRoundTripTest
{
    private static final long T0 = 1_700_000_000_123_456_789L;

    @TempDir
    Path dir;

    record Written(byte[] frame, long timestampNs)
    {
    }

    @Test
    void shouldRoundTripFramesWithNanosecondTimestamps() throws IOException
    {
        final Random random = new Random(42);
        final List<Written> frames = new ArrayList<>();
        final Path file = dir.resolve("round-trip.pcap");
        try (PcapWriter writer = new PcapWriter(file))
        {
            for (int i = 0; i < 500; i++)
            {
                final byte[] frame = new byte[i == 0 ? 0 : 14 + random.nextInt(1600)];
                random.nextBytes(frame);
                final long ts = T0 + i * 1_001L + random.nextInt(1000);
                writer.write(new UnsafeBuffer(frame), 0, frame.length, ts);
                frames.add(new Written(frame, ts));
            }
            assertEquals(500, writer.framesWritten());
        }

        assertReadsBack(file, frames);
    }

    @Test
    void shouldWriteClassicHeaderWithNanosecondMagicEthernetAndSnaplen() throws IOException
    {
        final Path file = dir.resolve("header.pcap");
        try (PcapWriter writer = new PcapWriter(file))
        {
            writer.write(new UnsafeBuffer(new byte[]{ 1, 2, 3 }), 0, 3, 5 * PcapFormat.NANOS_PER_SECOND + 7);
        }
        final ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(24 + 16 + 3, b.capacity());
        assertEquals(0xa1b23c4d, b.getInt(0));
        assertEquals(2, b.getShort(4));
        assertEquals(4, b.getShort(6));
        assertEquals(262_144, b.getInt(16));
        assertEquals(1, b.getInt(20));
        assertEquals(5, b.getInt(24));
        assertEquals(7, b.getInt(28));
        assertEquals(3, b.getInt(32));
        assertEquals(3, b.getInt(36));
    }

    @Test
    void shouldFlushAcrossStagingBufferBoundariesAndCutFramesLongerThanSnaplen() throws IOException
    {
        final Random random = new Random(7);
        final List<Written> frames = new ArrayList<>();
        final Path file = dir.resolve("big.pcap");
        final UnsafeBuffer direct = new UnsafeBuffer(ByteBuffer.allocateDirect(400_000));
        try (PcapWriter writer = new PcapWriter(file, PcapFormat.RECORD_HEADER_LENGTH + PcapFormat.SNAPLEN))
        {
            for (int i = 0; i < 300; i++)
            {
                final int length = switch (i % 5)
                {
                    case 0 -> 9_000;
                    case 1 -> PcapFormat.SNAPLEN;
                    case 2 -> 64;
                    case 3 -> 100_000 + random.nextInt(100_000);
                    default -> random.nextInt(2_000);
                };
                final byte[] frame = new byte[length];
                random.nextBytes(frame);
                direct.putBytes(13, frame);
                writer.write(direct, 13, length, T0 + i);
                frames.add(new Written(frame, T0 + i));
                if (i == 150)
                {
                    writer.flush();
                }
            }

            final byte[] jumbo = new byte[PcapFormat.SNAPLEN + 1000];
            random.nextBytes(jumbo);
            writer.write(new UnsafeBuffer(jumbo), 0, jumbo.length, T0);
        }

        try (PcapReader reader = PcapReader.open(file))
        {
            for (final Written written : frames)
            {
                assertTrue(reader.next());
                assertArrayEquals(written.frame(), bytes(reader), "frame " + reader.frameNumber());
            }
            assertTrue(reader.next());
            assertEquals(PcapFormat.SNAPLEN, reader.frameLength());
            assertEquals(PcapFormat.SNAPLEN + 1000, reader.originalLength());
            assertFalse(reader.next());
        }
    }

    @Test
    void shouldRejectWritesAfterCloseAndCloseTwice() throws IOException
    {
        final PcapWriter writer = new PcapWriter(dir.resolve("closed.pcap"));
        writer.close();
        writer.close();
        assertThrows(IllegalStateException.class, () -> writer.write(new UnsafeBuffer(new byte[4]), 0, 4, T0));
    }

    @Test
    void shouldReadMicrosecondAndNanosecondFilesInBothByteOrders() throws IOException
    {
        final byte[] frame = { 10, 20, 30, 40, 50 };
        for (final ByteOrder order : new ByteOrder[]{ ByteOrder.LITTLE_ENDIAN, ByteOrder.BIG_ENDIAN })
        {
            for (final boolean nanos : new boolean[]{ false, true })
            {
                final ByteBuffer b = ByteBuffer.allocate(24 + 16 + frame.length).order(order);
                b.putInt(nanos ? PcapFormat.MAGIC_NANOS : PcapFormat.MAGIC_MICROS).putShort((short)2).putShort((short)4);
                b.putInt(0).putInt(0).putInt(65535).putInt(1);
                b.putInt(1_700_000_000).putInt(nanos ? 123_456_789 : 123_456).putInt(frame.length).putInt(60).put(frame);
                final Path file = dir.resolve(order + "-" + nanos + ".pcap");
                Files.write(file, b.array());

                try (PcapReader reader = PcapReader.open(file))
                {
                    assertTrue(reader.next());
                    assertEquals(1, reader.frameNumber());
                    assertEquals(1, reader.linkType());
                    assertEquals(frame.length, reader.frameLength());
                    assertEquals(60, reader.originalLength());
                    assertEquals(nanos ? 1_700_000_000_123_456_789L : 1_700_000_000_123_456_000L, reader.timestampNs());
                    assertArrayEquals(frame, bytes(reader));
                    assertFalse(reader.next());
                    assertFalse(reader.next());
                }
            }
        }
    }

    static void assertReadsBack(final Path file, final List<Written> frames) throws IOException
    {
        try (PcapReader reader = PcapReader.open(file))
        {
            assertFalse(reader.isPcapng());
            for (int i = 0; i < frames.size(); i++)
            {
                assertTrue(reader.next(), "frame " + (i + 1) + " missing");
                final Written written = frames.get(i);
                assertEquals(i + 1, reader.frameNumber());
                assertEquals(PcapFormat.LINKTYPE_ETHERNET, reader.linkType());
                assertEquals(written.frame().length, reader.frameLength());
                assertEquals(written.frame().length, reader.originalLength());
                assertEquals(written.frame().length, reader.frame().capacity());
                assertEquals(written.timestampNs(), reader.timestampNs());
                assertArrayEquals(written.frame(), bytes(reader), "frame " + (i + 1));
            }
            assertFalse(reader.next());
        }
    }

    static byte[] bytes(final PcapReader reader)
    {
        final byte[] copy = new byte[reader.frameLength()];
        reader.frame().getBytes(0, copy);
        return copy;
    }
}
