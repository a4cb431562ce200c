package io.rnic.tools.rping;

import io.rnic.datapath.endpoint.InterfaceAddresses;
import io.rnic.datapath.port.InMemoryPort;
import io.rnic.tools.CapturedRun;
import io.rnic.tools.DropOnceTransmitPort;
import io.rnic.tools.EngineStartSignalPort;
import io.rnic.tools.Ports;
import io.rnic.transport.LocalPort;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code rnic rping} server and client in one JVM over in-memory ports: the CM connection on QP1, the pings
 * (READ of the client's start buffer, WRITE into its sink), the data rping prints, and the disconnect.
 */
class RpingInMemoryTest
{
    private static final long MAC_SERVER = 0x02_00_00_00_0C_01L;
    private static final long MAC_CLIENT = 0x02_00_00_00_0C_02L;

    @Test
    void shouldPingFiveTimesAndPrintWhatLinuxRpingPrints() throws Exception
    {
        final Registered ports = register();
        final List<String> common = List.of("--port", "memory", "--idle", "yield", "--timeout-ms", "30000",
            "-C", "5", "-S", "64", "-v", "-V", "-a", "10.91.0.1");
        final CapturedRun[] results = runPair(ports, common);
        final CapturedRun c = results[0];
        final CapturedRun s = results[1];
        assertEquals(0, c.status(), "client:\n" + c.out() + c.err() + "\nserver:\n" + s.out() + s.err());
        assertEquals(0, s.status(), "server:\n" + s.out() + s.err());
        // what rping -v -C 5 -S 64 printed between two rxe guests (rxe-peer/pcaps/rping.txt)
        final String[] expected = {
            "rdma-ping-0: ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqr",
            "rdma-ping-1: BCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrs",
            "rdma-ping-2: CDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrst",
            "rdma-ping-3: DEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstu",
            "rdma-ping-4: EFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuv",
        };
        final StringBuilder clientPings = new StringBuilder();
        final StringBuilder serverPings = new StringBuilder();
        for (final String line : expected)
        {
            clientPings.append("ping data: ").append(line).append('\n');
            serverPings.append("server ping data: ").append(line).append('\n');
        }
        assertTrue(c.out().startsWith(clientPings.toString()), c.out());
        assertTrue(s.out().startsWith(serverPings.toString()), s.out());
        assertTrue(c.out().contains("client DISCONNECT EVENT..."), c.out());
        assertTrue(s.out().contains("server DISCONNECT EVENT..."), s.out());
    }

    @Test
    void shouldWrapTheRotatingPatternAfterLowercaseZ() throws Exception
    {
        final Registered ports = register();
        final List<String> common = List.of("--port", "memory", "--idle", "yield", "--timeout-ms", "30000",
            "-C", "60", "-S", "40", "-v", "-V", "-a", "10.91.0.1");
        final CapturedRun[] results = runPair(ports, common);
        assertEquals(0, results[0].status(), results[0].out() + results[0].err() + results[1].out() + results[1].err());
        assertEquals(0, results[1].status(), results[1].out() + results[1].err());
        // ping 58 starts at 'A' + 58 = 'z' + 1 - 0 ... the 58th letter after 'A' is past 'z': wraps to 'A'
        assertTrue(results[0].out().contains("ping data: rdma-ping-57: zABCDEFGHIJKLMNOPQRSTUVWX\n"), results[0].out());
        assertTrue(results[0].out().contains("ping data: rdma-ping-58: ABCDEFGHIJKLMNOPQRSTUVWXY\n"), results[0].out());
        assertEquals(60, results[0].out().lines().filter(l -> l.startsWith("ping data: ")).count());
    }

    /**
     * The server outlives the client's REQ retransmission (4.3 s): a REQ that arrives before the server's CM exists
     * is sent again and rejected then, on a slow start too.
     */
    @Test
    void shouldFailToConnectWhenNobodyListensOnThePort() throws Exception
    {
        final Registered ports = register();
        final List<String> server = List.of("--port", "memory", "--iface", ports.name + "-s", "--idle", "yield",
            "--timeout-ms", "10000", "-s", "-p", "7000", "-a", "10.91.0.1", "-C", "1");
        final List<String> client = List.of("--port", "memory", "--iface", ports.name + "-c", "--idle", "yield",
            "--timeout-ms", "30000", "-c", "-p", "7001", "-a", "10.91.0.1", "-C", "1");
        final ExecutorService threads = Executors.newFixedThreadPool(2);
        try
        {
            final Future<CapturedRun> serverRun = threads.submit(() -> run(server));
            assertTrue(ports.server.awaitEngineStart(60_000), "the server never started its engine");
            final CapturedRun c = run(client);
            assertEquals(1, c.status(), c.out() + c.err());
            assertTrue(c.err().contains("connect error: rejected: reason 8 (invalid service ID)"), c.err());
            final CapturedRun s = serverRun.get(60, TimeUnit.SECONDS);
            assertEquals(1, s.status(), "the server saw no request on its port:\n" + s.out() + s.err());
        }
        finally
        {
            threads.shutdownNow();
        }
    }

    /**
     * The client disconnects once it has the server's last SEND; when the ACK of that SEND is lost, the client's
     * DREQ reaches the server before the retransmission is acknowledged (the DREQ then flushes the SEND). The
     * server must take the DREQ as the delivery it is and answer it, not fail and leave without a DREP (the client
     * then waited for one until its timeout: seen on the veth test).
     */
    @Test
    void shouldEndCleanlyWhenTheAckOfTheLastSendIsLost() throws Exception
    {
        final String name = "rping-lost-ack-" + ThreadLocalRandom.current().nextInt(1 << 20);
        final InMemoryPort[] ports = InMemoryPort.pair(MAC_SERVER, MAC_CLIENT, 4096, 1 << 22);
        // per ping the client's responder completes 4 messages of the server's (READ, SEND, WRITE, SEND): the
        // last SEND of 5 pings is MSN 20
        final DropOnceTransmitPort lossyClient = new DropOnceTransmitPort(ports[1], msn -> msn == 20);
        final EngineStartSignalPort server = new EngineStartSignalPort(ports[0]);
        Ports.registerInMemory(name + "-s", server, addressing(MAC_SERVER, 1));
        Ports.registerInMemory(name + "-c", lossyClient, addressing(MAC_CLIENT, 2));
        final List<String> common = List.of("--port", "memory", "--idle", "yield", "--timeout-ms", "20000",
            "-C", "5", "-S", "64", "-V", "-a", "10.91.0.1");
        final CapturedRun[] results = runPair(new Registered(name, server), common);
        final CapturedRun c = results[0];
        final CapturedRun s = results[1];
        // the client's move to ERR on disconnecting sends the ACK it owes first (it used to vanish when the move came
        // in the duty cycle that received the SEND): the port drops it, and the server sees the DREQ before any ACK
        assertTrue(lossyClient.dropped(), "the ACK of the last SEND (MSN 20) was never sent\nclient:\n" + c.out() + c.err() +
            "\nserver:\n" + s.out() + s.err());
        assertEquals(0, c.status(), "client:\n" + c.out() + c.err() + "\nserver:\n" + s.out() + s.err());
        assertEquals(0, s.status(), "server:\n" + s.out() + s.err());
        assertTrue(s.out().contains("server DISCONNECT EVENT..."), s.out());
    }

    /**
     * rping's -P: the server (listening without -a, on its port's first IPv4 address as rping binds 0.0.0.0) serves
     * one client after another, each on a fresh QP, and ends once none has come for --timeout-ms. The clients bind
     * -I, and -d prints the connection's steps.
     */
    @Test
    void shouldServeOneClientAfterAnotherWhenPersistent() throws Exception
    {
        final String name = "rping-persistent-" + ThreadLocalRandom.current().nextInt(1 << 20);
        final InMemoryPort[] pair = InMemoryPort.pair(MAC_SERVER, MAC_CLIENT, 4096, 1 << 22);
        final Registered ports = new Registered(name, new EngineStartSignalPort(pair[0]));
        Ports.registerInMemory(name + "-s", ports.server, addressing(MAC_SERVER, 1));
        final List<String> server = List.of("--port", "memory", "--iface", ports.name + "-s", "--idle", "yield",
            "--timeout-ms", "5000", "-s", "-P", "-d", "-C", "3", "-V");
        final List<String> client = List.of("--port", "memory", "--iface", ports.name + "-c", "--idle", "yield",
            "--timeout-ms", "30000", "-c", "-a", "10.91.0.1", "-I", "10.91.0.2", "-d", "-C", "3", "-V");
        final ExecutorService threads = Executors.newFixedThreadPool(1);
        try
        {
            final Future<CapturedRun> serverRun = threads.submit(() -> run(server));
            assertTrue(ports.server.awaitEngineStart(60_000), "the server never started its engine");
            for (int i = 0; i < 2; i++)
            {
                // one client after the other on the same link: each opens the port anew (an open takes its name)
                Ports.registerInMemory(name + "-c", pair[1], addressing(MAC_CLIENT, 2));
                final CapturedRun c = run(client);
                assertEquals(0, c.status(), "client " + i + ":\n" + c.out() + c.err());
                assertTrue(c.out().contains("connected to ::ffff:10.91.0.1 port 7174"), c.out());
            }
            final CapturedRun s = serverRun.get(60, TimeUnit.SECONDS);
            assertEquals(0, s.status(), s.out() + s.err());
            assertEquals(2, s.out().lines().filter(l -> l.equals("connect request from ::ffff:10.91.0.2")).count(),
                s.out());
            assertEquals(2, s.out().lines().filter(l -> l.equals("server DISCONNECT EVENT...")).count(), s.out());
        }
        finally
        {
            threads.shutdownNow();
        }
    }

    @Test
    void shouldRefuseASourceAddressThePortDoesNotHave()
    {
        final Registered ports = register();
        final CapturedRun c = run(List.of("--port", "memory", "--iface", ports.name + "-c", "-c", "-a", "10.91.0.1",
            "-I", "10.91.0.9"));
        assertEquals(99, c.status(), c.out() + c.err());
        assertTrue(c.err().contains("-I 10.91.0.9 is not an address of " + ports.name + "-c"), c.err());
    }

    @Test
    void shouldRejectBadUsage() throws Exception
    {
        final CapturedRun none = run(List.of("-a", "10.91.0.1"));
        assertEquals(99, none.status());
        assertTrue(none.err().contains("give one of -s"), none.err());
    }

    /** Two in-memory ports known to the tools as NAME-s and NAME-c; the server's signals its engine's start. */
    private record Registered(String name, EngineStartSignalPort server)
    {
    }

    /**
     * {@code -t 104} (rping's type of service, DSCP 26) and {@code --vlan 10} on both sides of an in-memory link, which
     * hands frames over tagged, as a DPDK port does: ARP runs on the VLAN (the tagged requests and replies are
     * understood), and every packet of the connection, both ways, carries DSCP 26 and VLAN 10 (PCP 0: the CM gives
     * SL 0), in the client's capture.
     */
    @Test
    void shouldConnectAtTheTypeOfServiceOnTheVlan() throws Exception
    {
        final Registered ports = register();
        final java.nio.file.Path pcap = java.nio.file.Files.createTempFile("rping-tos", ".pcap");
        final List<String> common = List.of("--port", "memory", "--idle", "yield", "--timeout-ms", "30000",
            "-C", "2", "-S", "64", "-a", "10.91.0.1", "-t", "104", "--vlan", "10");
        final List<String> server = new ArrayList<>(common);
        server.addAll(List.of("--iface", ports.name + "-s", "-s"));
        final List<String> client = new ArrayList<>(common);
        client.addAll(List.of("--iface", ports.name + "-c", "-c", "--pcap", pcap.toString()));
        final ExecutorService threads = Executors.newFixedThreadPool(1);
        final CapturedRun c;
        final CapturedRun s;
        try
        {
            final Future<CapturedRun> serverRun = threads.submit(() -> run(server));
            assertTrue(ports.server.awaitEngineStart(60_000), "the server never started its engine");
            c = run(client);
            s = serverRun.get(60, TimeUnit.SECONDS);
        }
        finally
        {
            threads.shutdownNow();
        }
        assertEquals(0, c.status(), "client:\n" + c.out() + c.err() + "\nserver:\n" + s.out() + s.err());
        assertEquals(0, s.status(), "server:\n" + s.out() + s.err());

        int fromClient = 0;
        int fromServer = 0;
        final io.rnic.wire.InboundValidator validator = new io.rnic.wire.InboundValidator();
        final io.rnic.wire.RocePacket packet = new io.rnic.wire.RocePacket();
        try (io.rnic.pcap.PcapReader reader = io.rnic.pcap.PcapReader.open(pcap))
        {
            while (reader.next())
            {
                final org.agrona.concurrent.UnsafeBuffer frame =
                    new org.agrona.concurrent.UnsafeBuffer(new byte[reader.frameLength()]);
                frame.putBytes(0, reader.frame(), 0, reader.frameLength());
                assertTrue((frame.getShort(12, java.nio.ByteOrder.BIG_ENDIAN) & 0xFFFF) == 0x8100,
                    "frame " + reader.frameNumber() + " tagged, ARP included");
                if (validator.validate(frame, 0, frame.capacity(), packet) != io.rnic.wire.DropReason.NONE ||
                    packet.destinationQp() == 1)
                {
                    continue; // ARP; the CM's MADs on QP1
                }
                assertEquals(10, packet.vlanTci() & 0xFFF);
                assertEquals(0, packet.vlanTci() >>> 13, "PCP 0: SL 0");
                assertEquals(26, packet.dscp(), "frame " + reader.frameNumber());
                if (new io.rnic.wire.EthernetFlyweight().wrapAt(frame, 0).sourceMac() == MAC_CLIENT)
                {
                    fromClient++;
                }
                else
                {
                    fromServer++;
                }
            }
        }
        assertTrue(fromClient > 4 && fromServer > 4, fromClient + " / " + fromServer + " packets");
        java.nio.file.Files.delete(pcap);
    }

    private static Registered register()
    {
        final String name = "rping-" + ThreadLocalRandom.current().nextInt(1 << 20);
        final InMemoryPort[] ports = InMemoryPort.pair(MAC_SERVER, MAC_CLIENT, 4096, 1 << 22);
        final EngineStartSignalPort server = new EngineStartSignalPort(ports[0]);
        Ports.registerInMemory(name + "-s", server, addressing(MAC_SERVER, 1));
        Ports.registerInMemory(name + "-c", ports[1], addressing(MAC_CLIENT, 2));
        return new Registered(name, server);
    }

    private static LocalPort addressing(final long mac, final int host)
    {
        final LocalPort port = new LocalPort(mac).ethernetMtu(1500);
        port.addGid(0xFE80_0000_0000_0000L, InterfaceAddresses.eui64(mac));
        port.addIpv4(0x0A5B_0000 | host);
        return port;
    }

    /**
     * Server first: the client starts once the server's engine runs (its CM comes next; a REQ before it is sent
     * again after 4.3 s, within the tests' timeouts); {client, server}.
     */
    private static CapturedRun[] runPair(final Registered ports, final List<String> common) throws Exception
    {
        final List<String> server = new ArrayList<>(common);
        server.addAll(List.of("--iface", ports.name + "-s", "-s"));
        final List<String> client = new ArrayList<>(common);
        client.addAll(List.of("--iface", ports.name + "-c", "-c"));
        final ExecutorService threads = Executors.newFixedThreadPool(2);
        try
        {
            final Future<CapturedRun> serverRun = threads.submit(() -> run(server));
            assertTrue(ports.server.awaitEngineStart(60_000), "the server never started its engine");
            final Future<CapturedRun> clientRun = threads.submit(() -> run(client));
            return new CapturedRun[]{ clientRun.get(60, TimeUnit.SECONDS), serverRun.get(60, TimeUnit.SECONDS) };
        }
        finally
        {
            threads.shutdownNow();
        }
    }


    private static CapturedRun run(final List<String> args)
    {
        return CapturedRun.of(Rping::run, args);
    }
}
