package io.rnic.shm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static io.rnic.shm.FdSocket.TOKEN_LENGTH;
import static io.rnic.shm.LinuxUnixSockets.IOVEC_LENGTH;
import static io.rnic.shm.LinuxUnixSockets.IOV_LEN_OFFSET;
import static io.rnic.shm.LinuxUnixSockets.MSGHDR_LENGTH;
import static io.rnic.shm.LinuxUnixSockets.MSG_CONTROLLEN_OFFSET;
import static io.rnic.shm.LinuxUnixSockets.MSG_CONTROL_OFFSET;
import static io.rnic.shm.LinuxUnixSockets.MSG_IOVLEN_OFFSET;
import static io.rnic.shm.LinuxUnixSockets.MSG_IOV_OFFSET;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The buffers of one {@code sendmsg} or {@code recvmsg} of a token and its descriptors, allocated once per socket in
 * an arena the socket closes: the {@code msghdr}, its one {@code iovec} over the {@link #payload}, the
 * {@link #control} buffer and the errno segment. Shared arena: the socket may be made on one thread and used on
 * another, one at a time.
 */
final class FdMessage implements AutoCloseable
{
    final Arena arena = Arena.ofShared();
    final MemorySegment state = LinuxMemfd.callState(arena);
    final MemorySegment header = arena.allocate(MSGHDR_LENGTH, 8);
    final MemorySegment payload = arena.allocate(TOKEN_LENGTH, 8);
    final MemorySegment control;
    private final MemorySegment iovec = arena.allocate(IOVEC_LENGTH, 8);

    FdMessage(final int controlCapacity)
    {
        control = arena.allocate(controlCapacity, 8);
        iovec.set(ADDRESS, 0, payload);
        iovec.set(JAVA_LONG, IOV_LEN_OFFSET, TOKEN_LENGTH);
    }

    /**
     * Resets the header to the payload and {@code controlLength} bytes of control ({@code 0}: none).
     *
     * @return the header, to pass to the call.
     */
    MemorySegment reset(final int controlLength)
    {
        header.fill((byte)0);
        header.set(ADDRESS, MSG_IOV_OFFSET, iovec);
        header.set(JAVA_LONG, MSG_IOVLEN_OFFSET, 1L);
        if (controlLength > 0)
        {
            header.set(ADDRESS, MSG_CONTROL_OFFSET, control);
            header.set(JAVA_LONG, MSG_CONTROLLEN_OFFSET, controlLength);
        }
        return header;
    }

    public void close()
    {
        arena.close();
    }
}
