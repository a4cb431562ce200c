package io.rnic.shm;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * A server and a handler that records what arrives, for tests: {@link #pass} sends a descriptor over a real socket
 * and returns the one received, as the driver would get it.
 */
final class ReceivedFds implements FdSocketServer.Handler, AutoCloseable
{
    record Message(FdSocketServer.Connection connection, long tokenHigh, long tokenLow, int fd)
    {
    }

    final FdSocketServer server;
    final FdSocket client;
    final List<FdSocketServer.Connection> connected = new ArrayList<>();
    final List<Message> messages = new ArrayList<>();
    final List<FdSocketServer.Connection> closed = new ArrayList<>();
    int malformed;

    ReceivedFds(final Path directory)
    {
        server = FdSocketServer.bind(directory.resolve("fds.sock"));
        client = FdSocket.connect(server.path());
    }

    /** Sends {@code fd} and returns the receiver's descriptor of the same file. */
    int pass(final int fd)
    {
        final int before = messages.size();
        if (!client.send(1, before, fd))
        {
            throw new AssertionError("the socket is full");
        }
        pollUntil(() -> messages.size() > before);
        return messages.get(before).fd();
    }

    /** Polls the server until {@code condition} holds, for at most ten seconds. */
    void pollUntil(final BooleanSupplier condition)
    {
        final long deadlineNs = System.nanoTime() + 10_000_000_000L;
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() > deadlineNs)
            {
                throw new AssertionError("nothing arrived: " + messages + ", closed " + closed);
            }
            if (server.poll(this) == 0)
            {
                Thread.onSpinWait();
            }
        }
    }

    public void onConnected(final FdSocketServer.Connection connection)
    {
        connected.add(connection);
    }

    public void onMessage(
        final FdSocketServer.Connection connection, final long tokenHigh, final long tokenLow, final int fd)
    {
        messages.add(new Message(connection, tokenHigh, tokenLow, fd));
    }

    public void onMalformed(final FdSocketServer.Connection connection)
    {
        malformed++;
    }

    public void onClosed(final FdSocketServer.Connection connection)
    {
        closed.add(connection);
    }

    public void close()
    {
        client.close();
        server.close();
    }
}
