package io.rnic.tools.exchange;

import io.rnic.tools.LocalQp;
import io.rnic.tools.RemoteQp;
import io.rnic.tools.ToolKind;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/**
 * perftest's exchange ({@code ib_write_bw} …) on TCP port 18515, byte for byte as perftest 4.5 (version 6.06) has it
 * (see {@code shared/rxe-peer/pcaps}). At every step the client writes first and the server answers:
 * <ol>
 * <li>version: 16 bytes, NUL-terminated {@code "6.06"} ({@code exchange_versions});</li>
 * <li>{@code check_sys_data}: the cycle buffer size and the cache line size, each a 4-byte big-endian int (4096,
 *     64);</li>
 * <li>{@code check_mtu}: the active MTU as its {@code enum ibv_mtu} in ASCII, 2 bytes ({@code "3\0"} = 1024); both
 *     sides use the smaller;</li>
 * <li>per QP the 108-byte key message {@code "%04x:%04x:%06x:%06x:%08x:%016x:"} (LID, outstanding reads, QPN, PSN,
 *     R_Key, buffer address) + the GID as 16 {@code "%02x:"} + {@code "%08x:"} (SRQ number) + NUL; then the same
 *     messages a second time, one per QP (perftest keeps the second round's; {@code ib_send_bw} meets once, with QP
 *     0's message, between the two rounds); then QP 0's message again at each of perftest's {@code ctx_hand_shake}
 *     barriers — how many depends on the test;</li>
 * <li>after the test: WRITE/READ/atomic bandwidth tests meet once more and exchange their {@code bw_report_data}
 *     (size, iterations as 8-byte big-endian integers; peak MB/s, average MB/s, Mpps as big-endian doubles — a
 *     server that measured nothing sends whatever its stack held); then {@code ctx_close_connection}: one more
 *     barrier, and each side writes {@code "done\0"} without waiting for the other's.</li>
 * </ol>
 * Our version message is {@code "6.06"}, a NUL, then {@code "rnic"}: perftest reads only the string, and an rnic
 * peer learns that it talks to its own kind (which runs the same warm-up iterations).
 */
public final class PerftestOutOfBand implements OutOfBand
{
    static final int VERSION_BYTES = 16;
    static final int KEY_BYTES = 108;
    /** Rounds of key messages, one message per QP each (perftest 4.5 swaps every QP's keys twice). */
    static final int KEY_ROUNDS = 2;
    static final int MTU_BYTES = 2;
    static final int REPORT_FIELD_BYTES = 8;
    static final int DONE_BYTES = 5;
    static final String VERSION = "6.06";
    static final String RNIC_MARK = "rnic";
    static final int CYCLE_BUFFER = 4096;
    static final int CACHE_LINE = 64;
    /** What we let the peer have outstanding (our max_dest_rd_atomic), announced as out_reads. */
    public static final int OUT_READS = 16;

    /**
     * How one perftest test meets: barriers before the test counting the key exchange, and what follows it.
     * From the captures of perftest 4.5-0.17 between two rxe guests (pcaps/, and ib_write_lat, ib_atomic_lat
     * captured the same way).
     */
    record Script(int handshakesBefore, int barriersBetweenKeyRounds, boolean bandwidthReports,
        boolean closeConnection)
    {
        static Script of(final ToolKind kind)
        {
            return switch (kind)
            {
                case WRITE_BW, READ_BW, ATOMIC_BW -> new Script(3, 0, true, true);
                // send_bw meets once (QP 0's keys) after its QPs reach RTS, between the two key rounds: with -q 2 a
                // peer that swapped the second round at once took QP 0's keys for QP 1 (rxe never answered it)
                case SEND_BW -> new Script(4, 1, false, true);
                case SEND_LAT, READ_LAT, ATOMIC_LAT -> new Script(4, 0, false, true); // one QP: any order is QP 0's
                case WRITE_LAT -> new Script(4, 0, false, false); // no ctx_close_connection: both just exit
                default -> throw new IllegalArgumentException(kind + " does not use perftest's exchange");
            };
        }
    }

    private final TcpChannel channel;
    private final boolean server;
    private final Script script;
    private byte[] lastKeys;
    private boolean peerIsRnic;
    private String peerVersion;
    private int peerMtuEnum;
    private int peerCycleBuffer;

    private PerftestOutOfBand(final TcpChannel channel, final boolean server, final Script script)
    {
        this.channel = channel;
        this.server = server;
        this.script = script;
    }

    /**
     * @param server   the server to connect to, or null to be the server.
     * @param bindHost the server's listening address (null: every address).
     * @param wait     how long and while what a server waits for its client.
     * @param mtu      our IB path MTU in bytes.
     */
    public static PerftestOutOfBand open(final ToolKind kind, final String server, final String bindHost, final int port,
        final TcpChannel.ServerWait wait, final long timeoutMs, final int mtu) throws IOException
    {
        final PerftestOutOfBand oob =
            new PerftestOutOfBand(TcpChannel.open(server, bindHost, port, wait, timeoutMs), server == null,
                Script.of(kind));
        try
        {
            oob.prologue(mtu);
        }
        catch (final IOException ex)
        {
            oob.close();
            throw ex;
        }
        return oob;
    }

    /** Client writes, then reads; server reads, then writes (perftest's {@code ctx_xchg_data}). */
    private byte[] swap(final byte[] mine, final String what) throws IOException
    {
        if (server)
        {
            final byte[] theirs = channel.read(mine.length, what);
            channel.write(mine);
            return theirs;
        }
        channel.write(mine);
        return channel.read(mine.length, what);
    }

    private void prologue(final int mtu) throws IOException
    {
        final byte[] version = swap(versionMessage(), "perftest version");
        peerVersion = TcpChannel.text(version);
        peerIsRnic = isRnicVersion(version);
        if (!peerVersion.matches("\\d+\\.\\d+") || compareVersions(peerVersion, "5.70") < 0)
        {
            throw new IOException("the peer " + channel.peer() + " speaks perftest version '" + peerVersion +
                "'; we speak " + VERSION + " (and need 5.70 or later)");
        }
        peerCycleBuffer = ByteBuffer.wrap(swap(intMessage(CYCLE_BUFFER), "perftest cycle buffer size")).getInt();
        swap(intMessage(CACHE_LINE), "perftest cache line size"); // ours is what perftest assumes; unused
        peerMtuEnum = decodeMtu(swap(mtuMessage(mtu), "perftest MTU"), channel.peer());
    }

    static byte[] versionMessage()
    {
        final byte[] bytes = new byte[VERSION_BYTES];
        put(bytes, 0, VERSION);
        put(bytes, VERSION.length() + 1, RNIC_MARK);
        return bytes;
    }

    static boolean isRnicVersion(final byte[] message)
    {
        final String text = TcpChannel.text(message);
        final int mark = text.length() + 1;
        return mark + RNIC_MARK.length() <= message.length &&
            new String(message, mark, RNIC_MARK.length(), StandardCharsets.US_ASCII).equals(RNIC_MARK);
    }

    static byte[] intMessage(final int value)
    {
        return ByteBuffer.allocate(4).putInt(value).array();
    }

    /** {@code enum ibv_mtu}: 256 → 1 … 4096 → 5. */
    static int mtuEnum(final int bytes)
    {
        return Integer.numberOfTrailingZeros(bytes) - 7;
    }

    static byte[] mtuMessage(final int bytes)
    {
        final byte[] message = new byte[MTU_BYTES];
        message[0] = (byte)('0' + mtuEnum(bytes));
        return message;
    }

    static int decodeMtu(final byte[] message, final String peer) throws IOException
    {
        final String text = TcpChannel.text(message);
        if (!text.matches("[1-5]"))
        {
            throw new IOException("malformed perftest MTU from " + peer + ": '" + text + "' (expected 1..5)");
        }
        return Integer.parseInt(text);
    }

    @Override
    public boolean hasClosingBarrier()
    {
        return script.closeConnection(); // ib_write_lat: both sides just exit (PerftestTool then lingers)
    }

    @Override
    public int pathMtu(final int ours)
    {
        return Math.min(ours, 128 << peerMtuEnum);
    }

    @Override
    public boolean peerIsRnic()
    {
        return peerIsRnic;
    }

    String peerVersion()
    {
        return peerVersion;
    }

    /** The peer's cycle buffer: a perftest peer spreads WRITEs/READs/atomics over that much of our buffer. */
    int peerCycleBuffer()
    {
        return peerCycleBuffer;
    }

    static String encode(final int qpn, final int psn, final int rKey, final long address, final long gidHigh,
        final long gidLow)
    {
        return encode(OUT_READS, qpn, psn, rKey, address, gidHigh, gidLow);
    }

    static String encode(final int outReads, final int qpn, final int psn, final int rKey, final long address,
        final long gidHigh, final long gidLow)
    {
        final StringBuilder text = new StringBuilder(KEY_BYTES);
        text.append(String.format("%04x:%04x:%06x:%06x:%08x:%016x:", 0, outReads, qpn, psn, rKey, address));
        for (int i = 0; i < 16; i++)
        {
            final long word = i < 8 ? gidHigh : gidLow;
            text.append(String.format("%02x:", (word >>> (56 - 8 * (i % 8))) & 0xFF));
        }
        text.append(String.format("%08x:", 0));
        return text.toString();
    }

    static RemoteQp decode(final byte[] message, final String peer) throws IOException
    {
        final String text = TcpChannel.text(message);
        final String[] fields = text.split(":");
        if (fields.length != 23)
        {
            throw new IOException("malformed perftest key message from " + peer + ": '" + text + "' (" +
                fields.length + " fields, expected 23)");
        }
        try
        {
            final int outReads = Integer.parseInt(fields[1], 16);
            final int qpn = Integer.parseInt(fields[2], 16);
            final int psn = Integer.parseInt(fields[3], 16);
            final int rKey = (int)Long.parseLong(fields[4], 16);
            final long address = Long.parseUnsignedLong(fields[5], 16);
            long high = 0;
            long low = 0;
            for (int i = 0; i < 16; i++)
            {
                final int b = Integer.parseInt(fields[6 + i], 16);
                if (i < 8)
                {
                    high = (high << 8) | b;
                }
                else
                {
                    low = (low << 8) | b;
                }
            }
            return new RemoteQp(qpn, psn, rKey, address, high, low, outReads);
        }
        catch (final NumberFormatException ex)
        {
            throw new IOException("malformed perftest key message from " + peer + ": '" + text + "': " +
                ex.getMessage());
        }
    }

    @Override
    public RemoteQp[] exchange(final LocalQp[] local, final long gidHigh, final long gidLow,
        final Consumer<RemoteQp[]> connect) throws IOException
    {
        final byte[][] mine = new byte[local.length][];
        for (int i = 0; i < local.length; i++)
        {
            final LocalQp q = local[i];
            mine[i] = padded(encode(q.qp.qpn(), q.psn, q.rKey, q.announcedAddress(), gidHigh, gidLow));
        }
        return exchangeKeys(mine, connect);
    }

    /**
     * The key messages, one per QP, already encoded: each swapped with the peer's, in two rounds, as perftest 4.5
     * does (the second is the one it prints and keeps: {@code rem_dest[i]} is overwritten, so each QP's keys go
     * again, not QP 0's); then {@code connect}.
     */
    RemoteQp[] exchangeKeys(final byte[][] mine, final Consumer<RemoteQp[]> connect) throws IOException
    {
        final RemoteQp[] remote = new RemoteQp[mine.length];
        lastKeys = mine[0];
        for (int round = 0; round < KEY_ROUNDS; round++)
        {
            for (int b = 0; round > 0 && b < script.barriersBetweenKeyRounds(); b++)
            {
                handShake();
            }
            for (int i = 0; i < mine.length; i++)
            {
                remote[i] = decode(swap(mine[i], round == 0 ? "perftest keys" : "perftest keys, second round"),
                    channel.peer());
            }
        }
        connect.accept(remote);
        return remote;
    }

    /**
     * The remaining barriers before the test (perftest: after RTR, after posting receives, …): the script's count
     * less the two key rounds and the barriers between them (with one QP they are its first hand-shakes).
     */
    @Override
    public void sync() throws IOException
    {
        for (int i = KEY_ROUNDS + script.barriersBetweenKeyRounds(); i < script.handshakesBefore(); i++)
        {
            handShake();
        }
    }

    @Override
    public void barrier() throws IOException
    {
        handShake();
    }

    @Override
    public BandwidthReport finish(final BandwidthReport mine) throws IOException
    {
        BandwidthReport theirs = null;
        if (script.bandwidthReports())
        {
            handShake();
            theirs = swapReports(mine != null ? mine : BandwidthReport.NONE);
        }
        if (script.closeConnection())
        {
            handShake();
            channel.writeString("done", DONE_BYTES);
            channel.readQuietly(DONE_BYTES); // the peer's "done": read it so that our close is not a reset
        }
        return theirs;
    }

    private void handShake() throws IOException
    {
        swap(lastKeys, "perftest hand-shake");
    }

    private BandwidthReport swapReports(final BandwidthReport mine) throws IOException
    {
        final long size = ByteBuffer.wrap(swap(longMessage(mine.size()), "perftest report")).getLong();
        final long iterations = ByteBuffer.wrap(swap(longMessage(mine.iterations()), "perftest report")).getLong();
        final double peak = ByteBuffer.wrap(swap(doubleMessage(mine.peakMBps()), "perftest report")).getDouble();
        final double average =
            ByteBuffer.wrap(swap(doubleMessage(mine.averageMBps()), "perftest report")).getDouble();
        final double rate =
            ByteBuffer.wrap(swap(doubleMessage(mine.messageRateMpps()), "perftest report")).getDouble();
        return new BandwidthReport(size, iterations, peak, average, rate);
    }

    static byte[] longMessage(final long value)
    {
        return ByteBuffer.allocate(REPORT_FIELD_BYTES).putLong(value).array();
    }

    static byte[] doubleMessage(final double value)
    {
        return ByteBuffer.allocate(REPORT_FIELD_BYTES).putDouble(value).array();
    }

    @Override
    public void watchPeer(final PeerActivity activity)
    {
        channel.watch(activity);
    }

    @Override
    public void close()
    {
        channel.close();
    }

    static byte[] padded(final String text)
    {
        final byte[] bytes = new byte[KEY_BYTES];
        put(bytes, 0, text.substring(0, Math.min(text.length(), KEY_BYTES - 1)));
        return bytes;
    }

    private static void put(final byte[] bytes, final int offset, final String text)
    {
        final byte[] ascii = text.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(ascii, 0, bytes, offset, ascii.length);
    }

    /** perftest compares versions with strverscmp; ours are "major.minor" with a two-digit minor. */
    static int compareVersions(final String a, final String b)
    {
        final String[] x = a.split("\\.");
        final String[] y = b.split("\\.");
        final int major = Integer.compare(Integer.parseInt(x[0]), Integer.parseInt(y[0]));
        return major != 0 ? major : Integer.compare(Integer.parseInt(x[1]), Integer.parseInt(y[1]));
    }
}
