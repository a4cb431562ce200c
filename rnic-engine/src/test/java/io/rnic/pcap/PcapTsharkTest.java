package io.rnic.pcap;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Wireshark reads what we write, and counts what we read. Skipped without tshark unless
 * {@code -Drnic.require.tshark=true} (set by deploy/test.sh).
 */
class PcapTsharkTest
{
    @TempDir
    Path dir;

    @Test
    void shouldWriteFramesTsharkReadsBackWithTheirLengthsAndNanosecondTimes() throws Exception
    {
        final String tshark = Wireshark.tool("tshark").toString();
        final Path file = dir.resolve("ours.pcap");
        final Random random = new Random(11);
        final UnsafeBuffer direct = new UnsafeBuffer(ByteBuffer.allocateDirect(PcapFormat.SNAPLEN + 100));
        final List<String> expected = new ArrayList<>();
        try (PcapWriter writer = new PcapWriter(file))
        {
            for (int i = 0; i < 200; i++)
            {
                final int length = i == 199 ? PcapFormat.SNAPLEN + 100 : 14 + random.nextInt(9000);
                final long seconds = 1_700_000_000L + i;
                final long nanos = random.nextInt(1_000_000_000);
                writer.write(direct, 0, length, seconds * 1_000_000_000L + nanos);
                expected.add(length + "\t" + Math.min(length, PcapFormat.SNAPLEN) + "\t" +
                    seconds + "." + String.format("%09d", nanos));
            }
        }

        final List<String> lines = Wireshark.run(List.of(tshark, "-r", file.toString(), "-T", "fields",
            "-e", "frame.len", "-e", "frame.cap_len", "-e", "frame.time_epoch"), dir);

        assertEquals(expected, lines);
    }

    @Test
    void shouldReadAsManyFramesAsTsharkFromEverySharedCapture() throws Exception
    {
        final String tshark = Wireshark.tool("tshark").toString();
        for (final Path capture : PcapVectorsTest.sharedCaptures())
        {
            final List<String> lengths = Wireshark.run(List.of(tshark, "-r", capture.toString(), "-T", "fields",
                "-e", "frame.cap_len"), dir);
            final List<String> ours = new ArrayList<>();
            try (PcapReader reader = PcapReader.open(capture))
            {
                while (reader.next())
                {
                    ours.add(Integer.toString(reader.frameLength()));
                }
            }
            assertEquals(lengths, ours, capture.toString());
        }
    }
}
