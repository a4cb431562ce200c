package io.rnic.tools.exchange;

import io.rnic.tools.LocalQp;
import io.rnic.tools.RemoteQp;
import java.io.IOException;
import java.util.HexFormat;
import java.util.function.Consumer;

/**
 * rdma-core's pingpong exchange ({@code ibv_rc_pingpong}, {@code ibv_ud_pingpong}), TCP port 18515: each side sends
 * a 52-byte NUL-terminated {@code "%04x:%06x:%06x:%s"} — LID (0 on RoCE), QPN, PSN, GID as 32 hex digits of its
 * bytes in order. The client writes first; the server connects its QP, then answers; the client connects and writes
 * {@code "done"} (5 bytes with the NUL). One QP; {@code ibv_srq_pingpong}'s exchange has one message per QP of a
 * fixed number of slots (its MAX_QP, 256), those past its QPs all zeros, each way ({@link #openSlots}).
 */
public final class PingpongOutOfBand implements OutOfBand
{
    static final int MESSAGE_BYTES = 52;
    static final int DONE_BYTES = 5;

    /** The messages {@code ibv_srq_pingpong} sends each way, whatever its {@code -q}. */
    public static final int SRQ_PINGPONG_SLOTS = 256;

    private final TcpChannel channel;
    private final boolean server;
    private final int slots;

    private PingpongOutOfBand(final TcpChannel channel, final boolean server, final int slots)
    {
        this.channel = channel;
        this.server = server;
        this.slots = slots;
    }

    /**
     * @param server   the server to connect to, or null to be the server.
     * @param bindHost the server's listening address (null: every address).
     * @param wait     how long and while what a server waits for its client.
     */
    public static PingpongOutOfBand open(final String server, final String bindHost, final int port,
        final TcpChannel.ServerWait wait, final long timeoutMs) throws IOException
    {
        return openSlots(server, bindHost, port, wait, timeoutMs, 1);
    }

    /** As {@link #open}, with {@code slots} messages each way for up to that many QPs (the rest all zeros). */
    public static PingpongOutOfBand openSlots(final String server, final String bindHost, final int port,
        final TcpChannel.ServerWait wait, final long timeoutMs, final int slots) throws IOException
    {
        return new PingpongOutOfBand(TcpChannel.open(server, bindHost, port, wait, timeoutMs),
            server == null, slots);
    }

    static String encode(final int qpn, final int psn, final long gidHigh, final long gidLow)
    {
        return String.format("%04x:%06x:%06x:%016x%016x", 0, qpn, psn, gidHigh, gidLow);
    }

    static RemoteQp decode(final byte[] message, final String peer) throws IOException
    {
        final String text = TcpChannel.text(message);
        final String[] fields = text.split(":");
        if (fields.length != 4 || fields[0].length() != 4 || fields[1].length() != 6 || fields[2].length() != 6 ||
            fields[3].length() != 32)
        {
            throw new IOException("malformed pingpong message from " + peer + ": '" + text + "' (expected " +
                "LID:QPN:PSN:GID as %04x:%06x:%06x:32 hex digits)");
        }
        try
        {
            final int qpn = Integer.parseInt(fields[1], 16);
            final int psn = Integer.parseInt(fields[2], 16);
            final byte[] gid = HexFormat.of().parseHex(fields[3]);
            return new RemoteQp(qpn, psn, 0, 0, longAt(gid, 0), longAt(gid, 8));
        }
        catch (final IllegalArgumentException ex)
        {
            throw new IOException("malformed pingpong message from " + peer + ": '" + text + "': " +
                ex.getMessage());
        }
    }

    @Override
    public RemoteQp[] exchange(final LocalQp[] local, final long gidHigh, final long gidLow,
        final Consumer<RemoteQp[]> connect) throws IOException
    {
        if (local.length > slots)
        {
            throw new IllegalArgumentException("the pingpong exchange carries " + slots + " QP" +
                (slots == 1 ? "" : "s") + ", not " + local.length);
        }
        final RemoteQp[] remote = new RemoteQp[local.length];
        if (server)
        {
            readAll(remote);
            connect.accept(remote);
            writeAll(local, gidHigh, gidLow);
        }
        else
        {
            writeAll(local, gidHigh, gidLow);
            readAll(remote);
            connect.accept(remote);
        }
        return remote;
    }

    /** Our QPs' messages, then zeros ({@code ibv_srq_pingpong}'s unused slots) up to {@link #slots}. */
    private void writeAll(final LocalQp[] local, final long gidHigh, final long gidLow) throws IOException
    {
        for (int i = 0; i < slots; i++)
        {
            channel.writeString(i < local.length ? encode(local[i].qp.qpn(), local[i].psn, gidHigh, gidLow) :
                encode(0, 0, 0, 0), MESSAGE_BYTES);
        }
    }

    /** The peer's {@link #slots} messages; the first of them name its QPs, one for each of ours. */
    private void readAll(final RemoteQp[] remote) throws IOException
    {
        for (int i = 0; i < slots; i++)
        {
            final RemoteQp qp = decode(channel.read(MESSAGE_BYTES, "pingpong address"), channel.peer());
            if (i < remote.length)
            {
                remote[i] = qp;
            }
        }
    }

    /** The tools' "done": the client is connected and ready. */
    @Override
    public void sync() throws IOException
    {
        if (server)
        {
            final String done = TcpChannel.text(channel.read(DONE_BYTES, "\"done\""));
            if (!done.equals("done"))
            {
                throw new IOException("expected \"done\" from " + channel.peer() + ", got '" + done + "'");
            }
        }
        else
        {
            channel.writeString("done", DONE_BYTES);
        }
    }

    @Override
    public boolean hasClosingBarrier()
    {
        return false;
    }

    /** rdma-core's pingpongs have no barrier after the test. */
    @Override
    public BandwidthReport finish(final BandwidthReport mine)
    {
        return null;
    }

    @Override
    public void close()
    {
        channel.close();
    }

    private static long longAt(final byte[] bytes, final int offset)
    {
        long value = 0;
        for (int i = 0; i < 8; i++)
        {
            value = (value << 8) | (bytes[offset + i] & 0xFF);
        }
        return value;
    }
}
