package io.rnic.datapath.driver;

import io.rnic.cnc.ControlProtocol;
import io.rnic.shm.FdSocketServer;
import io.rnic.shm.SharedMemory;
import io.rnic.shm.ShmException;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.LongPredicate;

/**
 * The driver's side of {@code fds.sock}: the connections clients pass their memfds over. A connection says hello with
 * a client id and a nonce (no descriptor), the client's {@code ATTACH} names the same nonce and links the two
 * ({@link #link}); each memfd then arrives with a token of the client's that the command using it names. A token is
 * looked up only among the descriptors that came over the connection linked to the commanding client. A descriptor is
 * closed once mapped, or when the command naming it fails first ({@link #discardUnmapped}), and those never used when
 * the connection ends. Conductor thread only.
 */
final class FdHandshake implements FdSocketServer.Handler
{
    /** Memfds a connection may have sent and not yet named in a command: more is a client leaking the driver's fds. */
    static final int MAX_PENDING_FDS = 64;

    private final FdSocketServer server;
    private final DriverCounters counters;
    private final List<ClientFds> connections = new ArrayList<>();
    /** Whether a client id is attached: a hello naming one is refused. */
    private final LongPredicate attached;
    /** A linked client whose connection closed: it exited or was killed. */
    private final Consumer<ClientSession> onDeparted;
    private long nowNs;
    /** The memfd the executing command named and has not mapped yet ({@link #noteToken}); null: none. */
    private ClientSession unmappedSession;
    private long unmappedToken;

    FdHandshake(
        final FdSocketServer server, final DriverCounters counters, final LongPredicate attached,
        final Consumer<ClientSession> onDeparted)
    {
        this.server = server;
        this.counters = counters;
        this.attached = attached;
        this.onDeparted = onDeparted;
    }

    /** Reads what the connections sent; first in a duty cycle, as a command's memfd is sent before the command. */
    int poll(final long nowNs)
    {
        this.nowNs = nowNs;
        return server.poll(this);
    }

    public void onConnected(final FdSocketServer.Connection connection)
    {
        final ClientFds fds = new ClientFds(connection, nowNs);
        connection.attachment = fds;
        connections.add(fds);
    }

    public void onMessage(
        final FdSocketServer.Connection connection, final long tokenHigh, final long tokenLow, final int fd)
    {
        final ClientFds fds = (ClientFds)connection.attachment;
        if (!fds.helloed)
        {
            if (fd >= 0 || attached.test(tokenHigh) || helloOf(tokenHigh) != null)
            {
                // a hello carries no fd, and names a client no other connection serves: the first claim wins
                refuseFd(fd);
                close(fds);
                return;
            }
            fds.helloed = true;
            fds.clientId = tokenHigh;
            fds.nonce = tokenLow;
            return;
        }
        if (fd < 0 || tokenHigh != fds.clientId || fds.pending.size() >= MAX_PENDING_FDS ||
            fds.pending.containsKey(tokenLow))
        {
            refuseFd(fd);
            return;
        }
        fds.pending.put(tokenLow, fd);
    }

    public void onMalformed(final FdSocketServer.Connection connection)
    {
        counters.fdMessagesRefused.increment();
    }

    public void onClosed(final FdSocketServer.Connection connection)
    {
        final ClientFds fds = (ClientFds)connection.attachment;
        final ClientSession session = fds.session;
        close(fds);
        if (session != null)
        {
            onDeparted.accept(session);
        }
    }

    /**
     * The connection that said hello with this client id and nonce, now linked to {@code session}; read again from
     * the socket when not there yet (the hello was sent before the attach).
     */
    ClientFds link(final long clientId, final long nonce)
    {
        ClientFds fds = helloOf(clientId);
        if (fds == null)
        {
            server.poll(this);
            fds = helloOf(clientId);
        }
        if (fds == null || fds.nonce != nonce || fds.session != null)
        {
            throw new IllegalArgumentException("no " + ControlProtocol.FD_SOCKET_FILE_NAME + " connection said " +
                "hello with this client's id and nonce: connect there and say hello before attaching");
        }
        return fds;
    }

    /**
     * Notes the memfd token of the command being executed: if the command fails before {@link #map} takes the memfd,
     * {@link #discardUnmapped} closes it, whatever check failed.
     */
    long noteToken(final ClientSession session, final long token)
    {
        unmappedSession = session;
        unmappedToken = token;
        return token;
    }

    /**
     * Maps the memfd the client sent with {@code token} over its own connection. The socket is read again first when
     * it has not arrived: the client sent it before the command, so it waits in the socket if not yet read.
     */
    SharedMemory map(final ClientSession session, final long token, final long fileLength)
    {
        if (session.fds == null)
        {
            throw new ShmException("this client attached without a connection to " +
                ControlProtocol.FD_SOCKET_FILE_NAME + " (no nonce in its attach): it can pass no memory");
        }
        int fd = session.fds.take(token);
        if (fd < 0)
        {
            server.poll(this);
            fd = session.fds.connection.isClosed() ? -1 : session.fds.take(token);
        }
        if (fd < 0)
        {
            throw new ShmException("no memfd with token " + token + " came over this client's " +
                ControlProtocol.FD_SOCKET_FILE_NAME + " connection: send it there before the command");
        }
        unmappedSession = null; // taken: mapped or refused, fromReceivedFd closes it
        return SharedMemory.fromReceivedFd(fd, fileLength);
    }

    /**
     * The command that named a token failed before mapping it: its memfd is of no more use. It may still wait in the
     * socket (sent before the command, not read yet): read the socket first, as {@link #map} does, or it would hold
     * one of the connection's {@link #MAX_PENDING_FDS} slots until the client detaches.
     */
    void discardUnmapped()
    {
        final ClientSession session = unmappedSession;
        if (session == null)
        {
            return;
        }
        unmappedSession = null;
        if (session.fds != null)
        {
            int fd = session.fds.take(unmappedToken);
            if (fd < 0 && !session.fds.connection.isClosed())
            {
                server.poll(this);
                fd = session.fds.take(unmappedToken);
            }
            if (fd >= 0)
            {
                FdSocketServer.closeFd(fd);
            }
        }
    }

    /** Closes the connections that never attached within {@code timeoutNs}. */
    void closeUnattached(final long nowNs, final long timeoutNs)
    {
        for (int i = connections.size() - 1; i >= 0; i--)
        {
            final ClientFds fds = connections.get(i);
            if (fds.session == null && nowNs - fds.connectedNs > timeoutNs)
            {
                close(fds);
            }
        }
    }

    /** Closes a connection and every memfd it sent that no command used. */
    void close(final ClientFds fds)
    {
        fds.pending.forEachLong((token, fd) -> FdSocketServer.closeFd((int)fd));
        fds.pending.clear();
        connections.remove(fds);
        fds.connection.close();
    }

    void closeAll()
    {
        for (final ClientFds fds : new ArrayList<>(connections))
        {
            close(fds);
        }
    }

    private void refuseFd(final int fd)
    {
        counters.fdMessagesRefused.increment();
        if (fd >= 0)
        {
            FdSocketServer.closeFd(fd);
        }
    }

    /** The live connection whose hello named {@code clientId}, or null. */
    private ClientFds helloOf(final long clientId)
    {
        for (int i = 0; i < connections.size(); i++)
        {
            final ClientFds fds = connections.get(i);
            if (fds.helloed && fds.clientId == clientId)
            {
                return fds;
            }
        }
        return null;
    }
}
