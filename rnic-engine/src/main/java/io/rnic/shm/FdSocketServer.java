package io.rnic.shm;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;

import static io.rnic.shm.FdSocket.JAVA_LONG_LE;
import static io.rnic.shm.FdSocket.TOKEN_LENGTH;
import static io.rnic.shm.LinuxMemfd.callState;
import static io.rnic.shm.LinuxMemfd.errno;
import static io.rnic.shm.LinuxMemfd.strerror;
import static io.rnic.shm.LinuxUnixSockets.*;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The receiving end of {@link FdSocket}s (the driver's): an AF_UNIX {@code SOCK_SEQPACKET} socket bound to a path
 * made mode 0660, so that who may connect is who may open the driver's other files: its user and its group, from any
 * PID namespace that sees the path. {@link #poll} accepts new connections and receives what they sent without
 * blocking, handing each well-formed message (a token and at most one descriptor) to a {@link Handler} with the
 * {@link Connection} it came over; that connection carries the peer's credentials as the kernel saw them at
 * {@code connect} ({@code SO_PEERCRED}), so what a message names can be checked against who sent it.
 * <p>
 * A message that is not {@link FdSocket#TOKEN_LENGTH} bytes or carries more than one descriptor is dropped, its
 * descriptors closed, and reported to {@link Handler#onMalformed}: a client cannot make the receiver leak
 * descriptors. Control path, one thread: buffers are allocated once; a connection costs one small object.
 */
public final class FdSocketServer implements AutoCloseable
{
    /** Messages received from one connection per {@link #poll}: one busy client cannot hold the others up long. */
    static final int MESSAGES_PER_CONNECTION = 64;
    private static final int ACCEPTS_PER_POLL = 16;
    private static final int BACKLOG = 64;
    /** Room for a few descriptors, so that a message carrying several is seen whole and all of them closed. */
    private static final int CONTROL_LENGTH = 64;
    private static final int MALFORMED = -2;

    /** What arrives on the server's connections. */
    public interface Handler
    {
        /** A client connected (its credentials are in {@code connection}). */
        void onConnected(Connection connection);

        /**
         * A message: its token, and the descriptor it carried ({@code -1}: none), which the handler now owns and must
         * close (or hand on).
         */
        void onMessage(Connection connection, long tokenHigh, long tokenLow, int fd);

        /** A message that was not a token and one descriptor at most: dropped, its descriptors closed. */
        void onMalformed(Connection connection);

        /** The peer closed its end (it closed the socket or exited); the server closes this end after the call. */
        void onClosed(Connection connection);
    }

    /** One client's connection, with the credentials the kernel gave for it. */
    public static final class Connection
    {
        private final int fd;
        private final long pid;
        private final long uid;
        private final long gid;
        private boolean closed;
        /** The handler's own state for this connection. */
        public Object attachment;

        Connection(final int fd, final long pid, final long uid, final long gid)
        {
            this.fd = fd;
            this.pid = pid;
            this.uid = uid;
            this.gid = gid;
        }

        /** The peer's pid in the server's PID namespace (0 when it lives in one the server cannot see). */
        public long pid()
        {
            return pid;
        }

        public long uid()
        {
            return uid;
        }

        public long gid()
        {
            return gid;
        }

        public boolean isClosed()
        {
            return closed;
        }

        /** Closes the server's end: the peer's next send fails. Idempotent; no {@link Handler#onClosed} follows. */
        public void close()
        {
            if (!closed)
            {
                closed = true;
                LinuxMemfd.close(fd);
            }
        }

        public String toString()
        {
            return "pid " + pid + " uid " + uid + " gid " + gid;
        }
    }

    private final int fd;
    private final Path path;
    private final FdMessage message = new FdMessage(CONTROL_LENGTH);
    private final MemorySegment state = message.state;
    private final MemorySegment payload = message.payload;
    private final MemorySegment control = message.control;
    private final MemorySegment credentials = message.arena.allocate(UCRED_LENGTH, 8);
    private final MemorySegment credentialsLength = message.arena.allocate(JAVA_INT);
    private final List<Connection> connections = new ArrayList<>();
    private boolean closed;

    private FdSocketServer(final int fd, final Path path)
    {
        this.fd = fd;
        this.path = path;
    }

    /**
     * Binds {@code path} (a stale socket file there is removed first: the caller must hold the directory, as the
     * driver does with its lock), makes it mode 0660 and listens.
     *
     * @throws ShmException in one line naming the path and why.
     */
    public static FdSocketServer bind(final Path path)
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment state = callState(arena);
            final MemorySegment address = FdSocket.address(arena, path);
            Files.deleteIfExists(path);
            final int fd = socket(state, AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
            if (fd < 0)
            {
                throw new ShmException("cannot make the socket " + path + ": " + strerror(errno(state)));
            }
            if (LinuxUnixSockets.bind(state, fd, address, SOCKADDR_UN_LENGTH) < 0 || listen(state, fd, BACKLOG) < 0)
            {
                final int errno = errno(state);
                LinuxMemfd.close(fd);
                throw new ShmException("cannot bind the socket " + path + ": " + strerror(errno));
            }
            try
            {
                // owner and group, like the CnC file: connecting to a Unix socket needs write permission on it
                Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rw-rw----"));
            }
            catch (final IOException ex)
            {
                LinuxMemfd.close(fd);
                throw new ShmException("cannot make the socket " + path + " mode 0660: " + ex.getMessage());
            }
            return new FdSocketServer(fd, path);
        }
        catch (final IOException ex)
        {
            throw new ShmException("cannot remove the stale socket " + path + ": " + ex.getMessage());
        }
    }

    public Path path()
    {
        return path;
    }

    /** Connections open now (closed ones leave at the next {@link #poll}). */
    public int connectionCount()
    {
        return connections.size();
    }

    /**
     * Accepts waiting connections, then receives what every connection sent (up to
     * {@link #MESSAGES_PER_CONNECTION} messages each), without blocking.
     *
     * @return how many connections, messages and closes were handled.
     */
    public int poll(final Handler handler)
    {
        if (closed)
        {
            return 0;
        }
        int work = accept(handler);
        for (int i = 0; i < connections.size(); i++)
        {
            work += receive(connections.get(i), handler);
        }
        for (int i = connections.size() - 1; i >= 0; i--)
        {
            if (connections.get(i).closed)
            {
                connections.remove(i);
            }
        }
        return work;
    }

    /** Closes a descriptor a {@link Handler} received and does not keep. */
    public static void closeFd(final int fd)
    {
        LinuxMemfd.close(fd);
    }

    /** Closes every connection and the socket, and removes its path. Idempotent. */
    public void close()
    {
        if (!closed)
        {
            closed = true;
            for (final Connection connection : connections)
            {
                connection.close();
            }
            connections.clear();
            LinuxMemfd.close(fd);
            message.close();
            try
            {
                Files.deleteIfExists(path);
            }
            catch (final IOException ex)
            {
                // the directory went first: nothing is left to clean
            }
        }
    }

    private int accept(final Handler handler)
    {
        int accepted = 0;
        while (accepted < ACCEPTS_PER_POLL)
        {
            final int connectionFd = accept4(state, fd, SOCK_NONBLOCK | SOCK_CLOEXEC);
            if (connectionFd < 0)
            {
                break; // EAGAIN: no one waits; anything else (EMFILE, ECONNABORTED) is retried next poll
            }
            credentialsLength.set(JAVA_INT, 0, UCRED_LENGTH);
            final Connection connection;
            if (getsockopt(state, connectionFd, SOL_SOCKET, SO_PEERCRED, credentials, credentialsLength) < 0)
            {
                connection = new Connection(connectionFd, -1, -1, -1);
                connection.close(); // a connection without credentials cannot be checked: refused
            }
            else
            {
                connection = new Connection(connectionFd, credentials.get(JAVA_INT, 0),
                    Integer.toUnsignedLong(credentials.get(JAVA_INT, 4)),
                    Integer.toUnsignedLong(credentials.get(JAVA_INT, 8)));
                connections.add(connection);
                handler.onConnected(connection);
            }
            accepted++;
        }
        return accepted;
    }

    private int receive(final Connection connection, final Handler handler)
    {
        int received = 0;
        while (!connection.closed && received < MESSAGES_PER_CONNECTION)
        {
            final long length =
                recvmsg(state, connection.fd, message.reset(CONTROL_LENGTH), MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
            if (length < 0)
            {
                final int errno = errno(state);
                if (errno == EINTR)
                {
                    continue;
                }
                if (errno != EAGAIN)
                {
                    closeByPeer(connection, handler); // ECONNRESET and the like: the peer is gone
                    received++;
                }
                break;
            }
            received++;
            final int passedFd = receivedFd();
            if (length == 0 && passedFd < 0)
            {
                closeByPeer(connection, handler);
                break;
            }
            final int flags = message.header.get(JAVA_INT, MSG_FLAGS_OFFSET);
            if (length != TOKEN_LENGTH || (flags & (MSG_TRUNC | MSG_CTRUNC)) != 0 || passedFd == MALFORMED)
            {
                if (passedFd >= 0)
                {
                    LinuxMemfd.close(passedFd);
                }
                handler.onMalformed(connection);
                continue;
            }
            handler.onMessage(connection, payload.get(JAVA_LONG_LE, 0), payload.get(JAVA_LONG_LE, Long.BYTES),
                passedFd);
        }
        return received;
    }

    /**
     * The one descriptor the last message carried, {@code -1} when none, or {@link #MALFORMED} when it carried more
     * (all of them are closed then).
     */
    private int receivedFd()
    {
        final long controlLength = message.header.get(JAVA_LONG, MSG_CONTROLLEN_OFFSET);
        int found = -1;
        boolean more = false;
        long offset = 0;
        while (offset + CMSG_DATA_OFFSET <= controlLength)
        {
            final long cmsgLength = control.get(JAVA_LONG, offset);
            if (cmsgLength < CMSG_DATA_OFFSET || offset + cmsgLength > controlLength)
            {
                break;
            }
            if (control.get(JAVA_INT, offset + CMSG_LEVEL_OFFSET) == SOL_SOCKET &&
                control.get(JAVA_INT, offset + CMSG_TYPE_OFFSET) == SCM_RIGHTS)
            {
                for (long at = offset + CMSG_DATA_OFFSET; at + Integer.BYTES <= offset + cmsgLength; at += Integer.BYTES)
                {
                    final int passed = control.get(JAVA_INT, at);
                    if (found < 0)
                    {
                        found = passed;
                    }
                    else
                    {
                        LinuxMemfd.close(passed);
                        more = true;
                    }
                }
            }
            offset += (cmsgLength + 7) & ~7L;
        }
        if (more)
        {
            LinuxMemfd.close(found);
            return MALFORMED;
        }
        return found;
    }

    private static void closeByPeer(final Connection connection, final Handler handler)
    {
        handler.onClosed(connection);
        connection.close();
    }
}
