package io.rnic.pcap;

import io.rnic.wire.FrameSpec;
import io.rnic.wire.Opcode;
import io.rnic.wire.PacketBuilder;
import io.rnic.wire.UdpSourcePort;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Wireshark's own InfiniBand dissector reads a pcap of every opcode our builder writes, over IPv4 and IPv6 with
 * and without VLAN, and finds the opcode, QPN and PSN we wrote and no malformed packet. (tshark does not check
 * the ICRC; our validator and the vectors do.) Required in CI: the test command sets rnic.require.tshark=true.
 */
class TsharkDissectionTest
{
    /** Payload heuristics that flag synthetic payloads as malformed (as shared/vectors/check_pcap.py does). */
    private static final String[] NOISY_HEURISTICS = { "smc", "smb_direct", "rpcordma", "nvme-rdma", "lnet", "iser",
        "infiniband.eoib", "infiniband_sdp", "fcoib" };

    @Test
    void shouldBeDissectedByTsharkWithoutMalformedPackets(@TempDir final Path dir) throws Exception
    {
        requireTshark();
        final Path pcap = dir.resolve("every-opcode.pcap");
        final PacketBuilder builder = new PacketBuilder();
        final UnsafeBuffer frame = new UnsafeBuffer(new byte[9216]);
        final UnsafeBuffer payload = new UnsafeBuffer(new byte[2048]);
        final List<String> expected = new ArrayList<>();
        try (PcapWriter writer = new PcapWriter(pcap))
        {
            long timestampNs = 1_700_000_000_000_000_000L;
            for (int opcode = 0; opcode < 256; opcode++)
            {
                if (!Opcode.isValid(opcode))
                {
                    continue;
                }
                for (int variant = 0; variant < 4; variant++)
                {
                    final boolean ipv6 = (variant & 1) != 0;
                    final FrameSpec spec = new FrameSpec().ethernet(0x0200_0000_0B02L, 0x0200_0000_0A01L);
                    if (ipv6)
                    {
                        spec.ipv6(0xFD00_0000_0000_0000L, 1, 0xFD00_0000_0000_0000L, 2);
                    }
                    else
                    {
                        spec.ipv4(0x0A00_0001, 0x0A00_0002);
                    }
                    if ((variant & 2) != 0)
                    {
                        spec.vlan(5, 0, 42);
                    }
                    final int qpn = 0x100 + opcode;
                    final int psn = opcode == Opcode.CNP ? 0 : 0xFFFF00 + variant;
                    spec.udpSourcePort(UdpSourcePort.of(0x11, qpn, 0)).bth(opcode, qpn, psn)
                        .reth(0x1000, 0x2000, 64).aeth(0x1F, 1).atomicEth(0x1000, 0x2000, 1, 2).deth(0x11111111L, 0x11);
                    final int payloadLength = Opcode.has(opcode, Opcode.FLAG_PAYLOAD) ? 1 + opcode % 1024 : 0;
                    final int length = builder.build(frame, 0, spec, payload, 0, payloadLength);
                    writer.write(frame, 0, length, timestampNs += 1000);
                    expected.add(opcode + "\t" + qpn + "\t" + psn);
                }
            }
        }

        final List<String> command = new ArrayList<>(List.of("tshark", "-r", pcap.toString(), "-n",
            "-o", "infiniband.rroce.port:4791", "-T", "fields", "-E", "separator=/t", "-E", "occurrence=f",
            "-e", "infiniband.bth.opcode", "-e", "infiniband.bth.destqp", "-e", "infiniband.bth.psn",
            "-e", "_ws.malformed", "-e", "_ws.expert.severity"));
        for (final String protocol : NOISY_HEURISTICS)
        {
            command.add("--disable-protocol");
            command.add(protocol);
        }
        final Process tshark = new ProcessBuilder(command).redirectErrorStream(false).start();
        final String output = new String(tshark.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        final String errors = new String(tshark.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, tshark.waitFor(), errors);

        final List<String> lines = output.lines().toList();
        assertEquals(expected.size(), lines.size(), output);
        for (int i = 0; i < lines.size(); i++)
        {
            final String[] columns = (lines.get(i) + "\t\t\t\t\t").split("\t", -1);
            // tshark prints the QPN in hex ("0x000100"), the opcode and PSN in decimal
            assertEquals(expected.get(i),
                Integer.decode(columns[0]) + "\t" + Integer.decode(columns[1]) + "\t" + Integer.decode(columns[2]),
                "frame " + (i + 1) + ": " + lines.get(i));
            assertEquals("", columns[3], "frame " + (i + 1) + " is malformed for tshark: " + lines.get(i));
        }
    }

    /**
     * tshark 4.0 (Debian 12's) predates IBTA 1.5 in its InfiniBand dissector: it shows FLUSH and ATOMIC WRITE as
     * "Opcode: Unknown (28)" and "(29)" and everything after the BTH as "Unknown/Vendor Specific Data"
     * ({@code infiniband.vendor}), without flagging them malformed. Recorded here so that a tshark that learns them
     * shows up (the check of the unknown header sequence is made for 4.0 only).
     */
    @Test
    void shouldRecordThatTshark40KnowsNeitherFlushNorAtomicWrite(@TempDir final Path dir) throws Exception
    {
        requireTshark();
        final Path pcap = dir.resolve("ibta-1.5.pcap");
        final PacketBuilder builder = new PacketBuilder();
        final UnsafeBuffer frame = new UnsafeBuffer(new byte[256]);
        try (PcapWriter writer = new PcapWriter(pcap))
        {
            final FrameSpec spec = new FrameSpec().ethernet(0x0200_0000_0B02L, 0x0200_0000_0A01L)
                .ipv4(0x0A00_0001, 0x0A00_0002).udpSourcePort(UdpSourcePort.of(0x11, 0x123, 0)).ackRequest(true);
            spec.bth(Opcode.RC_FLUSH, 0x123, 7).feth(1, 0).reth(0x1000, 0x2000, 64);
            writer.write(frame, 0, builder.build(frame, 0, spec, frame, 0, 0), 1_700_000_000_000_000_000L);
            spec.bth(Opcode.RC_ATOMIC_WRITE, 0x123, 8).reth(0x1000, 0x2000, 8);
            final UnsafeBuffer eightBytes = new UnsafeBuffer(new byte[8]);
            writer.write(frame, 0, builder.build(frame, 0, spec, eightBytes, 0, 8), 1_700_000_000_000_001_000L);
        }
        final Process tshark = new ProcessBuilder("tshark", "-r", pcap.toString(), "-n",
            "-o", "infiniband.rroce.port:4791", "-T", "fields", "-E", "separator=/t", "-E", "occurrence=f",
            "-e", "infiniband.bth.opcode", "-e", "infiniband.bth.psn", "-e", "infiniband.vendor",
            "-e", "_ws.malformed").start();
        final String output = new String(tshark.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        tshark.getErrorStream().readAllBytes();
        assertEquals(0, tshark.waitFor());
        final List<String> lines = output.lines().toList();
        assertEquals(2, lines.size(), output);
        final boolean tshark40 = new String(new ProcessBuilder("tshark", "--version").start().getInputStream()
            .readAllBytes(), StandardCharsets.UTF_8).startsWith("TShark (Wireshark) 4.0.");
        final int[] opcodes = { 28, 29 };
        for (int i = 0; i < 2; i++)
        {
            final String[] columns = (lines.get(i) + "\t\t\t\t").split("\t", -1);
            assertEquals(opcodes[i], Integer.decode(columns[0]), lines.get(i));
            assertEquals(7 + i, Integer.decode(columns[1]), lines.get(i));
            assertEquals("", columns[3], "malformed for tshark: " + lines.get(i));
            if (tshark40)
            {
                assertEquals(false, columns[2].isEmpty(),
                    "tshark 4.0 shows an unknown header sequence: " + lines.get(i));
            }
        }
    }

    static void requireTshark() throws IOException, InterruptedException
    {
        boolean present;
        try
        {
            present = new ProcessBuilder("tshark", "--version").redirectErrorStream(true).start().waitFor() == 0;
        }
        catch (final IOException ex)
        {
            present = false;
        }
        if (!present)
        {
            if (Boolean.getBoolean("rnic.require.tshark"))
            {
                throw new IllegalStateException("tshark is required (rnic.require.tshark=true) but not installed");
            }
            Assumptions.abort("tshark not installed");
        }
    }
}
