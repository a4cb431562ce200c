package io.rnic.tools.exchange;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;

/**
 * A blocking TCP connection for the out-of-band exchange, with the tools' roles: the server listens and takes one
 * client; the client connects, retrying while the server is not up yet. Every read has a timeout and every failure
 * names the peer.
 */
public final class TcpChannel implements AutoCloseable
{
    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private final String peer;
    /** While the test runs: a read that times out while the peer's packets arrive waits on (null: it fails). */
    private PeerActivity activity;

    private TcpChannel(final Socket socket) throws IOException
    {
        this.socket = socket;
        this.socket.setTcpNoDelay(true);
        this.in = socket.getInputStream();
        this.out = socket.getOutputStream();
        this.peer = socket.getRemoteSocketAddress().toString();
    }

    /**
     * How a server waits for its client: at most {@code timeoutMs} (0: as long as it takes, as perftest's server),
     * and only while {@code failure} says nothing (an engine thread that died: waiting on would be a hang).
     */
    public record ServerWait(long timeoutMs, Supplier<String> failure)
    {
        /** How often a waiting server asks {@link #failure}. */
        static final int CHECK_MS = 200;
    }

    /**
     * @param wait      how long and while what a server waits for its client.
     * @param timeoutMs how long any read may wait, and a client may retry connecting (at most 10 s).
     */
    static TcpChannel open(final String server, final String bindHost, final int port, final ServerWait wait,
        final long timeoutMs) throws IOException
    {
        return server == null ? accept(bindHost, port, wait, timeoutMs) : connect(server, port, timeoutMs);
    }

    static TcpChannel accept(final int port, final long timeoutMs) throws IOException
    {
        return accept(null, port, new ServerWait(timeoutMs, () -> null), timeoutMs);
    }

    static TcpChannel accept(final String bindHost, final int port, final ServerWait wait, final long timeoutMs)
        throws IOException
    {
        try (ServerSocket listener = new ServerSocket())
        {
            listener.setReuseAddress(true);
            listener.bind(bindHost == null ? new InetSocketAddress(port) : new InetSocketAddress(bindHost, port));
            listener.setSoTimeout(ServerWait.CHECK_MS);
            final long startNs = System.nanoTime();
            while (true)
            {
                try
                {
                    final Socket socket = listener.accept();
                    socket.setSoTimeout((int)Math.min(Integer.MAX_VALUE, timeoutMs));
                    return new TcpChannel(socket);
                }
                catch (final SocketTimeoutException ex)
                {
                    final String failure = wait.failure().get();
                    if (failure != null)
                    {
                        throw new IOException(failure + " (while waiting for a client on TCP port " + port + ")");
                    }
                    if (wait.timeoutMs() > 0 && System.nanoTime() - startNs >= wait.timeoutMs() * 1_000_000L)
                    {
                        throw new IOException("no client connected to TCP port " + port + " within " +
                            wait.timeoutMs() + " ms (--accept-timeout-ms)");
                    }
                }
            }
        }
        catch (final java.net.BindException ex)
        {
            throw cannotListen(port, ex);
        }
    }

    /**
     * Fails as {@link #accept} would when the TCP port is taken (another server running), so that a server says so
     * before it opens its port, allocates its memory and prints its banner. The port is free again on return.
     */
    public static void checkCanListen(final String bindHost, final int port) throws IOException
    {
        try (ServerSocket listener = new ServerSocket())
        {
            listener.setReuseAddress(true);
            listener.bind(bindHost == null ? new InetSocketAddress(port) : new InetSocketAddress(bindHost, port));
        }
        catch (final java.net.BindException ex)
        {
            throw cannotListen(port, ex);
        }
    }

    private static IOException cannotListen(final int port, final java.net.BindException ex)
    {
        return new IOException("cannot listen on TCP port " + port + ": " + ex.getMessage() +
            " (another server running? choose one with -p)");
    }

    static TcpChannel connect(final String server, final int port, final long timeoutMs) throws IOException
    {
        final long deadlineNs = System.nanoTime() + Math.min(timeoutMs, 10_000) * 1_000_000L;
        while (true)
        {
            final Socket socket = new Socket();
            try
            {
                socket.connect(new InetSocketAddress(server, port), (int)Math.min(timeoutMs, 10_000));
                socket.setSoTimeout((int)Math.min(Integer.MAX_VALUE, timeoutMs));
                return new TcpChannel(socket);
            }
            catch (final ConnectException ex)
            {
                socket.close();
                if (System.nanoTime() > deadlineNs)
                {
                    throw new IOException("cannot connect to " + server + ":" + port + ": " + ex.getMessage() +
                        " (is the server running?)");
                }
                sleep(50); // the server may still be starting
            }
            catch (final IOException ex)
            {
                socket.close();
                throw new IOException("cannot connect to " + server + ":" + port + ": " + ex.getMessage(), ex);
            }
        }
    }

    void write(final byte[] bytes) throws IOException
    {
        out.write(bytes);
        out.flush();
    }

    void writeString(final String text, final int length) throws IOException
    {
        final byte[] bytes = new byte[length];
        final byte[] ascii = text.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(ascii, 0, bytes, 0, Math.min(ascii.length, length));
        write(bytes);
    }

    /** From now on a read that times out waits on while {@code activity} shows the peer at work. */
    void watch(final PeerActivity activity)
    {
        this.activity = activity;
    }

    byte[] read(final int length, final String what) throws IOException
    {
        final byte[] bytes = new byte[length];
        int done = 0;
        if (activity != null)
        {
            activity.waitStarts();
        }
        while (done < length)
        {
            final int n;
            try
            {
                n = in.read(bytes, done, length - done);
            }
            catch (final SocketTimeoutException ex)
            {
                if (activity != null && activity.stillActive(what + " from " + peer))
                {
                    continue; // its packets keep coming: the peer is running the test
                }
                throw new IOException("no " + what + " from " + peer + " within the timeout (" + done + " of " +
                    length + " bytes" + (activity != null ? ", and no packet from it meanwhile)" : ")"));
            }
            if (n < 0)
            {
                throw new EOFException("the peer " + peer + " closed the connection after " + done + " of " +
                    length + " bytes of " + what);
            }
            done += n;
        }
        return bytes;
    }

    /** Reads up to {@code length} bytes if they come within a second; errors and EOF are ignored (tear-down). */
    void readQuietly(final int length)
    {
        try
        {
            socket.setSoTimeout(1000);
            final byte[] bytes = new byte[length];
            int done = 0;
            while (done < length)
            {
                final int n = in.read(bytes, done, length - done);
                if (n < 0)
                {
                    return;
                }
                done += n;
            }
        }
        catch (final IOException ignored)
        {
            // the peer may have closed already: nothing more to learn
        }
    }

    /** A NUL-terminated ASCII string of a fixed-size message. */
    static String text(final byte[] message)
    {
        int end = 0;
        while (end < message.length && message[end] != 0)
        {
            end++;
        }
        return new String(message, 0, end, StandardCharsets.US_ASCII);
    }

    String peer()
    {
        return peer;
    }

    @Override
    public void close()
    {
        try
        {
            socket.close();
        }
        catch (final IOException ignored)
        {
            // closing: nothing left to tell the peer
        }
    }

    private static void sleep(final long ms) throws IOException
    {
        try
        {
            Thread.sleep(ms);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted");
        }
    }
}
