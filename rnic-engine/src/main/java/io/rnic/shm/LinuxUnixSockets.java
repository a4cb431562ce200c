package io.rnic.shm;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The Linux declarations of an AF_UNIX socket that passes descriptors ({@code SCM_RIGHTS}), from
 * {@code <sys/socket.h>} and {@code <sys/un.h>}, x86_64, in {@link LinuxMemfd}'s shape: constants, the offsets of
 * the structures by hand (their layouts are fixed by the ABI), one {@code MethodHandle} and one wrapper per function.
 * Every call that can fail takes a {@code captureCallState("errno")} segment first.
 */
final class LinuxUnixSockets
{
    static final int AF_UNIX = 1;
    static final int SOCK_SEQPACKET = 5;
    static final int SOCK_NONBLOCK = 0x800;
    static final int SOCK_CLOEXEC = 0x80000;
    static final int SOL_SOCKET = 1;
    static final int SO_PEERCRED = 17;
    static final int SCM_RIGHTS = 1;
    static final int MSG_CTRUNC = 0x8;
    static final int MSG_TRUNC = 0x20;
    static final int MSG_DONTWAIT = 0x40;
    static final int MSG_NOSIGNAL = 0x4000;
    static final int MSG_CMSG_CLOEXEC = 0x40000000;
    static final int EINTR = 4;
    static final int EAGAIN = 11;

    /** {@code struct sockaddr_un}: {@code sa_family_t sun_family; char sun_path[108]}. */
    static final int SOCKADDR_UN_LENGTH = 110;
    static final int SUN_PATH_OFFSET = 2;
    static final int SUN_PATH_LENGTH = 108;

    /** {@code struct msghdr}: name, namelen, iov, iovlen, control, controllen, flags; 56 bytes. */
    static final int MSGHDR_LENGTH = 56;
    static final int MSG_IOV_OFFSET = 16;
    static final int MSG_IOVLEN_OFFSET = 24;
    static final int MSG_CONTROL_OFFSET = 32;
    static final int MSG_CONTROLLEN_OFFSET = 40;
    static final int MSG_FLAGS_OFFSET = 48;

    /** {@code struct iovec}: base, length. */
    static final int IOVEC_LENGTH = 16;
    static final int IOV_LEN_OFFSET = 8;

    /** {@code struct cmsghdr}: {@code size_t cmsg_len; int cmsg_level; int cmsg_type;} then the data. */
    static final int CMSG_LEVEL_OFFSET = 8;
    static final int CMSG_TYPE_OFFSET = 12;
    static final int CMSG_DATA_OFFSET = 16;
    /** {@code CMSG_LEN(sizeof(int))}: one descriptor. */
    static final int CMSG_LEN_ONE_FD = CMSG_DATA_OFFSET + Integer.BYTES;
    /** {@code CMSG_SPACE(sizeof(int))}. */
    static final int CMSG_SPACE_ONE_FD = 24;
    /** {@code CMSG_SPACE(2 * sizeof(int))}. */
    static final int CMSG_SPACE_TWO_FDS = 24;

    /** {@code struct ucred}: pid, uid, gid. */
    static final int UCRED_LENGTH = 12;

    private static final MethodHandle SOCKET;
    private static final MethodHandle BIND;
    private static final MethodHandle LISTEN;
    private static final MethodHandle ACCEPT4;
    private static final MethodHandle CONNECT;
    private static final MethodHandle SENDMSG;
    private static final MethodHandle RECVMSG;
    private static final MethodHandle GETSOCKOPT;

    static
    {
        final Linker linker = Linker.nativeLinker();
        final SymbolLookup libc = linker.defaultLookup();
        final Linker.Option errno = Linker.Option.captureCallState("errno");
        SOCKET = linker.downcallHandle(libc.find("socket").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT), errno);
        BIND = linker.downcallHandle(libc.find("bind").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT), errno);
        LISTEN = linker.downcallHandle(libc.find("listen").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT), errno);
        ACCEPT4 = linker.downcallHandle(libc.find("accept4").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, JAVA_INT), errno);
        CONNECT = linker.downcallHandle(libc.find("connect").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT), errno);
        SENDMSG = linker.downcallHandle(libc.find("sendmsg").orElseThrow(),
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT), errno);
        RECVMSG = linker.downcallHandle(libc.find("recvmsg").orElseThrow(),
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT), errno);
        GETSOCKOPT = linker.downcallHandle(libc.find("getsockopt").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS), errno);
    }

    private LinuxUnixSockets()
    {
    }

    static int socket(final MemorySegment state, final int domain, final int type, final int protocol)
    {
        try
        {
            return (int)SOCKET.invokeExact(state, domain, type, protocol);
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException("socket downcall", ex);
        }
    }

    static int bind(final MemorySegment state, final int fd, final MemorySegment address, final int addressLength)
    {
        try
        {
            return (int)BIND.invokeExact(state, fd, address, addressLength);
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException("bind downcall", ex);
        }
    }

    static int listen(final MemorySegment state, final int fd, final int backlog)
    {
        try
        {
            return (int)LISTEN.invokeExact(state, fd, backlog);
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException("listen downcall", ex);
        }
    }

    /** {@code accept4(fd, NULL, NULL, flags)}: the peer's address of an unnamed client socket says nothing. */
    static int accept4(final MemorySegment state, final int fd, final int flags)
    {
        try
        {
            return (int)ACCEPT4.invokeExact(state, fd, MemorySegment.NULL, MemorySegment.NULL, flags);
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException("accept4 downcall", ex);
        }
    }

    static int connect(final MemorySegment state, final int fd, final MemorySegment address, final int addressLength)
    {
        try
        {
            return (int)CONNECT.invokeExact(state, fd, address, addressLength);
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException("connect downcall", ex);
        }
    }

    static long sendmsg(final MemorySegment state, final int fd, final MemorySegment message, final int flags)
    {
        try
        {
            return (long)SENDMSG.invokeExact(state, fd, message, flags);
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException("sendmsg downcall", ex);
        }
    }

    static long recvmsg(final MemorySegment state, final int fd, final MemorySegment message, final int flags)
    {
        try
        {
            return (long)RECVMSG.invokeExact(state, fd, message, flags);
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException("recvmsg downcall", ex);
        }
    }

    static int getsockopt(
        final MemorySegment state, final int fd, final int level, final int name, final MemorySegment value,
        final MemorySegment valueLength)
    {
        try
        {
            return (int)GETSOCKOPT.invokeExact(state, fd, level, name, value, valueLength);
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException("getsockopt downcall", ex);
        }
    }
}
