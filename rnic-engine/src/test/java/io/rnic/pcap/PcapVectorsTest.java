package io.rnic.pcap;

import io.rnic.testing.SharedFiles;
import io.rnic.testing.TestVectors;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The shared captures were written by scapy, tcpdump and rxe, not by us. */
class PcapVectorsTest
{
    @Test
    void shouldReadEveryVectorFrameByteForByteInJsonLineOrder() throws IOException
    {
        final List<TestVectors.Vector> vectors = TestVectors.load("vectors.jsonl");
        assertEquals(104, vectors.size());
        assertEquals(104, assertFramesEqual(SharedFiles.vectors("vectors.pcap"), vectors));
    }

    @Test
    void shouldReadInvalidAndHardwareCapturedVectorsByteForByte() throws IOException
    {
        assertFramesEqual(SharedFiles.vectors("invalid.pcap"), TestVectors.load("invalid.jsonl"));
        assertFramesEqual(SharedFiles.vectors("hw_captured.pcap"), TestVectors.load("hw_captured.jsonl"));
    }

    @Test
    void shouldReadEverySharedCaptureToItsEnd() throws IOException
    {
        final List<Path> captures = sharedCaptures();
        assertTrue(captures.size() >= 10, "expected the rxe-peer captures too, found " + captures);
        for (final Path capture : captures)
        {
            try (PcapReader reader = PcapReader.open(capture))
            {
                int frames = 0;
                while (reader.next())
                {
                    frames++;
                    assertEquals(frames, reader.frameNumber());
                    assertEquals(PcapFormat.LINKTYPE_ETHERNET, reader.linkType(), capture.toString());
                    assertTrue(reader.frameLength() <= reader.originalLength(), capture + " frame " + frames);
                    assertTrue(reader.timestampNs() > 0, capture + " frame " + frames);
                }
                assertTrue(frames > 0, capture + " has no frames");
            }
        }
    }

    static List<Path> sharedCaptures() throws IOException
    {
        try (Stream<Path> files = Stream.concat(
            Files.list(SharedFiles.sharedDir().resolve("vectors")),
            Files.list(SharedFiles.sharedDir().resolve("rxe-peer").resolve("pcaps"))))
        {
            return files.filter(p -> p.toString().endsWith(".pcap")).sorted().toList();
        }
    }

    private static int assertFramesEqual(final Path capture, final List<TestVectors.Vector> vectors)
        throws IOException
    {
        try (PcapReader reader = PcapReader.open(capture))
        {
            for (final TestVectors.Vector vector : vectors)
            {
                assertTrue(reader.next(), capture + " ends before " + vector.name());
                assertEquals(HexFormat.of().formatHex(vector.frame()),
                    HexFormat.of().formatHex(PcapRoundTripTest.bytes(reader)),
                    capture + " frame " + reader.frameNumber() + " vs " + vector.name());
                assertEquals(vector.frame().length, reader.originalLength());
            }
            assertFalse(reader.next(), capture + " has more frames than its .jsonl");
            return reader.frameNumber();
        }
    }
}
