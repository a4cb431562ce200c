package io.rnic.tools;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.concurrent.ThreadLocalRandom;

/** TCP ports for the tools' out-of-band exchange in tests. */
public final class TcpPorts
{
    /** Below Linux's default ephemeral range (32768-60999), which the machine's own outgoing connections draw from. */
    private static final int FIRST = 20_000;
    private static final int COUNT = 12_000;

    private TcpPorts()
    {
    }

    /**
     * A random port below the ephemeral range that nothing holds now. A port drawn from the whole of 20000-39999 could
     * be the local end of a live connection (a "connection refused" after the server found it taken, in a CI run of
     * 2026-11-27), and a port the kernel hands out could be handed out again before the tool binds it.
     */
    public static int free()
    {
        for (int attempt = 0; attempt < 100; attempt++)
        {
            final int port = FIRST + ThreadLocalRandom.current().nextInt(COUNT);
            try (ServerSocket probe = new ServerSocket())
            {
                probe.setReuseAddress(false);
                probe.bind(new InetSocketAddress(port));
                return port;
            }
            catch (final IOException ex)
            {
                // held: draw again
            }
        }
        throw new IllegalStateException("no free TCP port in " + FIRST + ".." + (FIRST + COUNT - 1) + " in 100 draws");
    }
}
