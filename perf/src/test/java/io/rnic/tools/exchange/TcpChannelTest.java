package io.rnic.tools.exchange;

import io.rnic.tools.TcpPorts;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A side blocked on the exchange while its peer runs the test: each read waits one timeout, and waits another as long
 * as the peer's RoCEv2 packets keep arriving. Time passes in read timeouts: each one asks the activity once, so what
 * the activity answers, not how long anything takes, decides the outcome.
 */
class TcpChannelTest
{
    /** Short, so that several of them pass quickly: the outcome depends on their count, not their length. */
    private static final long TIMEOUT_MS = 50;
    private static final byte[] MESSAGE = "the client's end".getBytes(StandardCharsets.US_ASCII);

    private TcpChannel server;
    private TcpChannel client;

    @BeforeEach
    void connect() throws Exception
    {
        final int port = TcpPorts.free();
        final CompletableFuture<TcpChannel> accepted = CompletableFuture.supplyAsync(() ->
        {
            try
            {
                // the wait for the client as long as it takes; each read then waits TIMEOUT_MS
                return TcpChannel.accept(null, port, new TcpChannel.ServerWait(0, () -> null), TIMEOUT_MS);
            }
            catch (final IOException ex)
            {
                throw new IllegalStateException(ex);
            }
        });
        client = TcpChannel.connect("127.0.0.1", port, 10_000);
        server = accepted.get(30, TimeUnit.SECONDS);
    }

    @AfterEach
    void close()
    {
        server.close();
        client.close();
    }

    @Test
    void shouldWaitForItsPeerWhileThePeersPacketsArrive() throws Exception
    {
        // the server of an -a sweep waits for the client's end through every size: many timeouts, packets all along
        final long[] looks = { 0 };
        server.watch(new PeerActivity(() ->
        {
            looks[0]++; // the first look starts the wait, each later one is a timeout
            if (looks[0] == 11)
            {
                writeFromClient();
            }
            return looks[0];
        }, () -> null));
        assertEquals(new String(MESSAGE, StandardCharsets.US_ASCII),
            new String(server.read(MESSAGE.length, "end of the test"), StandardCharsets.US_ASCII));
        assertEquals(11, looks[0], "ten timeouts waited through");
    }

    @Test
    void shouldGiveUpOnAPeerWhoseLinkFellQuiet()
    {
        final long[] looks = { 0 };
        server.watch(new PeerActivity(() -> Math.min(++looks[0], 3), () -> null));
        final IOException failure = assertThrows(IOException.class, this::readTheEnd);
        assertEquals(4, looks[0], "packets up to the second timeout, none before the third");
        assertTrue(failure.getMessage().startsWith("no end of the test from ") && failure.getMessage().endsWith(
            " within the timeout (0 of 16 bytes, and no packet from it meanwhile)"), failure.getMessage());
    }

    @Test
    void shouldStopWaitingWhenTheEngineFails()
    {
        final long[] looks = { 0 };
        server.watch(new PeerActivity(() -> ++looks[0], () -> "the engine thread failed: boom"));
        final IOException failure = assertThrows(IOException.class, this::readTheEnd);
        assertTrue(failure.getMessage().startsWith("the engine thread failed: boom (while waiting for the end of " +
            "the test from "), failure.getMessage());
    }

    @Test
    void shouldTimeOutOnceWithoutAWatch()
    {
        final IOException failure = assertThrows(IOException.class, this::readTheEnd);
        assertTrue(failure.getMessage().endsWith(" within the timeout (0 of 16 bytes)"), failure.getMessage());
    }

    private byte[] readTheEnd() throws IOException
    {
        return server.read(MESSAGE.length, "end of the test");
    }

    private void writeFromClient()
    {
        try
        {
            client.write(MESSAGE);
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException(ex);
        }
    }
}
