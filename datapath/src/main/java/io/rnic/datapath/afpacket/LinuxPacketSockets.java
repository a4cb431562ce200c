package io.rnic.datapath.afpacket;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * Every Linux declaration the AF_PACKET port uses, in one place and in jextract's shape (constants, struct layouts,
 * one {@code MethodHandle} and one static wrapper per function) — from {@code <linux/if_packet.h>},
 * {@code <sys/socket.h>}, {@code <sys/mman.h>} and {@code <net/if.h>}, x86_64. Calls that can fail take a
 * {@code captureCallState("errno")} segment first; {@link #errno} reads it.
 */
public final class LinuxPacketSockets
{
    public static final int AF_PACKET = 17;
    public static final int SOCK_RAW = 3;
    public static final int SOCK_NONBLOCK = 0x800;
    public static final int SOCK_CLOEXEC = 0x80000;
    public static final int ETH_P_ALL = 0x0003;
    public static final int SOL_SOCKET = 1;
    public static final int SO_RCVBUF = 8;
    public static final int SOL_PACKET = 263;
    public static final int PACKET_RX_RING = 5;
    public static final int PACKET_STATISTICS = 6;
    public static final int PACKET_VERSION = 10;
    public static final int PACKET_TX_RING = 13;
    public static final int PACKET_LOSS = 14;
    public static final int PACKET_FANOUT = 18;
    public static final int PACKET_QDISC_BYPASS = 20;
    public static final int PACKET_IGNORE_OUTGOING = 23;
    public static final int PACKET_FANOUT_HASH = 0;
    public static final int PACKET_OUTGOING = 4;
    public static final int TPACKET_V2 = 1;
    public static final int TPACKET_ALIGNMENT = 16;
    public static final int TP_STATUS_KERNEL = 0;
    public static final int TP_STATUS_USER = 1;
    public static final int TP_STATUS_LOSING = 1 << 2;
    /** The kernel took an 802.1Q tag off a received frame: its TCI is in {@code tp_vlan_tci}. */
    public static final int TP_STATUS_VLAN_VALID = 1 << 4;
    public static final int TP_STATUS_AVAILABLE = 0;
    public static final int TP_STATUS_SEND_REQUEST = 1;
    public static final int TP_STATUS_SENDING = 1 << 1;
    public static final int TP_STATUS_WRONG_FORMAT = 1 << 2;
    public static final int PROT_READ = 1;
    public static final int PROT_WRITE = 2;
    public static final int MAP_SHARED = 1;
    public static final int MSG_DONTWAIT = 0x40;
    public static final int EAGAIN = 11;
    public static final int ENOBUFS = 105;
    public static final int EPERM = 1;
    public static final int EACCES = 13;
    public static final long MAP_FAILED = -1L;

    /** {@code struct sockaddr_ll}, 20 bytes. */
    public static final StructLayout SOCKADDR_LL = MemoryLayout.structLayout(
        JAVA_SHORT.withName("sll_family"),
        JAVA_SHORT.withName("sll_protocol"),
        JAVA_INT.withName("sll_ifindex"),
        JAVA_SHORT.withName("sll_hatype"),
        JAVA_BYTE.withName("sll_pkttype"),
        JAVA_BYTE.withName("sll_halen"),
        MemoryLayout.sequenceLayout(8, JAVA_BYTE).withName("sll_addr"));

    /** {@code struct tpacket_req}, 16 bytes. */
    public static final StructLayout TPACKET_REQ = MemoryLayout.structLayout(
        JAVA_INT.withName("tp_block_size"),
        JAVA_INT.withName("tp_block_nr"),
        JAVA_INT.withName("tp_frame_size"),
        JAVA_INT.withName("tp_frame_nr"));

    /** {@code struct tpacket2_hdr}, 32 bytes. */
    public static final StructLayout TPACKET2_HDR = MemoryLayout.structLayout(
        JAVA_INT.withName("tp_status"),
        JAVA_INT.withName("tp_len"),
        JAVA_INT.withName("tp_snaplen"),
        JAVA_SHORT.withName("tp_mac"),
        JAVA_SHORT.withName("tp_net"),
        JAVA_INT.withName("tp_sec"),
        JAVA_INT.withName("tp_nsec"),
        JAVA_SHORT.withName("tp_vlan_tci"),
        JAVA_SHORT.withName("tp_vlan_tpid"),
        MemoryLayout.sequenceLayout(4, JAVA_BYTE).withName("tp_padding"));

    /** {@code struct tpacket_stats}, 8 bytes. */
    public static final StructLayout TPACKET_STATS = MemoryLayout.structLayout(
        JAVA_INT.withName("tp_packets"),
        JAVA_INT.withName("tp_drops"));

    public static final long TP_STATUS_OFFSET = TPACKET2_HDR.byteOffset(groupElement("tp_status"));
    public static final long TP_LEN_OFFSET = TPACKET2_HDR.byteOffset(groupElement("tp_len"));
    public static final long TP_SNAPLEN_OFFSET = TPACKET2_HDR.byteOffset(groupElement("tp_snaplen"));
    public static final long TP_MAC_OFFSET = TPACKET2_HDR.byteOffset(groupElement("tp_mac"));
    public static final long TP_VLAN_TCI_OFFSET = TPACKET2_HDR.byteOffset(groupElement("tp_vlan_tci"));
    /** Where the kernel puts the {@code sockaddr_ll} of a received frame: after the aligned header. */
    public static final long RX_SOCKADDR_OFFSET = tpacketAlign(TPACKET2_HDR.byteSize());
    public static final long SLL_PKTTYPE_OFFSET = SOCKADDR_LL.byteOffset(groupElement("sll_pkttype"));
    /**
     * Where a TX ring frame's data starts without {@code PACKET_TX_HAS_OFF}: {@code TPACKET2_HDRLEN - sizeof(struct
     * sockaddr_ll)}, i.e. right after the aligned header.
     */
    public static final long TX_DATA_OFFSET = tpacketAlign(TPACKET2_HDR.byteSize()) + SOCKADDR_LL.byteSize() -
        SOCKADDR_LL.byteSize();

    public static final StructLayout CAPTURED_STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURED_STATE.varHandle(groupElement("errno"));

    private static final MethodHandle SOCKET;
    private static final MethodHandle SETSOCKOPT;
    private static final MethodHandle GETSOCKOPT;
    private static final MethodHandle BIND;
    private static final MethodHandle MMAP;
    private static final MethodHandle MUNMAP;
    private static final MethodHandle CLOSE;
    private static final MethodHandle SENDTO;
    private static final MethodHandle SENDTO_ADDRESS;
    private static final MethodHandle IF_NAMETOINDEX;
    private static final MethodHandle STRERROR;

    static
    {
        final Linker linker = Linker.nativeLinker();
        final SymbolLookup libc = linker.defaultLookup();
        final Linker.Option errno = Linker.Option.captureCallState("errno");
        SOCKET = linker.downcallHandle(libc.find("socket").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT), errno);
        SETSOCKOPT = linker.downcallHandle(libc.find("setsockopt").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT), errno);
        GETSOCKOPT = linker.downcallHandle(libc.find("getsockopt").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS), errno);
        BIND = linker.downcallHandle(libc.find("bind").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT), errno);
        MMAP = linker.downcallHandle(libc.find("mmap").orElseThrow(),
            FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG), errno);
        MUNMAP = linker.downcallHandle(libc.find("munmap").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG), errno);
        CLOSE = linker.downcallHandle(libc.find("close").orElseThrow(), FunctionDescriptor.of(JAVA_INT, JAVA_INT));
        // the hot path's one call (the TX ring kick): no heap access, so critical — no thread state transition
        SENDTO = linker.downcallHandle(libc.find("sendto").orElseThrow(),
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT), errno,
            Linker.Option.critical(false));
        // the same call with the frame's address as a plain 64-bit integer: no MemorySegment per frame
        SENDTO_ADDRESS = linker.downcallHandle(libc.find("sendto").orElseThrow(),
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_INT), errno,
            Linker.Option.critical(false));
        IF_NAMETOINDEX = linker.downcallHandle(libc.find("if_nametoindex").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, ADDRESS));
        STRERROR = linker.downcallHandle(libc.find("strerror").orElseThrow(),
            FunctionDescriptor.of(ADDRESS.withTargetLayout(MemoryLayout.sequenceLayout(256, JAVA_BYTE)), JAVA_INT));
    }

    private LinuxPacketSockets()
    {
    }

    public static long tpacketAlign(final long length)
    {
        return (length + TPACKET_ALIGNMENT - 1) & ~(TPACKET_ALIGNMENT - 1L);
    }

    public static int errno(final MemorySegment state)
    {
        return (int)ERRNO.get(state, 0L);
    }

    public static int socket(final MemorySegment state, final int domain, final int type, final int protocol)
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

    public static int setsockopt(
        final MemorySegment state, final int fd, final int level, final int name, final MemorySegment value,
        final int length)
    {
        try
        {
            return (int)SETSOCKOPT.invokeExact(state, fd, level, name, value, length);
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException("setsockopt downcall", ex);
        }
    }

    public static int getsockopt(
        final MemorySegment state, final int fd, final int level, final int name, final MemorySegment value,
        final MemorySegment length)
    {
        try
        {
            return (int)GETSOCKOPT.invokeExact(state, fd, level, name, value, length);
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException("getsockopt downcall", ex);
        }
    }

    public static int bind(final MemorySegment state, final int fd, final MemorySegment address, final int length)
    {
        try
        {
            return (int)BIND.invokeExact(state, fd, address, length);
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException("bind downcall", ex);
        }
    }

    public static MemorySegment mmap(
        final MemorySegment state, final long length, final int protection, final int flags, final int fd)
    {
        try
        {
            return (MemorySegment)MMAP.invokeExact(state, MemorySegment.NULL, length, protection, flags, fd, 0L);
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException("mmap downcall", ex);
        }
    }

    public static int munmap(final MemorySegment state, final MemorySegment address, final long length)
    {
        try
        {
            return (int)MUNMAP.invokeExact(state, address, length);
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException("munmap downcall", ex);
        }
    }

    public static int close(final int fd)
    {
        try
        {
            return (int)CLOSE.invokeExact(fd);
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException("close downcall", ex);
        }
    }

    /** {@code sendto(fd, NULL, 0, flags, NULL, 0)}: kicks the TX ring. Returns bytes sent or -1. */
    public static long kick(final MemorySegment state, final int fd, final int flags)
    {
        try
        {
            return (long)SENDTO.invokeExact(state, fd, MemorySegment.NULL, 0L, flags, MemorySegment.NULL, 0);
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException("sendto downcall", ex);
        }
    }

    /**
     * {@code sendto(fd, address, length, flags, NULL, 0)}: one frame straight from native memory at {@code address}.
     * Bytes sent or -1.
     */
    public static long send(final MemorySegment state, final int fd, final long address, final long length,
        final int flags)
    {
        try
        {
            return (long)SENDTO_ADDRESS.invokeExact(state, fd, address, length, flags, 0L, 0);
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException("sendto downcall", ex);
        }
    }

    /** The interface index, 0 when there is no such interface. */
    public static int ifNameToIndex(final String name)
    {
        try (Arena arena = Arena.ofConfined())
        {
            return (int)IF_NAMETOINDEX.invokeExact(arena.allocateFrom(name));
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException("if_nametoindex downcall", ex);
        }
    }

    public static String strerror(final int errno)
    {
        try
        {
            return ((MemorySegment)STRERROR.invokeExact(errno)).getString(0) + " (errno " + errno + ")";
        }
        catch (final Throwable ex)
        {
            return "errno " + errno;
        }
    }
}
