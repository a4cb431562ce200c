package io.rnic.datapath.afpacket;

import io.rnic.datapath.port.FrameHandler;
import io.rnic.datapath.port.PacketPort;
import io.rnic.datapath.port.PortCounters;
import io.rnic.datapath.port.PortException;
import io.rnic.device.JvmFlags;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

import static io.rnic.datapath.afpacket.LinuxPacketSockets.*;

/**
 * A kernel interface through an AF_PACKET socket with PACKET_MMAP rings (TPACKET_V2): received frames are read in
 * place from the RX ring and handed to the engine without a copy; frames to send are copied once into TX ring slots
 * and pushed to the driver by one {@code sendto} per {@link #flush} (a duty cycle), not one system call per frame.
 * The socket ignores its own outgoing frames (PACKET_IGNORE_OUTGOING) so the engine never sees what it sent.
 * <p>
 * On a kernel VLAN device ({@code ip link add link veth0 name veth0.10 type vlan id 10}) the port binds to the
 * parent and the engine writes the 802.1Q tag itself ({@link #vlanId()}), so that each QP's service level reaches
 * the PCP: the VLAN device would tag every frame with the one priority its egress-qos-map gives the socket's
 * {@code SO_PRIORITY}, and an AF_PACKET TX ring has no per-frame priority. The same with {@link
 * AfPacketConfig#vlanId()} on a plain interface. Either way the port hands the engine only its VLAN's frames (the
 * kernel has taken their tag off into the ring's {@code tp_vlan_tci}).
 * <p>
 * Engine thread only (see {@link PacketPort}); nothing is allocated after {@link #open}.
 */
public final class AfPacketPort implements PacketPort
{
    /** Receive polls between two reads of the kernel's drop count: a system call every few milliseconds at most. */
    private static final int STATISTICS_POLLS = 4096;

    private final AfPacketConfig config;
    private final String name;
    private final long mac;
    private final int mtu;
    private final int fd;
    /** A second socket, without rings and receiving nothing: a lone frame leaves through it by plain sendto. */
    private final int directFd;
    private final Arena arena;
    private final MemorySegment state;
    private final MemorySegment statistics;
    private final MemorySegment statisticsLength;
    private final PacketRings rings;
    private final UnsafeBuffer rx;
    private final UnsafeBuffer tx;
    private final UnsafeBuffer frame = new UnsafeBuffer(0, 0);
    private final int frameSize;
    private final int rxMask;
    private final int txMask;
    private final int maxFrameLength;
    /** The VLAN whose frames are ours and that the engine tags, or {@link AfPacketConfig#NO_VLAN}. */
    private final int vlanId;
    /** The interface the sockets are bound to: {@link #name} or, for a kernel VLAN device, its parent. */
    private final String boundTo;
    private int rxIndex;
    private int txIndex;
    private int txPending;
    /** A lone frame waits here, outside the ring, until the flush sends it or a second frame joins it. */
    private final UnsafeBuffer single;
    private int singleLength;
    /** A ring kick failed: frames may wait in the TX ring, so the next flush kicks it whatever else happens. */
    private boolean ringDirty;
    private final boolean directSingle = !"false".equals(System.getProperty("rnic.afpacket.direct"));
    private final PortCounters counters = new PortCounters();
    /** Receive polls left until the kernel's drop count is read again ({@link #sampleKernelDrops}). */
    private int pollsUntilStatistics = STATISTICS_POLLS;
    /** sendto calls and ring kicks: the moments queued frames may leave ({@link #pushes}). */
    private long pushes;
    private long kernelRejected;
    private long kickFailures;
    private boolean closed;

    private AfPacketPort(
        final AfPacketConfig config, final int ifindex, final String boundTo, final long mac, final int mtu,
        final int vlanId)
    {
        this.config = config;
        this.name = config.iface();
        this.boundTo = boundTo;
        this.vlanId = vlanId;
        this.mac = mac;
        this.mtu = mtu;
        this.maxFrameLength = mtu + 14 + 4;
        this.frameSize = PacketRings.frameSize(maxFrameLength);
        this.rxMask = config.rxFrames() - 1;
        this.txMask = config.txFrames() - 1;
        this.arena = Arena.ofShared();
        this.state = arena.allocate(CAPTURED_STATE);
        this.statistics = arena.allocate(TPACKET_STATS);
        this.statisticsLength = arena.allocate(ValueLayout.JAVA_INT);
        this.single = new UnsafeBuffer(arena.allocate(maxFrameLength, 64).address(), maxFrameLength);

        this.fd = openRingSocket();
        PacketRings mapped = null;
        try
        {
            setSocketOptions();
            mapped = PacketRings.map(arena, state, fd, name, frameSize, config.rxFrames(), config.txFrames());
            this.rings = mapped;
            this.rx = mapped.rx();
            this.tx = mapped.tx();
            bindToInterface(fd, htons(ETH_P_ALL), ifindex, "the AF_PACKET socket");
            joinFanoutGroup();
            this.directFd = openDirectSocket(ifindex);
            linkSendCalls();
        }
        catch (final RuntimeException ex)
        {
            if (mapped != null)
            {
                mapped.unmap(state);
            }
            LinuxPacketSockets.close(fd);
            arena.close();
            throw ex;
        }
    }

    /**
     * Opens the port.
     *
     * @throws PortException naming the interface and the cause: no such interface (with the ones that exist), no
     *                       privileges, a kernel refusal.
     */
    public static AfPacketPort open(final AfPacketConfig config)
    {
        JvmFlags.check(); // an embedder's first call: before the rings' Agrona buffers
        final String iface = config.iface();
        final int ifindex = ifNameToIndex(iface);
        if (ifindex == 0)
        {
            throw new PortException("no interface named '" + iface + "' in this network namespace (interfaces: " +
                interfaces() + ")");
        }
        final Path sys = Path.of("/sys/class/net", iface);
        final long mac;
        final int mtu;
        try
        {
            mac = parseMac(Files.readString(sys.resolve("address")).trim(), iface);
            mtu = Integer.parseInt(Files.readString(sys.resolve("mtu")).trim());
        }
        catch (final IOException | NumberFormatException ex)
        {
            throw new PortException("cannot read the MAC address and MTU of " + iface + " from " + sys + ": " + ex);
        }
        final String[] kernelVlan = kernelVlan(iface, Path.of("/proc/net/vlan/config"));
        if (kernelVlan == null)
        {
            return new AfPacketPort(config, ifindex, iface, mac, mtu, config.vlanId());
        }
        final int vlanId = Integer.parseInt(kernelVlan[0]);
        final String parent = kernelVlan[1];
        if (config.vlanId() != AfPacketConfig.NO_VLAN && config.vlanId() != vlanId)
        {
            throw new PortException(iface + " is the kernel's VLAN " + vlanId + " on " + parent + ": a VLAN id of " +
                config.vlanId() + " does not apply to it (give the parent interface with that id, or none)");
        }
        final int parentIndex = ifNameToIndex(parent);
        if (parentIndex == 0)
        {
            throw new PortException(iface + " is a VLAN device of " + parent + ", which is not in this network " +
                "namespace: the port sends on the parent with its own 802.1Q tag");
        }
        return new AfPacketPort(config, parentIndex, parent, mac, mtu, vlanId);
    }

    /**
     * The VLAN id and parent of {@code iface} when it is a kernel 802.1Q device ({@code config}, the 8021q module's
     * {@code /proc/net/vlan/config}: one line {@code NAME | VID | PARENT} per device of this namespace), or null.
     */
    static String[] kernelVlan(final String iface, final Path config)
    {
        if (!Files.isReadable(config))
        {
            return null; // no 8021q module: no VLAN devices
        }
        try
        {
            for (final String line : Files.readAllLines(config))
            {
                final String[] fields = line.split("\\|");
                if (fields.length == 3 && fields[0].trim().equals(iface))
                {
                    return new String[]{ fields[1].trim(), fields[2].trim() };
                }
            }
            return null;
        }
        catch (final IOException ex)
        {
            throw new PortException("cannot read " + config + " to tell whether " + iface + " is a VLAN: " + ex);
        }
    }

    @Override
    public int receive(final FrameHandler handler, final int limit)
    {
        final UnsafeBuffer rx = this.rx;
        int handed = 0;
        int seen = 0;
        while (handed < limit && seen < rxMask + 1)
        {
            final int slot = rxIndex * frameSize;
            final int status = rx.getIntVolatile(slot + (int)TP_STATUS_OFFSET);
            if ((status & TP_STATUS_USER) == 0)
            {
                break;
            }
            seen++;
            final int snapLength = rx.getInt(slot + (int)TP_SNAPLEN_OFFSET);
            final int wireLength = rx.getInt(slot + (int)TP_LEN_OFFSET);
            final int macOffset = rx.getShort(slot + (int)TP_MAC_OFFSET) & 0xFFFF;
            final int packetType = rx.getByte(slot + (int)(RX_SOCKADDR_OFFSET + SLL_PKTTYPE_OFFSET));
            if (packetType != PACKET_OUTGOING && inVlan(slot, status, macOffset))
            {
                if (snapLength == wireLength && macOffset + snapLength <= frameSize)
                {
                    frame.wrap(rx.addressOffset() + slot + macOffset, snapLength);
                    handler.onFrame(frame, 0, snapLength);
                    handed++;
                }
                else
                {
                    counters.addReceiveTooLong(1); // cut to the slot by the kernel: not a frame of ours
                }
            }
            rx.putIntOrdered(slot + (int)TP_STATUS_OFFSET, TP_STATUS_KERNEL);
            rxIndex = (rxIndex + 1) & rxMask;
        }
        if (handed > 0)
        {
            counters.addFramesReceived(handed);
        }
        if (--pollsUntilStatistics == 0)
        {
            pollsUntilStatistics = STATISTICS_POLLS;
            sampleKernelDrops();
        }
        return handed;
    }

    /**
     * Whether a received frame belongs to our VLAN: its tag taken off by the kernel, or still in the frame. Untagged
     * (or only priority-tagged) when the port has none: another VLAN's frames are its VLAN device's, not ours, though
     * the kernel shows them to a socket on the parent without their tag.
     */
    private boolean inVlan(final int slot, final int status, final int macOffset)
    {
        if (vlanId == AfPacketConfig.NO_VLAN)
        {
            return (status & TP_STATUS_VLAN_VALID) == 0 || (rx.getShort(slot + (int)TP_VLAN_TCI_OFFSET) & 0xFFF) == 0;
        }
        if ((status & TP_STATUS_VLAN_VALID) != 0)
        {
            return (rx.getShort(slot + (int)TP_VLAN_TCI_OFFSET) & 0xFFF) == vlanId;
        }
        final int typeAt = slot + macOffset + 12;
        return (rx.getShort(typeAt, ByteOrder.BIG_ENDIAN) & 0xFFFF) == 0x8100 &&
            (rx.getShort(typeAt + 2, ByteOrder.BIG_ENDIAN) & 0xFFF) == vlanId;
    }

    @Override
    public int vlanId()
    {
        return vlanId;
    }

    @Override
    public boolean transmit(final DirectBuffer buffer, final int offset, final int length)
    {
        if (length < 14 || length > maxFrameLength)
        {
            counters.addTransmitDrops(1);
            return false;
        }
        if (txPending == 0 && directSingle)
        {
            // held back outside the ring: if it stays alone until the flush, it leaves by a plain sendto. (The
            // kernel walks the TX ring in order from its own index: a slot we filled but did not hand to the ring
            // would stop it there.)
            single.putBytes(0, buffer, offset, length);
            singleLength = length;
            txPending = 1;
            counters.addFramesTransmitted(1);
            return true;
        }
        if (txPending == 1 && directSingle && !queueOnRing(single, 0, singleLength))
        {
            txPending = 0;
            counters.addFramesTransmitted(-1);
            counters.addTransmitDrops(1);
        }
        if (!queueOnRing(buffer, offset, length))
        {
            counters.addTransmitDrops(1);
            return false;
        }
        txPending++;
        counters.addFramesTransmitted(1);
        return true;
    }

    /**
     * The next TX ring slot is free (and the one after it when the held-back lone frame must move to the ring too).
     * A slot stays SENDING until the kernel frees the frame's socket buffer, which may be much later than the kick:
     * behind a queue further on (a rate-limited hop, a busy peer) the whole ring can be in flight. No room either
     * while the kernel refuses kicks for want of send buffer.
     */
    @Override
    public boolean canTransmit()
    {
        if (ringDirty)
        {
            // the last kick was refused (EAGAIN/ENOBUFS: the socket's send buffer is spent on frames still queued
            // further on): the kernel pushes back until a flush gets through
            return false;
        }
        if (txPending == 0 && directSingle)
        {
            return true;
        }
        return slotFree(txIndex) && (txPending != 1 || !directSingle || slotFree((txIndex + 1) & txMask));
    }

    private boolean slotFree(final int index)
    {
        final int status = tx.getIntVolatile(index * frameSize + (int)TP_STATUS_OFFSET);
        return status != TP_STATUS_SEND_REQUEST && status != TP_STATUS_SENDING;
    }

    /** Copies a frame into the next TX ring slot and marks it for the kernel; false when the ring stays full. */
    private boolean queueOnRing(final DirectBuffer buffer, final int offset, final int length)
    {
        final int slot = txIndex * frameSize;
        int status = tx.getIntVolatile(slot + (int)TP_STATUS_OFFSET);
        if (status == TP_STATUS_SEND_REQUEST || status == TP_STATUS_SENDING)
        {
            kickRing(); // the ring is full: push it, then look again
            status = tx.getIntVolatile(slot + (int)TP_STATUS_OFFSET);
            if (status == TP_STATUS_SEND_REQUEST || status == TP_STATUS_SENDING)
            {
                return false;
            }
        }
        if ((status & TP_STATUS_WRONG_FORMAT) != 0)
        {
            kernelRejected++;
            counters.addTransmitDrops(1);
        }
        tx.putBytes(slot + (int)TX_DATA_OFFSET, buffer, offset, length);
        tx.putInt(slot + (int)TP_LEN_OFFSET, length);
        tx.putIntOrdered(slot + (int)TP_STATUS_OFFSET, TP_STATUS_SEND_REQUEST);
        txIndex = (txIndex + 1) & txMask;
        return true;
    }

    @Override
    public int flush()
    {
        if (txPending == 0 && !ringDirty)
        {
            return 0;
        }
        final int pushed = txPending;
        txPending = 0;
        if (pushed == 1 && directSingle)
        {
            // one frame: the plain send path (packet_snd) beats walking the TX ring (tpacket_snd) for one frame;
            // after a failed kick the ring goes first, to keep the order
            pushes++;
            if (!ringDirty && send(state, directFd, single.addressOffset(), singleLength, MSG_DONTWAIT) >= 0)
            {
                return 1;
            }
            if (!queueOnRing(single, 0, singleLength))
            {
                counters.addTransmitDrops(1);
                counters.addFramesTransmitted(-1);
                return 0;
            }
        }
        return kickRing() ? pushed : 0;
    }

    /** Asks the kernel to send every SEND_REQUEST frame of the TX ring; false (and the ring dirty) on failure. */
    private boolean kickRing()
    {
        pushes++;
        if (kick(state, fd, MSG_DONTWAIT) < 0)
        {
            final int errno = errno(state);
            if (errno != EAGAIN && errno != ENOBUFS)
            {
                kickFailures++;
            }
            ringDirty = true; // the frames stay SEND_REQUEST in the ring: the next flush kicks again
            return false;
        }
        // A kick that runs out of send buffer part way still succeeds (it reports the bytes it did send) and leaves
        // the rest SEND_REQUEST. The kernel takes frames in ring order, so the last one queued tells: if the kernel
        // has not taken it, the ring is still dirty — and a lone frame sent by plain sendto now would overtake the
        // frames left in the ring (seen as reordering, NAKs and timeouts behind a slow hop).
        final int last = (txIndex - 1) & txMask;
        ringDirty = tx.getIntVolatile(last * frameSize + (int)TP_STATUS_OFFSET) == TP_STATUS_SEND_REQUEST;
        return !ringDirty;
    }

    @Override
    public String name()
    {
        return name;
    }

    @Override
    public long macAddress()
    {
        return mac;
    }

    @Override
    public int mtu()
    {
        return mtu;
    }

    /** Frames stay in the TX ring (or the held-back lone frame) until a kick: only kicks and sends count. */
    @Override
    public long pushes()
    {
        return pushes;
    }

    @Override
    public PortCounters counters()
    {
        return counters;
    }

    /**
     * Adds the frames the kernel dropped because the RX ring was full (PACKET_STATISTICS; the read resets them) to
     * the receive drops. On the engine thread: every {@link #STATISTICS_POLLS} receive polls, and at its stop.
     */
    private void sampleKernelDrops()
    {
        statisticsLength.set(ValueLayout.JAVA_INT, 0, (int)TPACKET_STATS.byteSize());
        if (getsockopt(state, fd, SOL_PACKET, PACKET_STATISTICS, statistics, statisticsLength) == 0)
        {
            final long dropped = statistics.get(ValueLayout.JAVA_INT, 4) & 0xFFFF_FFFFL;
            if (dropped != 0)
            {
                counters.addReceiveDrops(dropped);
            }
        }
    }

    @Override
    public void onEngineThreadStop()
    {
        sampleKernelDrops();
    }

    /**
     * The receive ring as the engine and the kernel see it, for a failure dump (any thread: a racy snapshot): the
     * slot the engine reads next and its status, and which slots hold frames the engine has not taken. Frames that
     * wait while the engine's next slot is empty would mean the two disagree on the ring's position.
     */
    @Override
    public String describeReceive()
    {
        final int next = rxIndex;
        int waiting = 0;
        int first = -1;
        int last = -1;
        for (int i = 0; i <= rxMask; i++)
        {
            final int index = (next + i) & rxMask;
            if ((rx.getIntVolatile(index * frameSize + (int)TP_STATUS_OFFSET) & TP_STATUS_USER) != 0)
            {
                waiting++;
                first = first < 0 ? index : first;
                last = index;
            }
        }
        return "rx ring of " + (rxMask + 1) + " slots: engine's next slot " + next + " (status 0x" +
            Integer.toHexString(rx.getIntVolatile(next * frameSize + (int)TP_STATUS_OFFSET)) + "), " + waiting +
            " frames waiting" + (waiting > 0 ? " in slots " + first + ".." + last : "");
    }

    /** TX ring frames the kernel refused (TP_STATUS_WRONG_FORMAT). */
    public long kernelRejected()
    {
        return kernelRejected;
    }

    /** {@code sendto} kicks that failed with something other than EAGAIN/ENOBUFS. */
    public long kickFailures()
    {
        return kickFailures;
    }

    public AfPacketConfig config()
    {
        return config;
    }

    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        rings.unmap(state);
        LinuxPacketSockets.close(directFd);
        LinuxPacketSockets.close(fd);
        arena.close();
    }

    @Override
    public String toString()
    {
        return "AfPacketPort{" + name + ", mtu=" + mtu + ", slot=" + frameSize + "B, rx=" + (rxMask + 1) + ", tx=" +
            (txMask + 1) + (config.qdiscBypass() ? ", qdisc bypass" : "") +
            (config.fanoutGroup() != 0 ? ", fanout " + config.fanoutGroup() : "") +
            (vlanId != AfPacketConfig.NO_VLAN ? ", vlan " + vlanId + " tagged by us on " + boundTo : "") + '}';
    }

    /** The socket that owns the rings and receives every frame of the interface; the arena closed on failure. */
    private int openRingSocket()
    {
        final int socketFd = socket(state, AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, htons(ETH_P_ALL));
        if (socketFd < 0)
        {
            final int errno = errno(state);
            arena.close();
            if (errno == EPERM || errno == EACCES)
            {
                throw new PortException("cannot open an AF_PACKET socket on " + name + ": " + strerror(errno) +
                    ". AF_PACKET needs root or the CAP_NET_RAW capability (run as root, or " +
                    "'setcap cap_net_raw+ep' on the java binary)");
            }
            throw new PortException("cannot open an AF_PACKET socket on " + name + ": " + strerror(errno));
        }
        return socketFd;
    }

    /** What the ring socket needs before its rings are set up: TPACKET_V2 can only be chosen before. */
    private void setSocketOptions()
    {
        setInt(PACKET_VERSION, TPACKET_V2, "PACKET_VERSION TPACKET_V2");
        setIntIfSupported(PACKET_IGNORE_OUTGOING, 1);
        setInt(PACKET_LOSS, 1, "PACKET_LOSS"); // a malformed TX frame is skipped, not a stuck ring
        if (config.qdiscBypass())
        {
            setInt(PACKET_QDISC_BYPASS, 1, "PACKET_QDISC_BYPASS");
        }
    }

    private void bindToInterface(final int socketFd, final int protocol, final int ifindex, final String what)
    {
        final MemorySegment address = arena.allocate(SOCKADDR_LL);
        address.set(ValueLayout.JAVA_SHORT, 0, (short)AF_PACKET);
        address.set(ValueLayout.JAVA_SHORT, 2, (short)protocol);
        address.set(ValueLayout.JAVA_INT, 4, ifindex);
        if (bind(state, socketFd, address, (int)SOCKADDR_LL.byteSize()) != 0)
        {
            throw new PortException("cannot bind " + what + " to " + name + ": " + strerror(errno(state)));
        }
    }

    /** Several engine threads on one interface: the kernel spreads the flows over their sockets by hash. */
    private void joinFanoutGroup()
    {
        if (config.fanoutGroup() != 0)
        {
            setInt(PACKET_FANOUT, config.fanoutGroup() | (PACKET_FANOUT_HASH << 16),
                "PACKET_FANOUT group " + config.fanoutGroup());
        }
    }

    /**
     * With a TX ring every sendto of the ring's socket walks the ring: lone frames need a socket of their own
     * (protocol 0: it is handed no received frame).
     */
    private int openDirectSocket(final int ifindex)
    {
        final int direct = socket(state, AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (direct < 0)
        {
            throw new PortException("cannot open the second AF_PACKET socket on " + name + ": " +
                strerror(errno(state)));
        }
        try
        {
            bindToInterface(direct, 0, ifindex, "the second AF_PACKET socket");
        }
        catch (final PortException ex)
        {
            LinuxPacketSockets.close(direct);
            throw ex;
        }
        if (config.qdiscBypass())
        {
            final MemorySegment one = arena.allocate(ValueLayout.JAVA_INT);
            one.set(ValueLayout.JAVA_INT, 0, 1);
            setsockopt(state, direct, SOL_PACKET, PACKET_QDISC_BYPASS, one, 4);
        }
        return direct;
    }

    /**
     * The JVM links a downcall on its first call: tens of ms under load, which in the first frame's duty cycle would
     * count against the local ACK timer. Both sendto calls on fd -1: EBADF, nothing is sent.
     */
    private void linkSendCalls()
    {
        send(state, -1, single.addressOffset(), 0, MSG_DONTWAIT);
        kick(state, -1, MSG_DONTWAIT);
    }

    private void setInt(final int option, final int value, final String what)
    {
        final MemorySegment integer = arena.allocate(ValueLayout.JAVA_INT);
        integer.set(ValueLayout.JAVA_INT, 0, value);
        if (setsockopt(state, fd, SOL_PACKET, option, integer, 4) != 0)
        {
            throw new PortException("cannot set " + what + " on " + name + ": " + strerror(errno(state)));
        }
    }

    private void setIntIfSupported(final int option, final int value)
    {
        final MemorySegment integer = arena.allocate(ValueLayout.JAVA_INT);
        integer.set(ValueLayout.JAVA_INT, 0, value);
        setsockopt(state, fd, SOL_PACKET, option, integer, 4); // older kernels: the frame type filter covers it
    }

    static int htons(final int value)
    {
        return ((value & 0xFF) << 8) | ((value >>> 8) & 0xFF);
    }

    static long parseMac(final String text, final String iface)
    {
        final String[] parts = text.split(":");
        if (parts.length != 6)
        {
            throw new PortException(iface + " has no Ethernet MAC address ('" + text + "')");
        }
        long mac = 0;
        for (final String part : parts)
        {
            mac = (mac << 8) | Integer.parseInt(part, 16);
        }
        return mac;
    }

    private static String interfaces()
    {
        try (Stream<Path> entries = Files.list(Path.of("/sys/class/net")))
        {
            return String.join(", ", entries.map(p -> p.getFileName().toString()).sorted().toList());
        }
        catch (final IOException ex)
        {
            return "unknown";
        }
    }
}
