package io.rnic.shm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static io.rnic.shm.LinuxMemfd.callState;
import static io.rnic.shm.LinuxMemfd.errno;
import static io.rnic.shm.LinuxMemfd.strerror;
import static io.rnic.shm.LinuxUnixSockets.*;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * A client's end of an {@link FdSocketServer}: a connected AF_UNIX {@code SOCK_SEQPACKET} socket that sends
 * messages of {@link #TOKEN_LENGTH} bytes (a token of two {@code long}s), each with at most one descriptor attached
 * as {@code SCM_RIGHTS}. The kernel installs a new descriptor of the same open file in the receiver, whoever and
 * wherever it is: no ptrace permission, no shared PID namespace, only the right to connect to the socket's path.
 * <p>
 * Control path. Not thread-safe: one owner sends at a time; the buffers of a message are allocated once.
 */
public final class FdSocket implements AutoCloseable
{
    /** The payload of every message: a token's high and low {@code long}, little-endian. */
    public static final int TOKEN_LENGTH = 16;
    static final ValueLayout.OfLong JAVA_LONG_LE = JAVA_LONG.withOrder(ByteOrder.LITTLE_ENDIAN);

    private final int fd;
    private final Path path;
    private final FdMessage message = new FdMessage(CMSG_SPACE_TWO_FDS);
    private boolean closed;

    private FdSocket(final int fd, final Path path)
    {
        this.fd = fd;
        this.path = path;
    }

    /**
     * Connects to the {@link FdSocketServer} bound at {@code path}.
     *
     * @throws ShmException in one line naming the path, why and what to do: no server there, or no permission
     *                      (the socket is mode 0660: the caller must be its owner or in its group).
     */
    public static FdSocket connect(final Path path)
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment state = callState(arena);
            final MemorySegment address = address(arena, path);
            final int fd = socket(state, AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
            if (fd < 0)
            {
                throw new ShmException("cannot make a socket to " + path + ": " + strerror(errno(state)));
            }
            if (LinuxUnixSockets.connect(state, fd, address, SOCKADDR_UN_LENGTH) < 0)
            {
                final int errno = errno(state);
                LinuxMemfd.close(fd);
                throw new ShmException("cannot connect to " + path + ": " + strerror(errno) + ": is the rnic " +
                    "driver running, and is this process its user or in its group (the socket is mode 0660)?");
            }
            return new FdSocket(fd, path);
        }
    }

    /**
     * Sends {@code (tokenHigh, tokenLow)} with {@code passedFd} attached ({@code -1}: none), without waiting.
     * The receiver gets its own descriptor of the same file: the caller keeps and may close its own.
     *
     * @return false when the socket's buffer is full (the receiver is behind): try again later.
     * @throws ShmException when the receiver is gone or the descriptor cannot be sent.
     */
    public boolean send(final long tokenHigh, final long tokenLow, final int passedFd)
    {
        return send(tokenHigh, tokenLow, passedFd, -1);
    }

    /** For tests: a message with two descriptors, {@code secondFd} too, which the protocol does not allow. */
    boolean send(final long tokenHigh, final long tokenLow, final int passedFd, final int secondFd)
    {
        if (closed)
        {
            throw new ShmException("the socket to " + path + " is closed");
        }
        final MemorySegment payload = message.payload;
        final MemorySegment control = message.control;
        payload.set(JAVA_LONG_LE, 0, tokenHigh);
        payload.set(JAVA_LONG_LE, Long.BYTES, tokenLow);
        final int fds = passedFd < 0 ? 0 : secondFd < 0 ? 1 : 2;
        if (fds > 0)
        {
            control.fill((byte)0);
            control.set(JAVA_LONG, 0, CMSG_DATA_OFFSET + fds * Integer.BYTES);
            control.set(JAVA_INT, CMSG_LEVEL_OFFSET, SOL_SOCKET);
            control.set(JAVA_INT, CMSG_TYPE_OFFSET, SCM_RIGHTS);
            control.set(JAVA_INT, CMSG_DATA_OFFSET, passedFd);
            if (fds == 2)
            {
                control.set(JAVA_INT, CMSG_DATA_OFFSET + Integer.BYTES, secondFd);
            }
        }
        final MemorySegment header = message.reset(fds == 0 ? 0 : fds == 1 ? CMSG_SPACE_ONE_FD : CMSG_SPACE_TWO_FDS);
        final MemorySegment state = message.state;
        while (true)
        {
            final long sent = sendmsg(state, fd, header, MSG_DONTWAIT | MSG_NOSIGNAL);
            if (sent == TOKEN_LENGTH)
            {
                return true;
            }
            final int errno = errno(state);
            if (sent < 0 && errno == EAGAIN)
            {
                return false;
            }
            if (sent < 0 && errno == EINTR)
            {
                continue;
            }
            throw new ShmException("cannot send " + (passedFd >= 0 ? "fd " + passedFd : "a message") + " to " + path +
                ": " + (sent < 0 ? strerror(errno) : "sent " + sent + " of " + TOKEN_LENGTH + " bytes"));
        }
    }

    /** Closes the socket: the receiver sees the connection end. Idempotent. */
    public void close()
    {
        if (!closed)
        {
            closed = true;
            LinuxMemfd.close(fd);
            message.close();
        }
    }

    /**
     * A {@code struct sockaddr_un} of {@code path}.
     *
     * @throws ShmException when the path does not fit {@code sun_path} (107 bytes and a NUL).
     */
    static MemorySegment address(final Arena arena, final Path path)
    {
        final byte[] bytes = path.toString().getBytes(StandardCharsets.UTF_8);
        if (bytes.length >= SUN_PATH_LENGTH)
        {
            throw new ShmException("the socket path " + path + " is " + bytes.length + " bytes, longer than a Unix " +
                "socket's " + (SUN_PATH_LENGTH - 1) + ": choose a shorter directory");
        }
        final MemorySegment address = arena.allocate(SOCKADDR_UN_LENGTH, 8);
        address.set(JAVA_SHORT, 0, (short)AF_UNIX);
        MemorySegment.copy(bytes, 0, address, JAVA_BYTE, SUN_PATH_OFFSET, bytes.length);
        return address;
    }
}
