package io.rnic.tools;

import java.io.IOException;
import java.util.function.Consumer;

/**
 * perftest's exchange ({@code ib_write_bw} …), TCP port 18515: a 16-byte version string each way, then per QP the
 * 108-byte key message {@code "%04x:%04x:%06x:%06x:%08x:%016x:"} (LID, outstanding reads, QPN, PSN, R_Key, buffer
 * address) followed by the GID as 16 {@code "%02x:"} and {@code "%08x:"} (SRQ number) and a NUL. Barriers repeat
 * the key exchange, as perftest's {@code ctx_hand_shake} does; the client writes first at every step, the server
 * answers.
 */
final class PerftestOutOfBand implements OutOfBand
{
    static final int VERSION_BYTES = 16;
    static final int KEY_BYTES = 108;
    static final String VERSION = "6.06";

    private final TcpChannel channel;
    private final boolean server;
    private byte[] lastKeys;

    private PerftestOutOfBand(final TcpChannel channel, final boolean server)
    {
        this.channel = channel;
        this.server = server;
    }

    /**
     * @param server   the server to connect to, or null to be the server.
     * @param bindHost the server's listening address (null: every address).
     */
    static PerftestOutOfBand open(final String server, final String bindHost, final int port, final long timeoutMs)
        throws IOException
    {
        final PerftestOutOfBand oob =
            new PerftestOutOfBand(TcpChannel.open(server, bindHost, port, timeoutMs), server == null);
        try
        {
            oob.versions();
        }
        catch (final IOException ex)
        {
            oob.close();
            throw ex;
        }
        return oob;
    }

    private void versions() throws IOException
    {
        final String version;
        if (server)
        {
            version = TcpChannel.text(channel.read(VERSION_BYTES, "perftest version"));
            channel.writeString(VERSION, VERSION_BYTES);
        }
        else
        {
            channel.writeString(VERSION, VERSION_BYTES);
            version = TcpChannel.text(channel.read(VERSION_BYTES, "perftest version"));
        }
        if (!version.equals(VERSION))
        {
            throw new IOException("the peer " + channel.peer() + " speaks perftest version '" + version + "', we " +
                "speak " + VERSION);
        }
    }

    static String encode(final int qpn, final int psn, final int rKey, final long address, final long gidHigh,
        final long gidLow)
    {
        final StringBuilder text = new StringBuilder(KEY_BYTES);
        text.append(String.format("%04x:%04x:%06x:%06x:%08x:%016x:", 0, 1, qpn, psn, rKey, address));
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
            return new RemoteQp(qpn, psn, rKey, address, high, low);
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
        final RemoteQp[] remote = new RemoteQp[local.length];
        final byte[][] mine = new byte[local.length][];
        for (int i = 0; i < local.length; i++)
        {
            final LocalQp q = local[i];
            mine[i] = padded(encode(q.qp.qpn(), q.psn, q.rKey, q.regionAddress, gidHigh, gidLow));
        }
        for (int i = 0; i < local.length; i++)
        {
            if (server)
            {
                remote[i] = decode(channel.read(KEY_BYTES, "perftest keys"), channel.peer());
                channel.write(mine[i]);
            }
            else
            {
                channel.write(mine[i]);
                remote[i] = decode(channel.read(KEY_BYTES, "perftest keys"), channel.peer());
            }
        }
        lastKeys = mine[0];
        connect.accept(remote);
        return remote;
    }

    @Override
    public void sync() throws IOException
    {
        if (server)
        {
            channel.read(KEY_BYTES, "perftest hand-shake");
            channel.write(lastKeys);
        }
        else
        {
            channel.write(lastKeys);
            channel.read(KEY_BYTES, "perftest hand-shake");
        }
    }

    @Override
    public void close()
    {
        channel.close();
    }

    private static byte[] padded(final String text)
    {
        final byte[] bytes = new byte[KEY_BYTES];
        final byte[] ascii = text.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        System.arraycopy(ascii, 0, bytes, 0, Math.min(ascii.length, KEY_BYTES - 1));
        return bytes;
    }
}
