package io.rnic.tools.exchange;

import io.rnic.pcap.PcapReader;
import org.agrona.DirectBuffer;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;

/**
 * The shape of a perftest {@code -R} conversation in a capture: the CM REQs (MAD attribute 0x0010) and every RC
 * SEND (opcode 4, the exchange on the comm QP) in order, each SEND as {@code C} (from the client) or {@code S} and
 * its payload length; e.g. {@code "REQ C16 S16 …"}. Retransmissions (a REQ's communication ID, a SEND's source and
 * PSN seen before) count once.
 */
public final class RdmaCmConversation
{
    /**
     * {@code ib_write_bw -R} between two rxe guests ({@code shared/rxe-peer/pcaps/ib_write_bw_rdmacm.pcap}):
     * frame 1 the comm QP's REQ; 4-18 version, cycle buffer, cache line, MTU; 20/22 all-zero keys; 24 the test
     * QP's REQ; 27/29 all-zero keys; 31-41 keys and two barriers; after the test 93/95 a barrier, 97-115 the
     * bandwidth report (five 8-byte fields), 117/119 the last barrier.
     */
    public static final String CAPTURED = "REQ C16 S16 C4 S4 C4 S4 C2 S2 C56 S56 REQ C56 S56 C56 S56 C56 S56 C56 S56 " +
        "C56 S56 C8 S8 C8 S8 C8 S8 C8 S8 C8 S8 C56 S56";

    private RdmaCmConversation()
    {
    }

    public static int ipv4(final int address)
    {
        return address;
    }

    /** @param client the client's IPv4 address. */
    public static String of(final Path pcap, final int client) throws IOException
    {
        final StringBuilder shape = new StringBuilder();
        final Set<String> seen = new HashSet<>();
        try (PcapReader reader = PcapReader.open(pcap))
        {
            while (reader.next())
            {
                final DirectBuffer f = reader.frame();
                final int length = reader.frameLength();
                if (length < 58 || f.getByte(12) != 0x08 || f.getByte(13) != 0x00 || f.getByte(23) != 17 ||
                    (f.getShort(36, java.nio.ByteOrder.BIG_ENDIAN) & 0xFFFF) != 4791)
                {
                    continue;
                }
                final int opcode = f.getByte(42) & 0xFF;
                final int source = f.getInt(26, java.nio.ByteOrder.BIG_ENDIAN);
                if (opcode == 100 && length >= 90 && (f.getShort(78, java.nio.ByteOrder.BIG_ENDIAN) & 0xFFFF) == 0x10)
                {
                    if (!seen.add("REQ " + f.getInt(86, java.nio.ByteOrder.BIG_ENDIAN)))
                    {
                        continue; // a retransmission (the peer's CM was not up yet): same local communication ID
                    }
                    shape.append(shape.isEmpty() ? "" : " ").append("REQ");
                }
                else if (opcode == 4)
                {
                    if (!seen.add("SEND " + source + " " + (f.getInt(50, java.nio.ByteOrder.BIG_ENDIAN) & 0xFF_FFFF)))
                    {
                        continue; // an RC retransmission: same source and PSN
                    }
                    final int pad = (f.getByte(43) >> 4) & 3;
                    final boolean fromClient = source == client;
                    shape.append(shape.isEmpty() ? "" : " ").append(fromClient ? 'C' : 'S')
                        .append(length - 54 - 4 - pad);
                }
            }
        }
        return shape.toString();
    }
}
