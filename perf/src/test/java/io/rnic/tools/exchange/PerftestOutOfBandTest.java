package io.rnic.tools.exchange;

import io.rnic.tools.RemoteQp;
import io.rnic.tools.TcpPorts;
import io.rnic.tools.ToolKind;
import org.junit.jupiter.api.Test;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * perftest's exchange against the bytes perftest 4.5-0.17 put on TCP 18515 between two rxe guests
 * ({@code shared/rxe-peer/pcaps/ib_write_bw.pcap}, {@code ib_send_lat.pcap}, {@code ib_read_bw.pcap}): the codecs
 * byte for byte, and whole conversations replayed by a scripted peer that plays the captured side.
 */
class PerftestOutOfBandTest
{
    private static final HexFormat HEX = HexFormat.of();
    /** ib_write_bw client (10.77.0.3) key message, frame 14. */
    private static final String WRITE_BW_CLIENT_KEYS =
        "0000:0001:000022:58374d:0000168a:000055e88c6c7000:00:00:00:00:00:00:00:00:00:00:ff:ff:0a:4d:00:03:00000000:";
    /** ib_read_bw server (10.77.0.2) key message, frame 15: out_reads 0x80 (rxe's max_qp_rd_atom). */
    private static final String READ_BW_SERVER_KEYS =
        "0000:0080:000023:b1ae0e:0000168d:00005593377df000:00:00:00:00:00:00:00:00:00:00:ff:ff:0a:4d:00:02:00000000:";
    /** ib_send_lat server (10.77.0.2) key message, frame 15. */
    private static final String SEND_LAT_SERVER_KEYS =
        "0000:0001:000025:eb9265:00000000:0000564b82167000:00:00:00:00:00:00:00:00:00:00:ff:ff:0a:4d:00:02:00000000:";
    private static final long GID_HIGH = 0;
    private static final long GID_LOW_10_77_0_3 = 0x0000_FFFF_0A4D_0003L;

    @Test
    void shouldEncodeKeysAsPerftestDoes()
    {
        final byte[] captured = HEX.parseHex(
            "303030303a303030313a3030303032323a3538333734643a30303030313638613a303030303535653838633663373030" +
            "303a30303a30303a30303a30303a30303a30303a30303a30303a30303a30303a66663a66663a30613a34643a30303a30" +
            "333a30303030303030303a00");
        final byte[] ours = PerftestOutOfBand.padded(PerftestOutOfBand.encode(1, 0x22, 0x58374d, 0x168a,
            0x55e88c6c7000L, GID_HIGH, GID_LOW_10_77_0_3));
        assertEquals(PerftestOutOfBand.KEY_BYTES, captured.length);
        assertArrayEquals(captured, ours);
    }

    @Test
    void shouldDecodeCapturedKeys() throws IOException
    {
        final RemoteQp qp = PerftestOutOfBand.decode(PerftestOutOfBand.padded(READ_BW_SERVER_KEYS), "guest");
        assertEquals(new RemoteQp(0x23, 0xb1ae0e, 0x168d, 0x5593377df000L, 0, 0x0000_FFFF_0A4D_0002L, 0x80), qp);
    }

    @Test
    void shouldEncodeTheSmallMessagesAsPerftestDoes() throws IOException
    {
        final byte[] version = PerftestOutOfBand.versionMessage();
        assertEquals(16, version.length);
        assertEquals("6.06", TcpChannel.text(version));
        assertTrue(PerftestOutOfBand.isRnicVersion(version));
        assertFalse(PerftestOutOfBand.isRnicVersion(HEX.parseHex("362e3036000000000000000000000000")));
        assertArrayEquals(HEX.parseHex("00001000"), PerftestOutOfBand.intMessage(4096));
        assertArrayEquals(HEX.parseHex("00000040"), PerftestOutOfBand.intMessage(64));
        assertArrayEquals(HEX.parseHex("3300"), PerftestOutOfBand.mtuMessage(1024));
        assertArrayEquals(HEX.parseHex("3500"), PerftestOutOfBand.mtuMessage(4096));
        assertEquals(3, PerftestOutOfBand.decodeMtu(HEX.parseHex("3300"), "guest"));
        assertArrayEquals(HEX.parseHex("0000000000004000"), PerftestOutOfBand.longMessage(16384));
        assertEquals(9.65, ByteBuffer.wrap(HEX.parseHex("40234e0d6eb25aef")).getDouble(), 0.005);
        assertArrayEquals(HEX.parseHex("646f6e6500"), "done\0".getBytes(StandardCharsets.US_ASCII));
    }

    /** Our server against the captured ib_write_bw client: 3 barriers, the test, 1, the reports, 1, "done". */
    @Test
    void shouldServeTheCapturedWriteBandwidthClient() throws Exception
    {
        final String keys = hex(PerftestOutOfBand.padded(WRITE_BW_CLIENT_KEYS));
        final List<Step> script = new ArrayList<>(List.of(
            Step.send("362e3036000000000000000000000000"), Step.receive(16),
            Step.send("00001000"), Step.receive(4), Step.send("00000040"), Step.receive(4),
            Step.send("3300"), Step.receive(2)));
        for (int i = 0; i < 4; i++)
        {
            script.addAll(List.of(Step.send(keys), Step.receive(108)));
        }
        for (final String field : List.of("0000000000004000", "0000000000000014", "40234e0d6eb25aef",
            "4022b4a5ff416950", "3f439d43061df491"))
        {
            script.addAll(List.of(Step.send(field), Step.receive(8)));
        }
        script.addAll(List.of(Step.send(keys), Step.receive(108), Step.send("646f6e6500"), Step.receive(5)));

        final int port = TcpPorts.free();
        final CompletableFuture<List<byte[]>> peer = CompletableFuture.supplyAsync(() -> playClient(port, script));
        final byte[] mine = PerftestOutOfBand.padded(PerftestOutOfBand.encode(0x31, 0x123456, 0x2000,
            0x7f0000001000L, 0, 0x0000_FFFF_0A4D_0001L));
        final OutOfBand.BandwidthReport report;
        try (PerftestOutOfBand oob = PerftestOutOfBand.open(ToolKind.WRITE_BW, null, "127.0.0.1", port,
            new TcpChannel.ServerWait(10_000, () -> null), 10_000, 1024))
        {
            assertFalse(oob.peerIsRnic());
            assertEquals(1024, oob.pathMtu(4096));
            assertEquals(4096, oob.peerCycleBuffer());
            final RemoteQp[] remote = oob.exchangeKeys(new byte[][] {mine}, r -> { });
            assertEquals(0x22, remote[0].qpn());
            assertEquals(0x58374d, remote[0].psn());
            assertEquals(0x55e88c6c7000L, remote[0].regionAddress());
            oob.sync();
            report = oob.finish(null);
        }
        final List<byte[]> received = peer.get(10, TimeUnit.SECONDS);
        assertEquals("6.06", TcpChannel.text(received.get(0)));
        assertEquals("00001000", hex(received.get(1)));
        assertEquals("00000040", hex(received.get(2)));
        assertEquals("3300", hex(received.get(3)));
        for (int i = 4; i < 8; i++)
        {
            assertArrayEquals(mine, received.get(i));
        }
        for (int i = 8; i < 13; i++)
        {
            assertEquals("0000000000000000", hex(received.get(i)), "a server that measured nothing reports zeros");
        }
        assertArrayEquals(mine, received.get(13));
        assertEquals("646f6e6500", hex(received.get(14)));
        assertEquals(16384, report.size());
        assertEquals(20, report.iterations());
        assertEquals(9.65, report.peakMBps(), 0.005);
        assertEquals(9.35, report.averageMBps(), 0.005);
        assertEquals(0.000599, report.messageRateMpps(), 0.0000005);
    }

    /**
     * Two QPs, as perftest 4.5's ib_write_bw -q 2 client has them (seen on the wire against rxe): each QP's keys
     * twice (the second round is the one perftest keeps, so each QP's go again, not QP 0's), then 1 barrier, the
     * test, 1, the reports, 1, "done".
     */
    @Test
    void shouldSwapEveryQpsKeysTwiceWithSeveralQps() throws Exception
    {
        final String first = hex(PEER_QP0_KEYS);
        final String second = hex(PEER_QP1_KEYS);
        final List<Step> script = new ArrayList<>(List.of(
            Step.send("362e3036000000000000000000000000"), Step.receive(16),
            Step.send("00001000"), Step.receive(4), Step.send("00000040"), Step.receive(4),
            Step.send("3300"), Step.receive(2)));
        for (int round = 0; round < 2; round++)
        {
            script.addAll(List.of(Step.send(first), Step.receive(108), Step.send(second), Step.receive(108)));
        }
        for (int barrier = 0; barrier < 2; barrier++) // after RTR; after the test
        {
            script.addAll(List.of(Step.send(first), Step.receive(108)));
        }
        for (int field = 0; field < 5; field++)
        {
            script.addAll(List.of(Step.send("0000000000000000"), Step.receive(8)));
        }
        script.addAll(List.of(Step.send(first), Step.receive(108), Step.send("646f6e6500"), Step.receive(5)));

        final List<byte[]> received = serveTwoQps(ToolKind.WRITE_BW, script);
        for (int i = 4; i < 8; i += 2)
        {
            assertArrayEquals(MY_QP0_KEYS, received.get(i), "QP 0's keys, round " + (i - 2) / 2);
            assertArrayEquals(MY_QP1_KEYS, received.get(i + 1), "QP 1's keys, round " + (i - 2) / 2);
        }
        assertArrayEquals(MY_QP0_KEYS, received.get(8), "the barrier after RTR");
        assertEquals("646f6e6500", hex(received.get(received.size() - 1)));
    }

    /**
     * ib_send_bw -q 2 as perftest 4.5's send_bw.c meets: both QPs' keys, QP 0's alone once the QPs are at RTS, both
     * QPs' keys again (the round it prints), then one barrier after posting receives; the test; one more and "done".
     * Without the barrier between the rounds, QP 1 took QP 0's keys of the second round and rxe never answered it.
     */
    @Test
    void shouldMeetOnceBetweenTheKeyRoundsOfSendBandwidthWithSeveralQps() throws Exception
    {
        final String first = hex(PEER_QP0_KEYS);
        final String second = hex(PEER_QP1_KEYS);
        final List<Step> script = new ArrayList<>(List.of(
            Step.send("362e3036000000000000000000000000"), Step.receive(16),
            Step.send("00001000"), Step.receive(4), Step.send("00000040"), Step.receive(4),
            Step.send("3300"), Step.receive(2),
            Step.send(first), Step.receive(108), Step.send(second), Step.receive(108), // keys
            Step.send(first), Step.receive(108), // after RTS
            Step.send(first), Step.receive(108), Step.send(second), Step.receive(108), // keys, printed
            Step.send(first), Step.receive(108), // receives posted
            Step.send(first), Step.receive(108), Step.send("646f6e6500"), Step.receive(5))); // close

        final List<byte[]> received = serveTwoQps(ToolKind.SEND_BW, script);
        assertArrayEquals(MY_QP0_KEYS, received.get(4), "QP 0's keys");
        assertArrayEquals(MY_QP1_KEYS, received.get(5), "QP 1's keys");
        assertArrayEquals(MY_QP0_KEYS, received.get(6), "the barrier at RTS");
        assertArrayEquals(MY_QP0_KEYS, received.get(7), "QP 0's keys, second round");
        assertArrayEquals(MY_QP1_KEYS, received.get(8), "QP 1's keys, second round");
        assertEquals(12, received.size());
        assertEquals("646f6e6500", hex(received.get(received.size() - 1)));
    }

    /** Our client against the captured ib_send_lat server: 4 barriers, the test, 1, "done"; the server answers. */
    @Test
    void shouldConnectToTheCapturedSendLatencyServer() throws Exception
    {
        final String keys = hex(PerftestOutOfBand.padded(SEND_LAT_SERVER_KEYS));
        final List<Step> script = new ArrayList<>(List.of(
            Step.receive(16), Step.send("362e3036000000000000000000000000"),
            Step.receive(4), Step.send("00001000"), Step.receive(4), Step.send("00000040"),
            Step.receive(2), Step.send("3300")));
        for (int i = 0; i < 5; i++)
        {
            script.addAll(List.of(Step.receive(108), Step.send(keys)));
        }
        script.addAll(List.of(Step.send("646f6e6500"), Step.receive(5)));
        try (ServerSocket listener = new ServerSocket())
        {
            listener.bind(new InetSocketAddress("127.0.0.1", 0));
            final CompletableFuture<List<byte[]>> peer = CompletableFuture.supplyAsync(() ->
            {
                try (Socket socket = listener.accept())
                {
                    return play(socket, script);
                }
                catch (final IOException ex)
                {
                    throw new IllegalStateException(ex);
                }
            });
            final byte[] mine = PerftestOutOfBand.padded(PerftestOutOfBand.encode(0x31, 0x123456, 0x2000,
                0x7f0000001000L, 0, 0x0000_FFFF_0A4D_0001L));
            try (PerftestOutOfBand oob = PerftestOutOfBand.open(ToolKind.SEND_LAT, "127.0.0.1", null,
                listener.getLocalPort(), new TcpChannel.ServerWait(10_000, () -> null), 10_000, 1024))
            {
                final RemoteQp[] remote = oob.exchangeKeys(new byte[][] {mine}, r -> { });
                assertEquals(0x25, remote[0].qpn());
                assertEquals(0xeb9265, remote[0].psn());
                oob.sync();
                assertEquals(null, oob.finish(null));
            }
            final List<byte[]> received = peer.get(10, TimeUnit.SECONDS);
            assertEquals(4 + 5 + 1, received.size());
            assertEquals("646f6e6500", hex(received.get(received.size() - 1)));
        }
    }

    private record Step(boolean send, byte[] bytes, int length)
    {
        static Step send(final String hex)
        {
            return new Step(true, HEX.parseHex(hex), 0);
        }

        static Step receive(final int length)
        {
            return new Step(false, null, length);
        }
    }

    /** Two QPs' keys each side: the peer's (a perftest client's) and ours. */
    private static final byte[] PEER_QP0_KEYS = PerftestOutOfBand.padded(PerftestOutOfBand.encode(0x22, 0x111111,
        0x404, 0x55e8_8c6c_7000L, 0, 0x0000_FFFF_0A4D_0002L));
    private static final byte[] PEER_QP1_KEYS = PerftestOutOfBand.padded(PerftestOutOfBand.encode(0x23, 0x222222,
        0x404, 0x55e8_8c6c_8000L, 0, 0x0000_FFFF_0A4D_0002L));
    private static final byte[] MY_QP0_KEYS = PerftestOutOfBand.padded(PerftestOutOfBand.encode(0x31, 0x123456,
        0x2000, 0x7f00_0000_1000L, 0, 0x0000_FFFF_0A4D_0001L));
    private static final byte[] MY_QP1_KEYS = PerftestOutOfBand.padded(PerftestOutOfBand.encode(0x32, 0x654321,
        0x2000, 0x7f00_0000_2000L, 0, 0x0000_FFFF_0A4D_0001L));

    /**
     * Our server of {@code kind} with two QPs against a client playing {@code script}: each QP takes the peer's keys
     * of its own QP; returns what we sent.
     */
    private static List<byte[]> serveTwoQps(final ToolKind kind, final List<Step> script) throws Exception
    {
        final int port = TcpPorts.free();
        final CompletableFuture<List<byte[]>> peer = CompletableFuture.supplyAsync(() -> playClient(port, script));
        try (PerftestOutOfBand oob = PerftestOutOfBand.open(kind, null, "127.0.0.1", port,
            new TcpChannel.ServerWait(10_000, () -> null), 10_000, 1024))
        {
            final RemoteQp[] remote = oob.exchangeKeys(new byte[][] {MY_QP0_KEYS, MY_QP1_KEYS}, r -> { });
            assertEquals(0x22, remote[0].qpn());
            assertEquals(0x23, remote[1].qpn());
            assertEquals(0x55e8_8c6c_8000L, remote[1].regionAddress());
            oob.sync();
            oob.finish(null);
        }
        return peer.get(10, TimeUnit.SECONDS);
    }

    private static List<byte[]> playClient(final int port, final List<Step> script)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true)
        {
            try (Socket socket = new Socket())
            {
                socket.connect(new InetSocketAddress("127.0.0.1", port));
                return play(socket, script);
            }
            catch (final ConnectException ex)
            {
                if (System.nanoTime() > deadline)
                {
                    throw new IllegalStateException(ex);
                }
                java.util.concurrent.locks.LockSupport.parkNanos(20_000_000L);
            }
            catch (final IOException ex)
            {
                throw new IllegalStateException(ex);
            }
        }
    }

    /** Writes the captured side's messages and reads ours, in the captured order; returns what we sent. */
    private static List<byte[]> play(final Socket socket, final List<Step> script) throws IOException
    {
        socket.setSoTimeout(10_000);
        final OutputStream out = socket.getOutputStream();
        final DataInputStream in = new DataInputStream(socket.getInputStream());
        final List<byte[]> received = new ArrayList<>();
        for (final Step step : script)
        {
            if (step.send())
            {
                out.write(step.bytes());
                out.flush();
            }
            else
            {
                final byte[] bytes = new byte[step.length()];
                in.readFully(bytes);
                received.add(bytes);
            }
        }
        return received;
    }

    private static String hex(final byte[] bytes)
    {
        return HEX.formatHex(bytes);
    }
}
