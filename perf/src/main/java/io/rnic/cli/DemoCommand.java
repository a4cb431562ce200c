package io.rnic.cli;

import io.rnic.pcap.PcapReader;
import io.rnic.pcap.PcapWriter;
import io.rnic.tools.Arguments;
import io.rnic.tools.options.CommandLine;
import io.rnic.tools.options.GivenOption;
import io.rnic.wire.DropReason;
import io.rnic.wire.FrameSpec;
import io.rnic.wire.InboundValidator;
import io.rnic.wire.Opcode;
import io.rnic.wire.PacketBuilder;
import io.rnic.wire.RocePacket;
import io.rnic.wire.UdpSourcePort;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * {@code rnic demo}: the wire-format self-check. Builds a frame of every RoCEv2 opcode over IPv4 and IPv6, with
 * and without a VLAN tag, writes them to a pcap (open it in Wireshark), reads the pcap back through inbound
 * validation and ICRC check, then runs the shared independent vectors (scapy, rxe, a ConnectX-4) through the
 * same path when they are beside the repository, and finally runs a verified RC workload between two engines over
 * a lossy simulated link. Later issues turn this into the veth RDMA demo.
 */
final class DemoCommand
{
    private DemoCommand()
    {
    }

    static int run(final String[] args, final PrintStream out, final PrintStream err) throws IOException
    {
        // not the working directory: a demo run from a checkout would leave a capture in the repository
        Path pcap = Path.of(System.getProperty("java.io.tmpdir"), "rnic-demo.pcap");
        for (final GivenOption given : CommandLine.parse("demo", args).optionsOnly())
        {
            switch (given.option())
            {
                case DEMO_OUT -> pcap = given.path();
                default -> throw given.notHandled("demo");
            }
        }
        Arguments.checkWritable("--out", pcap);

        out.println("== rnic demo: RoCEv2 wire-format self-check ==");
        final PacketBuilder builder = new PacketBuilder();
        final UnsafeBuffer frame = new UnsafeBuffer(new byte[9216]);
        final UnsafeBuffer payload = new UnsafeBuffer(new byte[4096]);
        for (int i = 0; i < payload.capacity(); i++)
        {
            payload.putByte(i, (byte)(i * 31 + 7));
        }

        int built = 0;
        final long startNs = System.currentTimeMillis() * 1_000_000L;
        try (PcapWriter writer = new PcapWriter(pcap))
        {
            for (int opcode = 0; opcode < 256; opcode++)
            {
                if (!Opcode.isValid(opcode))
                {
                    continue;
                }
                for (int variant = 0; variant < 4; variant++)
                {
                    final FrameSpec spec = spec(opcode, (variant & 1) != 0, (variant & 2) != 0);
                    final int payloadLength = Opcode.has(opcode, Opcode.FLAG_PAYLOAD) ? 1 + (opcode * 37 + variant) % 1024 : 0;
                    final int length = builder.build(frame, 0, spec, payload, 0, payloadLength);
                    writer.write(frame, 0, length, startNs + built * 1000L);
                    built++;
                }
            }
        }
        out.printf("built %d frames (%d opcodes x IPv4/IPv6 x untagged/802.1Q) -> %s%n",
            built, built / 4, pcap.toAbsolutePath());

        final InboundValidator validator = new InboundValidator();
        final RocePacket packet = new RocePacket();
        int accepted = 0;
        try (PcapReader reader = PcapReader.open(pcap))
        {
            while (reader.next())
            {
                final DropReason reason = validator.validate(reader.frame(), 0, reader.frameLength(), packet);
                if (reason == DropReason.NONE)
                {
                    accepted++;
                }
                else
                {
                    err.printf("frame %d dropped: %s%n", reader.frameNumber(), reason);
                }
            }
        }
        out.printf("read back: %d/%d accepted with a valid ICRC%n", accepted, built);
        boolean ok = accepted == built;

        final Path vectors = findVectors();
        if (vectors != null)
        {
            for (final String name : new String[]{ "vectors.pcap", "hw_captured.pcap", "invalid.pcap" })
            {
                final InboundValidator check = new InboundValidator();
                int frames = 0;
                try (PcapReader reader = PcapReader.open(vectors.resolve(name)))
                {
                    while (reader.next())
                    {
                        check.validate(reader.frame(), 0, reader.frameLength(), packet);
                        frames++;
                    }
                }
                final boolean expectDrops = name.startsWith("invalid");
                final boolean pass = expectDrops ? check.counters().accepted() == 0 : check.counters().dropped() == 0;
                ok &= pass;
                out.printf("%-17s %3d frames: %3d accepted, %3d dropped %s  [%s]%n", name, frames,
                    check.counters().accepted(), check.counters().dropped(),
                    expectDrops ? "(all must drop)" : "(all must pass)", pass ? "ok" : "FAIL");
                if (expectDrops)
                {
                    out.println("    drop reasons: " + check.counters());
                }
            }
        }
        else
        {
            out.println("(shared/vectors not found beside the repository: independent vectors skipped)");
        }
        // The transport on top: two engines over a simulated link that misbehaves, every byte checked.
        final io.rnic.simulation.Workload.Config workload = new io.rnic.simulation.Workload.Config();
        workload.operations = 2_000;
        workload.qps = 2;
        workload.maxSize = 256 * 1024;
        workload.seed = 2026;
        workload.conditions = new io.rnic.sim.LinkConditions().loss(0.02).reorder(0.02).duplicate(0.01).corrupt(0.005);
        out.println();
        out.println("== RC transport over a lossy simulated link (bin/rnic simulate for more) ==");
        final io.rnic.simulation.SimulationReport report = io.rnic.simulation.Workload.run(workload);
        out.print(report.summary());
        ok &= report.passed();

        out.println(ok ? "self-check passed" : "self-check FAILED");
        out.println("next: bin/rnic inspect " + pcap + "   (or open it in Wireshark)");
        return ok ? 0 : 1;
    }

    private static FrameSpec spec(final int opcode, final boolean ipv6, final boolean vlan)
    {
        final FrameSpec spec = new FrameSpec().ethernet(0x02_00_00_00_0B_02L, 0x02_00_00_00_0A_01L);
        if (ipv6)
        {
            spec.ipv6(0xFD00_0077_0000_0000L, 2L, 0xFD00_0077_0000_0000L, 3L);
        }
        else
        {
            spec.ipv4(0x0A4D_0002, 0x0A4D_0003);
        }
        if (vlan)
        {
            spec.vlan(3, 0, 100);
        }
        final int localQp = 0x11;
        final int remoteQp = 0x12 + opcode;
        spec.udpSourcePort(UdpSourcePort.of(localQp, remoteQp, 0))
            .bth(opcode, remoteQp, opcode * 1000)
            .ackRequest(Opcode.has(opcode, Opcode.FLAG_REQUEST))
            .reth(0x7F00_0000_1000L + opcode, 0x1000 + opcode, 4096)
            .aeth(0x1F, opcode)
            .atomicEth(0x7F00_0000_2000L, 0x2000, 1, 0)
            .atomicAckEth(42)
            .deth(0x1111_1111L, localQp)
            .immediate(0x1234_5678)
            .ieth(0x3000);
        if (opcode == Opcode.CNP)
        {
            spec.psn(0).ackRequest(false).fecnBecn(false, true).trafficClass(48, 2);
        }
        return spec;
    }

    private static Path findVectors()
    {
        final String configured = System.getProperty("rnic.shared.dir");
        final Path home = Path.of(System.getProperty("rnic.home", "."));
        for (final Path candidate : new Path[]{
            configured == null ? null : Path.of(configured), home.resolve("../shared"), Path.of("../shared") })
        {
            if (candidate != null && Files.isRegularFile(candidate.resolve("vectors/vectors.pcap")))
            {
                return candidate.resolve("vectors");
            }
        }
        return null;
    }
}
