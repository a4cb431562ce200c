package io.rnic.tools.exchange;

import io.rnic.tools.RemoteQp;
import io.rnic.tools.ToolKind;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The messages of perftest's {@code -R} exchange against the SEND payloads perftest 4.5-0.17 put on the comm QP
 * (0x28) between two rxe guests ({@code shared/rxe-peer/pcaps/ib_write_bw_rdmacm.pcap}).
 */
class RdmaCmOutOfBandTest
{
    private static final HexFormat HEX = HexFormat.of();
    /** Frame 41: the server's (10.77.0.2) keys, test QP 0x29. */
    private static final String SERVER_KEYS = "00000000000000010000002900b0f6bb00001ce1000000000000562e2ae53000" +
        "00000000000000000000ffff0a4d00020000000000000001";
    /** Frame 93: the client's (10.77.0.3) keys at the barrier after the test. */
    private static final String CLIENT_KEYS = "00000000000000010000002900ee62d600001d610000000000005645536bc000" +
        "00000000000000000000ffff0a4d00030000000000000001";
    /** Frame 117: the same message at the last barrier; its 4 padding bytes (after the R_Key) hold stack garbage. */
    private static final String CLIENT_KEYS_GARBAGE_PADDING = "00000000000000010000002900ee62d600001d614556000000" +
        "005645536bc00000000000000000000000ffff0a4d00030000000000000001";

    @Test
    void shouldEncodeTheKeysAsPerftestsBigEndianPingpongDest()
    {
        final byte[] encoded = RdmaCmOutOfBand.encode(1, 0x29, 0xb0f6bb, 0x1ce1, 0x562e2ae53000L, 0,
            0x0000_FFFF_0A4D_0002L, 1);
        assertEquals(RdmaCmOutOfBand.KEY_BYTES, encoded.length);
        assertArrayEquals(HEX.parseHex(SERVER_KEYS), encoded);
    }

    @Test
    void shouldDecodeTheCapturedKeysIgnoringThePadding() throws IOException
    {
        final RemoteQp expected = new RemoteQp(0x29, 0xee62d6, 0x1d61, 0x5645536bc000L, 0, 0x0000_FFFF_0A4D_0003L, 1);
        assertEquals(expected, RdmaCmOutOfBand.decode(HEX.parseHex(CLIENT_KEYS), "peer"));
        assertEquals(expected, RdmaCmOutOfBand.decode(HEX.parseHex(CLIENT_KEYS_GARBAGE_PADDING), "peer"));
    }

    @Test
    void shouldRejectKeysOfTheWrongSizeOrWithAQpnBeyond24Bits()
    {
        final IOException shortMessage = assertThrows(IOException.class,
            () -> RdmaCmOutOfBand.decode(new byte[55], "10.77.0.2"));
        assertTrue(shortMessage.getMessage().contains("55 bytes, expected 56"), shortMessage.getMessage());
        final byte[] wideQpn = HEX.parseHex(SERVER_KEYS);
        wideQpn[RdmaCmOutOfBand.QPN_OFFSET] = 1;
        final IOException bad = assertThrows(IOException.class, () -> RdmaCmOutOfBand.decode(wideQpn, "10.77.0.2"));
        assertTrue(bad.getMessage().contains("QPN 0x1000029"), bad.getMessage());
    }

    @Test
    void shouldSendTheCapturedPrologueMessages()
    {
        // frames 4, 8, 12, 16 (client) and their answers: the TCP exchange's messages, carried by SENDs
        assertArrayEquals(HEX.parseHex("362e3036000000000000000000000000"),
            withoutRnicMark(PerftestOutOfBand.versionMessage()));
        assertArrayEquals(HEX.parseHex("00001000"), PerftestOutOfBand.intMessage(PerftestOutOfBand.CYCLE_BUFFER));
        assertArrayEquals(HEX.parseHex("00000040"), PerftestOutOfBand.intMessage(PerftestOutOfBand.CACHE_LINE));
        assertArrayEquals(HEX.parseHex("3300"), PerftestOutOfBand.mtuMessage(1024));
        assertArrayEquals(HEX.parseHex("0000000000001000"), PerftestOutOfBand.longMessage(4096)); // frame 97
    }

    @Test
    void shouldAskTheCmForReadResourcesOnlyWhenTheTestReadsOrRunsAtomics()
    {
        // ib_write_bw -R: responder resources and initiator depth 0 in both REQs (frames 1 and 24)
        assertEquals(0, RdmaCmOutOfBand.readAtomicResources(ToolKind.WRITE_BW));
        assertEquals(0, RdmaCmOutOfBand.readAtomicResources(ToolKind.SEND_BW));
        assertEquals(PerftestOutOfBand.OUT_READS, RdmaCmOutOfBand.readAtomicResources(ToolKind.READ_BW));
        assertEquals(PerftestOutOfBand.OUT_READS, RdmaCmOutOfBand.readAtomicResources(ToolKind.ATOMIC_LAT));
    }

    @Test
    void shouldReadTheCapturedConversationsShape() throws IOException
    {
        Path file = null;
        for (final String candidate : new String[]{ "../../shared/rxe-peer/pcaps", "../shared/rxe-peer/pcaps" })
        {
            if (Files.exists(Path.of(candidate, "ib_write_bw_rdmacm.pcap")))
            {
                file = Path.of(candidate, "ib_write_bw_rdmacm.pcap");
            }
        }
        assertTrue(file != null, "ib_write_bw_rdmacm.pcap not found in ../../shared or ../shared/rxe-peer/pcaps from " +
            Path.of("").toAbsolutePath());
        assertEquals(RdmaCmConversation.CAPTURED, RdmaCmConversation.of(file, 0x0A4D_0003));
    }

    /** Ours carries "rnic" after the NUL (perftest reads only the string): blank it to compare with perftest's. */
    private static byte[] withoutRnicMark(final byte[] version)
    {
        final byte[] copy = version.clone();
        java.util.Arrays.fill(copy, PerftestOutOfBand.VERSION.length() + 1, copy.length, (byte)0);
        return copy;
    }
}
