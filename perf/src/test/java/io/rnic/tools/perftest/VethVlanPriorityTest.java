package io.rnic.tools.perftest;

import io.rnic.pcap.PcapReader;
import io.rnic.tools.NetnsTopology;
import io.rnic.tools.ToolProcess;
import io.rnic.wire.DropReason;
import io.rnic.wire.Ecn;
import io.rnic.wire.InboundValidator;
import io.rnic.wire.Ipv4Flyweight;
import io.rnic.wire.Opcode;
import io.rnic.wire.RocePacket;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Priority and marking on a real wire: two namespaces joined by a veth pair, the tools tagging their frames with
 * VLAN 10 themselves ({@code --vlan 10}: what they do on the parent of a kernel VLAN device, and on DPDK), and
 * tcpdump on the server's end, which sees both directions (libpcap puts back the tag the kernel took off a received
 * frame). A WRITE run with SL 3 and traffic class 0x68 (DSCP 26): every RoCEv2 frame either way carries an 802.1Q
 * tag with VLAN 10 and PCP 3, DSCP 26, and ECN bits ECT(0) from the client, whose DCQCN is on, 00 from the server,
 * whose is off; and the ports took the tagged frames the kernel handed them (the run completes, verified). Needs
 * root, iproute2 and tcpdump; the namespaces are deleted whatever happens.
 * <p>
 * A kernel VLAN device ({@code ip link add link vethX name vethX.10 type vlan id 10}) as the interface is the same
 * on the wire; this machine's kernel has no 802.1Q module, so that case is checked where one is
 * ({@code deploy/interop/run.sh}'s VLAN cases), not here.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class VethVlanPriorityTest
{
    private static final int VLAN_ID = 10;
    private static final int SERVICE_LEVEL = 3;
    private static final int TRAFFIC_CLASS = 0x68;
    private static final int DSCP = 26;

    private NetnsTopology topology;

    @BeforeAll
    void createTopology() throws Exception
    {
        assumeTrue(NetnsTopology.available() && commandWorks("tcpdump", "--version"),
            "needs root, iproute2 and tcpdump");
        topology = new NetnsTopology(1500);
    }

    @AfterAll
    void deleteTopology()
    {
        if (topology != null)
        {
            topology.close();
        }
    }

    @Test
    void shouldCarryTheServiceLevelAsPcpAndTheTrafficClassAsDscpOnTheVlan() throws Exception
    {
        final Path capture = Files.createTempFile("rnic-vlan-", ".pcap");
        final Process tcpdump = startTcpdump(topology.nsA, topology.ifA, capture);
        try
        {
            final List<String> common = List.of("write-lat", "-x", "1", "-s", "2048", "-n", "20", "--warmup", "0",
                "--verify", "-S", String.valueOf(SERVICE_LEVEL), "--tclass", String.valueOf(TRAFFIC_CLASS),
                "--vlan", String.valueOf(VLAN_ID), "--timeout-ms", "60000");
            final ToolProcess server = ToolProcess.start(topology.nsA, concat(common, List.of("-d", topology.ifA)));
            final ToolProcess client = ToolProcess.start(topology.nsB,
                concat(common, List.of("-d", topology.ifB, "--cc", "dcqcn", topology.ip4A)));
            final ToolProcess.Result c = client.await(120);
            final ToolProcess.Result s = server.await(30);
            assertEquals(0, c.status(), "client failed:\n" + c.output() + "\n--- server:\n" + s.output());
            assertEquals(0, s.status(), "server failed:\n" + s.output());
            assertTrue(c.output().contains("verify: OK") && s.output().contains("verify: OK"), c.output());
        }
        finally
        {
            stop(tcpdump);
        }

        final int serverIp = address(topology.ip4A);
        int fromClient = 0;
        int fromServer = 0;
        final InboundValidator validator = new InboundValidator();
        final RocePacket packet = new RocePacket();
        try (PcapReader reader = PcapReader.open(capture))
        {
            while (reader.next())
            {
                final UnsafeBuffer frame = new UnsafeBuffer(new byte[reader.frameLength()]);
                frame.putBytes(0, reader.frame(), 0, reader.frameLength());
                if (validator.validate(frame, 0, frame.capacity(), packet) != DropReason.NONE ||
                    packet.opcode() == Opcode.CNP)
                {
                    continue; // ARP, the TCP exchange, IPv6 router solicitations
                }
                final String where = "frame " + reader.frameNumber() + " of " + capture;
                assertTrue(packet.hasVlan(), "tagged: " + where);
                assertEquals(VLAN_ID, packet.vlanTci() & 0xFFF, "VLAN id: " + where);
                assertEquals(SERVICE_LEVEL, packet.vlanTci() >>> 13, "PCP = SL: " + where);
                assertEquals(DSCP, packet.dscp(), "DSCP: " + where);
                final boolean client = new Ipv4Flyweight().wrapAt(frame, packet.ipOffset()).source() != serverIp;
                if (client)
                {
                    fromClient++;
                    assertEquals(Ecn.ECT_0, packet.ecn(), "the client runs DCQCN: ECT(0), " + where);
                }
                else
                {
                    fromServer++;
                    assertEquals(Ecn.NOT_ECT, packet.ecn(), "the server does not: " + where);
                }
            }
        }
        System.out.println("veth VLAN: " + fromClient + " RoCEv2 frames from the client, " + fromServer +
            " from the server, all VLAN " + VLAN_ID + " PCP " + SERVICE_LEVEL + " DSCP " + DSCP);
        assertTrue(fromClient >= 20 && fromServer >= 20, fromClient + " / " + fromServer + " frames in " + capture);
        Files.delete(capture);
    }

    /**
     * CNPs on the VLAN: the same tools through a middle hop that marks CE like a congested switch port
     * ({@link NetnsTopology#congest}: br_netfilter and iptables, tagged frames included), WRITEs from a client with
     * DCQCN on at both ends (the server's notification point answers CE). The server's CNPs leave at ConnectX's DSCP 48 and priority 6 (not the QP's 26 and 3), tagged VLAN 10,
     * not ECN-capable, in the capture on the server's end.
     */
    @Test
    void shouldSendCnpsAtTheCnpDscpAndPriorityOnTheVlan() throws Exception
    {
        assumeTrue(NetnsTopology.hasIptables(), "needs iptables");
        try (NetnsTopology congested = new NetnsTopology(1500, true))
        {
            congested.congest(200, 200_000, 95, 64, 1086);
            final Path capture = Files.createTempFile("rnic-vlan-cnp-", ".pcap");
            final Process tcpdump = startTcpdump(congested.nsA, congested.ifA, capture);
            try
            {
                final List<String> common = List.of("write-bw", "-x", "1", "-s", "65536", "-n", "200", "--warmup",
                    "0", "-S", String.valueOf(SERVICE_LEVEL), "--tclass", String.valueOf(TRAFFIC_CLASS), "--vlan",
                    String.valueOf(VLAN_ID), "--cc", "dcqcn", "--timeout-ms", "60000");
                final ToolProcess server = ToolProcess.start(congested.nsA, concat(common, List.of("-d",
                    congested.ifA)));
                final ToolProcess client = ToolProcess.start(congested.nsB,
                    concat(common, List.of("-d", congested.ifB, congested.ip4A)));
                final ToolProcess.Result c = client.await(120);
                final ToolProcess.Result s = server.await(30);
                assertEquals(0, c.status(), "client failed:\n" + c.output() + "\n--- server:\n" + s.output());
                assertEquals(0, s.status(), "server failed:\n" + s.output());
            }
            finally
            {
                stop(tcpdump);
            }
            int cnps = 0;
            int marked = 0;
            final InboundValidator validator = new InboundValidator();
            final RocePacket packet = new RocePacket();
            try (PcapReader reader = PcapReader.open(capture))
            {
                while (reader.next())
                {
                    final UnsafeBuffer frame = new UnsafeBuffer(new byte[reader.frameLength()]);
                    frame.putBytes(0, reader.frame(), 0, reader.frameLength());
                    if (validator.validate(frame, 0, frame.capacity(), packet) != DropReason.NONE)
                    {
                        continue;
                    }
                    final String where = "frame " + reader.frameNumber() + " of " + capture;
                    assertTrue(packet.hasVlan() && (packet.vlanTci() & 0xFFF) == VLAN_ID, "VLAN 10: " + where);
                    if (packet.opcode() == Opcode.CNP)
                    {
                        cnps++;
                        assertEquals(48, packet.dscp(), "CNP DSCP: " + where);
                        assertEquals(6, packet.vlanTci() >>> 13, "CNP PCP: " + where);
                        assertEquals(Ecn.NOT_ECT, packet.ecn(), "CNP ECN: " + where);
                    }
                    else
                    {
                        assertEquals(DSCP, packet.dscp(), where);
                        assertEquals(SERVICE_LEVEL, packet.vlanTci() >>> 13, where);
                        marked += packet.ecn() == Ecn.CE ? 1 : 0;
                    }
                }
            }
            System.out.println("veth VLAN CNPs: " + marked + " CE-marked frames arrived, " + cnps + " CNPs sent, " +
                "all VLAN " + VLAN_ID + ", CNPs DSCP 48 PCP 6");
            assertTrue(marked > 0 && cnps > 0, marked + " CE-marked frames, " + cnps + " CNPs in " + capture);
            Files.delete(capture);
        }
    }

    private static int address(final String dotted) throws IOException
    {
        final byte[] bytes = InetAddress.getByName(dotted).getAddress();
        return (bytes[0] & 0xFF) << 24 | (bytes[1] & 0xFF) << 16 | (bytes[2] & 0xFF) << 8 | bytes[3] & 0xFF;
    }

    /** tcpdump on {@code iface}, returned once it listens (it says so on stderr). */
    private static Process startTcpdump(final String namespace, final String iface, final Path file)
        throws IOException
    {
        // immediate mode: libpcap's ring hands each frame over at once, none waits in a block when tcpdump stops
        final Process process = new ProcessBuilder("ip", "netns", "exec", namespace, "tcpdump", "-i", iface, "-U",
            "--immediate-mode", "-w", file.toString()).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        final BufferedReader stderr = new BufferedReader(new InputStreamReader(process.getErrorStream(),
            StandardCharsets.UTF_8));
        final String line = stderr.readLine();
        assertTrue(line != null && line.contains("listening on"), "tcpdump: " + line);
        return process;
    }

    private static void stop(final Process process) throws InterruptedException
    {
        process.destroy(); // SIGTERM: tcpdump flushes and closes its file
        if (!process.waitFor(10, TimeUnit.SECONDS))
        {
            process.destroyForcibly();
        }
    }

    private static boolean commandWorks(final String... command)
    {
        try
        {
            return new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.to(new File("/dev/null"))).start().waitFor() == 0;
        }
        catch (final IOException | InterruptedException ex)
        {
            return false;
        }
    }

    private static List<String> concat(final List<String> a, final List<String> b)
    {
        final java.util.ArrayList<String> all = new java.util.ArrayList<>(a);
        all.addAll(b);
        return all;
    }
}
