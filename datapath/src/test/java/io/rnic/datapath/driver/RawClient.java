package io.rnic.datapath.driver;

import io.rnic.cnc.CncFile;
import io.rnic.cnc.ControlProtocol;
import io.rnic.shm.FdSocket;
import io.rnic.shm.ShmException;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.broadcast.BroadcastReceiver;
import org.agrona.concurrent.broadcast.CopyBroadcastReceiver;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;

import java.nio.ByteBuffer;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A driver's client by hand, without the client library, for the tests that must say what the library never would:
 * commands into the ring, the answer picked from the broadcast and shown as {@code result v0 v1 ...} or
 * {@code error CODE: message}; its own connection to {@code fds.sock}, hello (client id, nonce) sent.
 */
final class RawClient implements AutoCloseable
{
    final long clientId;
    final long nonce;
    final FdSocket socket;
    private final ManyToOneRingBuffer toDriver;
    private final CopyBroadcastReceiver answers;
    private final UnsafeBuffer command = new UnsafeBuffer(ByteBuffer.allocateDirect(
        ControlProtocol.MAX_MESSAGE_LENGTH));
    private long correlationId;
    private String answer;

    RawClient(final CncFile cnc, final Path directory, final long clientId)
    {
        this(cnc, directory, clientId, clientId * 31);
    }

    RawClient(final CncFile cnc, final Path directory, final long clientId, final long nonce)
    {
        this.clientId = clientId;
        this.nonce = nonce;
        this.toDriver = new ManyToOneRingBuffer(cnc.toDriverBuffer());
        this.answers = new CopyBroadcastReceiver(new BroadcastReceiver(cnc.toClientsBuffer()),
            new UnsafeBuffer(ByteBuffer.allocateDirect(ControlProtocol.MAX_MESSAGE_LENGTH + 4096)));
        this.socket = FdSocket.connect(directory.resolve(ControlProtocol.FD_SOCKET_FILE_NAME));
        assertTrue(socket.send(clientId, nonce, -1), "hello");
    }

    void attach()
    {
        final String attached = call(ControlProtocol.ATTACH, ProcessHandle.current().pid(), nonce);
        assertTrue(attached.startsWith("result "), attached);
    }

    void sendFd(final long token, final int fd)
    {
        assertTrue(socket.send(clientId, token, fd));
    }

    /**
     * Sends {@code fd} with {@code token} as a hostile client may, to a driver that may have closed this connection
     * already (after a detach, or a hello it refused): true when the socket took it.
     */
    boolean trySendFd(final long token, final int fd)
    {
        try
        {
            return socket.send(clientId, token, fd);
        }
        catch (final ShmException closed)
        {
            return false;
        }
    }

    String call(final int type, final long... args)
    {
        correlationId++;
        ControlProtocol.putHeader(command, 0, clientId, correlationId);
        for (int i = 0; i < args.length; i++)
        {
            ControlProtocol.putArg(command, 0, i, args[i]);
        }
        assertTrue(toDriver.write(type, command, 0, ControlProtocol.length(args.length)));
        answer = null;
        final long deadlineNs = System.nanoTime() + 10_000_000_000L;
        while (answer == null)
        {
            assertTrue(System.nanoTime() < deadlineNs, "an answer to " + ControlProtocol.commandName(type));
            if (answers.receive(this::onAnswer) == 0)
            {
                Thread.onSpinWait();
            }
        }
        return answer;
    }

    private void onAnswer(final int type, final DirectBuffer buffer, final int offset, final int length)
    {
        if (ControlProtocol.clientId(buffer, offset) != clientId ||
            ControlProtocol.correlationId(buffer, offset) != correlationId)
        {
            return;
        }
        if (type == ControlProtocol.ERROR)
        {
            answer = "error " + ControlProtocol.errorCode(buffer, offset) + ": " +
                ControlProtocol.errorMessage(buffer, offset);
            return;
        }
        final StringBuilder values = new StringBuilder("result");
        for (int i = 0; i < ControlProtocol.argCount(length); i++)
        {
            values.append(' ').append(ControlProtocol.arg(buffer, offset, i));
        }
        answer = values.toString();
    }

    public void close()
    {
        socket.close();
    }
}
