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
