package io.rnic.pcap;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/** Broken files fail with an IOException naming the file and the problem, never with an index exception. */
class PcapMalformedTest
{
    @TempDir
    Path dir;

    @Test
    void shouldRejectAFileThatIsNotACapture() throws IOException
    {
        final IOException ex = assertOpenFails("notes.txt", "this is a text file, not a capture\n".getBytes(
            StandardCharsets.US_ASCII));
        assertTrue(ex.getMessage().contains("not a pcap or pcapng capture"), ex.getMessage());
    }

    @Test
    void shouldRejectEmptyAndTinyFiles() throws IOException
    {
        assertTrue(assertOpenFails("empty.pcap", new byte[0]).getMessage().contains("empty file"));
        assertTrue(assertOpenFails("tiny.pcap", new byte[]{ (byte)0xd4, (byte)0xc3 }).getMessage().contains("too short"));
        final byte[] headerStart = Arrays.copyOf(classicFile(), 10);
        assertTrue(assertOpenFails("cut-header.pcap", headerStart).getMessage().contains("truncated pcap file header"));
    }

    @Test
    void shouldRejectAnUnsupportedPcapVersion() throws IOException
    {
        final byte[] file = classicFile();
        file[4] = 3;
        assertTrue(assertOpenFails("v3.pcap", file).getMessage().contains("unsupported pcap version 3.4"));
    }

    @Test
    void shouldFailOnARecordCutShortAtEveryLength() throws IOException
    {
        final byte[] whole = classicFile();
        final Map<Integer, Integer> framesAtBoundary = new HashMap<>(Map.of(24, 0));
        for (int p = 24; p < whole.length; )
        {
            p += 16 + ByteBuffer.wrap(whole, p + 8, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
            framesAtBoundary.put(p, framesAtBoundary.size());
        }
        assertEveryTruncationFailsCleanly(whole, framesAtBoundary, 24, "cut.pcap");
    }

    @Test
    void shouldFailOnAPcapngBlockCutShortAtEveryLength() throws IOException
    {
        final byte[] whole = PcapngTest.handWritten(ByteOrder.BIG_ENDIAN);
        final Map<Integer, Integer> framesAtBoundary = new HashMap<>();
        int frames = 0;
        int p = 0;
        ByteOrder order = ByteOrder.BIG_ENDIAN;
        while (p < whole.length)
        {
            if (ByteBuffer.wrap(whole, p, 4).getInt() == PcapFormat.BLOCK_SECTION_HEADER)
            {
                order = ByteBuffer.wrap(whole, p + 8, 4).getInt() == PcapFormat.BYTE_ORDER_MAGIC ?
                    ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN;
            }
            final int type = ByteBuffer.wrap(whole, p, 4).order(order).getInt();
            if (type == PcapFormat.BLOCK_ENHANCED_PACKET || type == PcapFormat.BLOCK_SIMPLE_PACKET)
            {
                frames++;
            }
            p += ByteBuffer.wrap(whole, p + 4, 4).order(order).getInt();
            framesAtBoundary.put(p, frames);
        }
        assertEquals(whole.length, p);
        assertEquals(5, frames);
        assertEveryTruncationFailsCleanly(whole, framesAtBoundary, 0, "cut.pcapng");
    }

    @Test
    void shouldRejectAnAbsurdCapturedLength() throws IOException
    {
        final byte[] file = classicFile();
        ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN).putInt(24 + 8, 0x7fff_ffff);
        final IOException ex = assertReadFails("huge.pcap", file);
        assertTrue(ex.getMessage().contains("record 1 at byte 24 claims a captured length of 2147483647"),
            ex.getMessage());
    }

    @Test
    void shouldRejectMalformedPcapngBlocks() throws IOException
    {
        final byte[] good = new PcapngBuilder(ByteOrder.LITTLE_ENDIAN)
            .section()
            .iface(PcapFormat.LINKTYPE_ETHERNET, 0, null, null)
            .enhanced(0, 1, PcapngTest.frame(1, 20), 20)
            .bytes();
        final int shbLength = ByteBuffer.wrap(good, 4, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
        final int idbLength = ByteBuffer.wrap(good, shbLength + 4, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
        final int epb = shbLength + idbLength;

        final byte[] badBom = good.clone();
        ByteBuffer.wrap(badBom).putInt(8, 0x01020304);
        assertMessage(assertReadFails("bom.pcapng", badBom), "bad byte-order magic 0x01020304");

        final byte[] oddLength = good.clone();
        ByteBuffer.wrap(oddLength).order(ByteOrder.LITTLE_ENDIAN).putInt(epb + 4, 62);
        assertMessage(assertReadFails("odd.pcapng", oddLength), "invalid length 62");

        final byte[] trailer = good.clone();
        ByteBuffer.wrap(trailer).order(ByteOrder.LITTLE_ENDIAN).putInt(good.length - 4, 12);
        assertMessage(assertReadFails("trailer.pcapng", trailer), "trailing length 12");

        final byte[] unknownInterface = good.clone();
        ByteBuffer.wrap(unknownInterface).order(ByteOrder.LITTLE_ENDIAN).putInt(epb + 8, 1);
        assertMessage(assertReadFails("iface.pcapng", unknownInterface), "refers to interface 1");

        final byte[] capturedTooLong = good.clone();
        ByteBuffer.wrap(capturedTooLong).order(ByteOrder.LITTLE_ENDIAN).putInt(epb + 20, 1000);
        assertMessage(assertReadFails("caplen.pcapng", capturedTooLong), "claims 1000 captured bytes");

        final byte[] version = good.clone();
        ByteBuffer.wrap(version).order(ByteOrder.LITTLE_ENDIAN).putShort(12, (short)2);
        assertMessage(assertReadFails("version.pcapng", version), "unsupported pcapng version 2.0");

        final byte[] noInterface = new PcapngBuilder(ByteOrder.LITTLE_ENDIAN)
            .section().enhanced(0, 1, new byte[4], 4).bytes();
        assertMessage(assertReadFails("no-iface.pcapng", noInterface), "describes 0 interface(s)");

        final byte[] badOption = new PcapngBuilder(ByteOrder.LITTLE_ENDIAN)
            .section().iface(PcapFormat.LINKTYPE_ETHERNET, 0, null, null).bytes();
        ByteBuffer.wrap(badOption).order(ByteOrder.LITTLE_ENDIAN).putShort(shbLength + 16 + 2, (short)400);
        assertMessage(assertReadFails("option.pcapng", badOption), "runs past the end of the block");
    }

    @Test
    void shouldOnlyEverThrowIOExceptionOnRandomlyCorruptedFiles() throws IOException
    {
        final byte[][] originals = { classicFile(), PcapngTest.handWritten(ByteOrder.LITTLE_ENDIAN),
            PcapngTest.handWritten(ByteOrder.BIG_ENDIAN) };
        final Random random = new Random(1234);
        final Path file = dir.resolve("fuzz.bin");
        for (int round = 0; round < 3_000; round++)
        {
            final byte[] bytes = originals[round % originals.length].clone();
            final int mutations = 1 + random.nextInt(4);
            for (int m = 0; m < mutations; m++)
            {
                bytes[random.nextInt(bytes.length)] = (byte)random.nextInt(256);
            }
            final int length = random.nextInt(4) == 0 ? random.nextInt(bytes.length + 1) : bytes.length;
            Files.write(file, Arrays.copyOf(bytes, length));
            try (PcapReader reader = PcapReader.open(file))
            {
                while (reader.next())
                {
                    assertEquals(reader.frameLength(), reader.frame().capacity());
                }
            }
            catch (final IOException ex)
            {
                assertTrue(ex.getMessage().startsWith(file.toString()), ex.getMessage());
            }
        }
    }

    private void assertEveryTruncationFailsCleanly(final byte[] whole, final Map<Integer, Integer> framesAtBoundary,
        final int firstLength, final String name) throws IOException
    {
        final Path file = dir.resolve(name);
        for (int length = firstLength; length < whole.length; length++)
        {
            Files.write(file, Arrays.copyOf(whole, length));
            int frames = 0;
            try (PcapReader reader = PcapReader.open(file))
            {
                while (reader.next())
                {
                    frames++;
                }
                if (!framesAtBoundary.containsKey(length))
                {
                    fail(name + " cut at " + length + " of " + whole.length + " read as a whole file");
                }
                assertEquals(framesAtBoundary.get(length), frames, name + " cut at " + length);
            }
            catch (final IOException ex)
            {
                if (framesAtBoundary.containsKey(length))
                {
                    throw new AssertionError(name + " cut at block boundary " + length + " failed", ex);
                }
                assertTrue(ex.getMessage().startsWith(file.toString()), ex.getMessage());
                assertTrue(ex.getMessage().contains("truncated") || ex.getMessage().contains("too short") ||
                    ex.getMessage().contains("empty file"), ex.getMessage());
            }
        }
    }

    /** A valid classic file of five frames. */
    private byte[] classicFile() throws IOException
    {
        final Path file = dir.resolve("valid.pcap");
        try (PcapWriter writer = new PcapWriter(file))
        {
            for (int i = 0; i < 5; i++)
            {
                final byte[] frame = PcapngTest.frame(i, 10 + i * 7);
                writer.write(new UnsafeBuffer(frame), 0, frame.length, 1_700_000_000_000_000_000L + i);
            }
        }
        return Files.readAllBytes(file);
    }

    private IOException assertOpenFails(final String name, final byte[] contents) throws IOException
    {
        final Path file = dir.resolve(name);
        Files.write(file, contents);
        final IOException ex = assertThrows(IOException.class, () -> PcapReader.open(file).close());
        assertTrue(ex.getMessage().startsWith(file.toString()), ex.getMessage());
        return ex;
    }

    private IOException assertReadFails(final String name, final byte[] contents) throws IOException
    {
        final Path file = dir.resolve(name);
        Files.write(file, contents);
        final IOException ex = assertThrows(IOException.class, () ->
        {
            try (PcapReader reader = PcapReader.open(file))
            {
                while (reader.next())
                {
                    assertEquals(reader.frameLength(), reader.frame().capacity());
                }
            }
        });
        assertTrue(ex.getMessage().startsWith(file.toString()), ex.getMessage());
        return ex;
    }

    private static void assertMessage(final IOException ex, final String part)
    {
        assertTrue(ex.getMessage().contains(part), () -> "expected '" + part + "' in: " + ex.getMessage());
    }
}
