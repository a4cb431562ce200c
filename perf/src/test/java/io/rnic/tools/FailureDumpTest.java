package io.rnic.tools;

import io.rnic.datapath.endpoint.InterfaceAddresses;
import io.rnic.datapath.port.InMemoryPort;
import io.rnic.datapath.port.PacketPort;
import io.rnic.tools.perftest.PerftestTool;
import io.rnic.transport.LocalPort;
import org.agrona.DirectBuffer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A run that fails (the server's RoCE answers are all lost: the client times out, the server then loses its peer)
 * tells the user in one line each, with each side's counters (a server that only serves has no other word on what it
 * saw); each QP's internal state and the engine's clock only with {@code --debug}.
 */
class FailureDumpTest
{
    private static final long MAC_SERVER = 0x02_00_00_00_0D_01L;
    private static final long MAC_CLIENT = 0x02_00_00_00_0D_02L;
    private static final int UDP_DESTINATION_OFFSET = 14 + 20 + 2;
    private static final int ROCE_PORT = 4791;

    @Test
    void shouldPrintOneLineAndTheCountersOnBothSidesWithoutDebug() throws Exception
    {
        final CapturedRun[] runs = failingPair(false);
        final CapturedRun client = runs[0];
        final CapturedRun server = runs[1];
        assertEquals(1, client.status(), client.out() + client.err());
        assertTrue(client.err().startsWith("write-bw: timed out after 400 ms with "), client.err());
        assertTrue(client.err().contains("sent_pkts"), "the counters: " + client.err());
        assertFalse(client.err().contains("engine clock now="), client.err());
        assertFalse(client.err().contains(" RTS"), client.err());
        assertEquals(2, server.status(), server.out() + server.err());
        assertTrue(server.err().startsWith("write-bw: the exchange with the peer failed\n rnic counters:\n"),
            server.err());
        assertTrue(server.err().contains("sent_pkts"), "the server's counters: " + server.err());
        assertFalse(server.err().contains("engine clock now="), server.err());
        final List<String> lines = server.err().lines().toList();
        assertTrue(lines.getLast().startsWith("the peer ") && lines.getLast().contains(" closed the connection"),
            "the cause, in one line, last: " + server.err());
    }

    @Test
    void shouldAddEachQpsStateWithDebug() throws Exception
    {
        final CapturedRun[] runs = failingPair(true);
        final CapturedRun client = runs[0];
        final CapturedRun server = runs[1];
        assertEquals(1, client.status(), client.out() + client.err());
        assertTrue(client.err().contains(" engine clock now="), client.err());
        assertTrue(client.err().contains(" RTS"), client.err());
        assertEquals(2, server.status(), server.out() + server.err());
        assertTrue(server.err().startsWith("write-bw: the exchange with the peer failed\n rnic counters:\n"),
            server.err());
        assertTrue(server.err().contains(" engine clock now="), server.err());
    }

    /** {client, server} of write-bw, the server's RoCE frames lost on their way out. */
    private static CapturedRun[] failingPair(final boolean debug) throws Exception
    {
        final String name = "dump-" + ThreadLocalRandom.current().nextInt(1 << 20);
        final InMemoryPort[] ports = InMemoryPort.pair(MAC_SERVER, MAC_CLIENT, 4096, 1 << 23);
        Ports.registerInMemory(name + "-s", new ForwardingPacketPort(ports[0])
        {
            @Override
            public boolean transmit(final DirectBuffer buffer, final int offset, final int length)
            {
                if (isIpv4(buffer, offset, length, UDP_DESTINATION_OFFSET + 2) &&
                    (((buffer.getByte(offset + UDP_DESTINATION_OFFSET) & 0xFF) << 8) |
                    (buffer.getByte(offset + UDP_DESTINATION_OFFSET + 1) & 0xFF)) == ROCE_PORT)
                {
                    return true; // lost on the wire
                }
                return port.transmit(buffer, offset, length);
            }
        }, addressing(MAC_SERVER, 1));
        Ports.registerInMemory(name + "-c", ports[1], addressing(MAC_CLIENT, 2));
        // -u 17: retransmissions every 537 ms, so that the run's 400 ms end it, not RETRY_EXC_ERR
        final List<String> common = new ArrayList<>(List.of("--port", "memory", "-p",
            String.valueOf(TcpPorts.free()), "--idle", "yield", "-n", "100",
            "--warmup", "0", "-u", "17", "--timeout-ms", "400", "--accept-timeout-ms", "30000"));
        if (debug)
        {
            common.add("--debug");
        }
        final List<String> server = new ArrayList<>(common);
        server.addAll(List.of("-d", name + "-s"));
        final List<String> client = new ArrayList<>(common);
        client.addAll(List.of("-d", name + "-c", "127.0.0.1"));
        return CapturedRun.serverAndClient((args, out, err) -> PerftestTool.run(ToolKind.WRITE_BW, args, out, err),
            server, client);
    }

    private static LocalPort addressing(final long mac, final int host)
    {
        final LocalPort port = new LocalPort(mac).ethernetMtu(1500);
        port.addGid(0xFE80_0000_0000_0000L, InterfaceAddresses.eui64(mac));
        port.addIpv4(0x0A5C_0000 | host);
        return port;
    }
}
