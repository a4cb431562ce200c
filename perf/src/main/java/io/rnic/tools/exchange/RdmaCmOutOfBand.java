package io.rnic.tools.exchange;

import io.rnic.cm.CmId;
import io.rnic.cm.CmRejFlyweight;
import io.rnic.cm.CmService;
import io.rnic.cm.ConnectionManager;
import io.rnic.datapath.endpoint.InterfaceAddresses;
import io.rnic.device.QueuePair;
import io.rnic.device.RnicContext;
import io.rnic.tools.LocalQp;
import io.rnic.tools.RemoteQp;
import io.rnic.tools.ToolDevice;
import io.rnic.tools.ToolKind;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.MemoryRegion;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.QpAttrMask;
import io.rnic.verbs.QpAttributes;
import io.rnic.verbs.QpInitAttributes;
import io.rnic.verbs.QpState;
import io.rnic.verbs.QpType;
import io.rnic.verbs.RecvWorkRequest;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.WcOpcode;
import io.rnic.verbs.WcStatus;
import io.rnic.verbs.WorkCompletion;
import io.rnic.verbs.WrOpcode;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * perftest's exchange with {@code -R} (connect with the RDMA CM), as perftest 4.5 (version 6.06) has it
 * ({@code shared/rxe-peer/pcaps/ib_write_bw_rdmacm.pcap}). No TCP: the client connects an RC QP of its own, the
 * "comm" QP, to the server's port (18515 by default, RDMA_PS_TCP service ID {@code 0x0000000001064853}) with the CM
 * (responder resources and initiator depth 0, no consumer private data), and the exchange runs as SEND/RECV on it.
 * At every step the client sends first and the server answers, as over TCP:
 * <ol>
 * <li>version (16 bytes), cycle buffer and cache line size (4-byte big-endian ints), MTU (2 bytes): the TCP
 *     messages, byte for byte ({@link PerftestOutOfBand});</li>
 * <li>one all-zero 56-byte {@code struct pingpong_dest}; then the client connects the test QPs (-q, each its own
 *     rdma_cm id) with one more CM connection each to the same port, and the server, which knows their number from
 *     its own -q, accepts as many, each request for its next QP in the order they come (perftest's
 *     {@code create_rdma_cm_connection}: the client's REQs go out in the order of its QPs); then another all-zero
 *     one;</li>
 * <li>the keys as a binary {@code struct pingpong_dest} ({@link #KEY_BYTES} bytes, every field big-endian: LID,
 *     out_reads, QPN, PSN, R_Key, 4 bytes of padding, buffer address, GID, SRQ number, GID index), one message per
 *     QP, then the same at each of perftest's barriers, as over TCP (its second round of keys counts one per QP); the
 *     QPN and PSN are only printed: the CM connected the QPs;</li>
 * <li>after the test the same barriers and {@code bw_report_data} as over TCP, but no {@code "done"}: each side
 *     disconnects the test QPs' connections (the DREQs cross), then the server the comm connection.</li>
 * </ol>
 */
public final class RdmaCmOutOfBand implements OutOfBand
{
    /** {@code sizeof(struct pingpong_dest)} on x86-64. */
    static final int KEY_BYTES = 56;
    static final int LID_OFFSET = 0;
    static final int OUT_READS_OFFSET = 4;
    static final int QPN_OFFSET = 8;
    static final int PSN_OFFSET = 12;
    static final int RKEY_OFFSET = 16;
    static final int VADDR_OFFSET = 24;
    static final int GID_OFFSET = 32;
    static final int SRQN_OFFSET = 48;
    static final int GID_INDEX_OFFSET = 52;
    /** The largest message of the exchange. */
    private static final int SLOT_BYTES = 64;
    private static final int RECEIVES = 2;
    private static final long SEND_WR_ID = -1;
    /** How long the client waits for the server's DREQ of the comm connection before sending its own. */
    private static final long PEER_DREQ_WAIT_NS = 1_000_000_000L;
    /** How long the client waits before it asks again for a test QP connection nobody listened for. */
    private static final long RELISTEN_WAIT_NS = 10_000_000L;
    private static final byte[] NO_PRIVATE_DATA = new byte[0];

    private final CmService cm;
    private final RnicContext context;
    private final boolean server;
    private final PerftestOutOfBand.Script script;
    private final ToolKind kind;
    private final long[] serverGid;
    private final int port;
    private final int gidIndex;
    private final long timeoutNs;
    private final String peerName;
    private final QueuePair commQp;
    private final CompletionQueue sendCq;
    private final CompletionQueue recvCq;
    private final MemoryRegion mr;
    private final MemorySegment memory;
    private final WorkCompletion[] wcs = { new WorkCompletion() };
    private final SendWorkRequest send = new SendWorkRequest();
    private final RecvWorkRequest recv = new RecvWorkRequest();
    private CmId comm;
    private CmId[] data = new CmId[0];
    /**
     * perftest's -T, set (rdma_set_option(RDMA_OPTION_ID_TOS)) on the test QP's cm_id only: perftest 4.5 connects
     * its exchange's QP without it (DSCP 0 in a capture of ib_send_lat -R -T against rxe); -1: not given.
     */
    private final int typeOfService;
    private byte[] lastKeys;
    /** Our key message of each QP, for the second round. */
    private byte[][] keys = new byte[0][];
    /** The peer's key message of each QP in the first round, which the second must repeat. */
    private byte[][] peerKeys = new byte[0][];
    private boolean peerIsRnic;
    private int peerMtuEnum;
    /** While the test runs: a wait that times out while the peer's packets arrive waits on (null: it fails). */
    private PeerActivity activity;

    private RdmaCmOutOfBand(final ToolKind kind, final ToolDevice device, final int gidIndex,
        final long[] serverGid, final int port, final long timeoutMs, final int typeOfService)
    {
        this.kind = kind;
        this.context = device.context();
        this.script = PerftestOutOfBand.Script.of(kind);
        this.server = serverGid == null;
        this.serverGid = serverGid;
        this.port = port;
        this.gidIndex = gidIndex;
        this.timeoutNs = timeoutMs * 1_000_000L;
        this.peerName = server ? "the rdma_cm client" :
            InterfaceAddresses.gidAddress(serverGid[0], serverGid[1]).getHostAddress() + " port " + port;
        final ProtectionDomain pd = context.allocPd();
        sendCq = context.createCq(16);
        recvCq = context.createCq(16);
        commQp = context.createQp(new QpInitAttributes().type(QpType.RC).pd(pd).cqs(sendCq, recvCq)
            .capacity(4, 4).signalAll(true));
        // the context's memory: through a driver, only that can be registered; freed with the device
        memory = context.allocate((long)SLOT_BYTES * (RECEIVES + 1));
        memory.fill((byte)0);
        mr = context.registerMemoryRegion(pd, memory, AccessFlags.LOCAL_WRITE);
        ConnectionManager.toInit(commQp); // as rdma_create_qp: the receives are posted before the connection
        for (int slot = 0; slot < RECEIVES; slot++)
        {
            postReceive(slot);
        }
        // the server listens before anything can arrive, as rdma_listen
        this.cm = device.openConnectionManager(gidIndex, Duration.ofMillis(Math.min(timeoutMs, 30_000)),
            server ? port : -1, -1);
        this.typeOfService = typeOfService;
    }

    /**
     * Connects the comm QP (client) or accepts the client's (server: {@code serverGid} null) and runs the exchange
     * up to the keys.
     *
     * @param mtu our IB path MTU in bytes, announced in the MTU message.
     */
    public static RdmaCmOutOfBand open(final ToolKind kind, final ToolDevice device, final int gidIndex,
        final long[] serverGid, final int port, final long timeoutMs, final int mtu) throws IOException
    {
        return open(kind, device, gidIndex, serverGid, port, timeoutMs, mtu, -1);
    }

    /** As above, the test QP's connection made with the RDMA CM's type of service {@code typeOfService} (-1: none). */
    public static RdmaCmOutOfBand open(final ToolKind kind, final ToolDevice device, final int gidIndex,
        final long[] serverGid, final int port, final long timeoutMs, final int mtu, final int typeOfService)
        throws IOException
    {
        final RdmaCmOutOfBand oob =
            new RdmaCmOutOfBand(kind, device, gidIndex, serverGid, port, timeoutMs, typeOfService);
        try
        {
            oob.comm = oob.connect(oob.commQp, "the exchange's QP", 0);
            oob.prologue(mtu);
        }
        catch (final IOException | RuntimeException ex)
        {
            oob.close();
            throw ex;
        }
        return oob;
    }

    /** What perftest asks the CM for: READs and atomics need responder resources, WRITEs and SENDs none. */
    static int readAtomicResources(final ToolKind kind)
    {
        return kind.operation() == ToolKind.Operation.READ || kind.operation() == ToolKind.Operation.ATOMIC ?
            PerftestOutOfBand.OUT_READS : 0;
    }

    private CmId connect(final QueuePair qp, final String what, final int resources) throws IOException
    {
        final long deadlineNs = System.nanoTime() + timeoutNs;
        if (server)
        {
            final CmId request = cm.awaitConnectRequest(deadlineNs - System.nanoTime());
            if (request == null)
            {
                throw new IOException("no rdma_cm connect request for " + what + " on port " + port + " within " +
                    timeoutNs / 1_000_000 + " ms");
            }
            cm.accept(request, qp, resources, resources, NO_PRIVATE_DATA);
            // established when the RTU arrives; the client's first SEND may come before it (the QP is in RTS)
            return request;
        }
        final int tos = qp == commQp ? -1 : typeOfService;
        CmId c = cm.connect(qp, gidIndex, serverGid[0], serverGid[1], port, resources, resources, NO_PRIVATE_DATA,
            tos);
        while (!c.isEstablished())
        {
            final CmId awaited = c;
            cm.await(() -> awaited.isEstablished() || awaited.isClosed(), deadlineNs - System.nanoTime());
            if (c.isClosed() && retriesListening(c, qp, deadlineNs))
            {
                // perftest's server listens for the test QP's connection only after it answered the hand-shake
                // before it: a REQ quicker than librdmacm's address and route resolution may find no listener
                cm.await(() -> false, RELISTEN_WAIT_NS);
                resetQp(qp);
                c = cm.connect(qp, gidIndex, serverGid[0], serverGid[1], port, resources, resources, NO_PRIVATE_DATA,
                    tos);
                continue;
            }
            if (c.isClosed())
            {
                throw new IOException("rdma_cm connect of " + what + " to " + peerName + " failed: " +
                    closedReason(c));
            }
            if (System.nanoTime() - deadlineNs > 0)
            {
                throw new IOException("rdma_cm connect of " + what + " to " + peerName + ": no reply within " +
                    timeoutNs / 1_000_000 + " ms");
            }
        }
        return c;
    }

    /**
     * Why a connection ended, as our tools say it: "rejected: reason N (NAME)" with the REJ's reason and Linux's name
     * for it (librdmacm's {@code RDMA_CM_EVENT_REJECTED} status), else its state.
     */
    public static String closedReason(final CmId c)
    {
        return switch (c.state())
        {
            case REJECTED -> "rejected: reason " + c.rejectReason() + " (" +
                CmRejFlyweight.reasonName(c.rejectReason()) + ")";
            case TIMED_OUT -> "unreachable: no reply after the CM's retries (TIMED_OUT)";
            default -> c.state().toString();
        };
    }

    /** A REJ "invalid service ID" (nobody listens yet) for the test QP's connection, with time left: try again. */
    private boolean retriesListening(final CmId c, final QueuePair qp, final long deadlineNs)
    {
        return qp != commQp && c.rejectReason() == CmRejFlyweight.REASON_INVALID_SERVICE_ID &&
            System.nanoTime() + RELISTEN_WAIT_NS - deadlineNs < 0;
    }

    /** The REJ moved the QP to the error state: back to RESET, for the CM to connect it again. */
    private static void resetQp(final QueuePair qp)
    {
        final QpAttributes attr = new QpAttributes();
        attr.state = QpState.RESET;
        qp.modify(attr, QpAttrMask.STATE);
    }

    private void prologue(final int mtu) throws IOException
    {
        final byte[] version = swap(PerftestOutOfBand.versionMessage(), "perftest version");
        final String peerVersion = TcpChannel.text(version);
        peerIsRnic = PerftestOutOfBand.isRnicVersion(version);
        if (!peerVersion.matches("\\d+\\.\\d+") || PerftestOutOfBand.compareVersions(peerVersion, "5.70") < 0)
        {
            throw new IOException("the peer " + peerName + " speaks perftest version '" + peerVersion + "'; we " +
                "speak " + PerftestOutOfBand.VERSION + " (and need 5.70 or later)");
        }
        // perftest's cycle buffer and cache line: ours are what perftest assumes, theirs unused (as over TCP)
        swap(PerftestOutOfBand.intMessage(PerftestOutOfBand.CYCLE_BUFFER), "perftest cycle buffer size");
        swap(PerftestOutOfBand.intMessage(PerftestOutOfBand.CACHE_LINE), "perftest cache line size");
        peerMtuEnum = PerftestOutOfBand.decodeMtu(swap(PerftestOutOfBand.mtuMessage(mtu), "perftest MTU"), peerName);
    }

    /** Client sends, then receives; server receives, then sends. */
    private byte[] swap(final byte[] mine, final String what) throws IOException
    {
        if (server)
        {
            final byte[] theirs = receive(mine.length, what);
            transmit(mine, what);
            return theirs;
        }
        transmit(mine, what);
        return receive(mine.length, what);
    }

    private void transmit(final byte[] message, final String what) throws IOException
    {
        final MemorySegment slot = memory.asSlice((long)RECEIVES * SLOT_BYTES, SLOT_BYTES);
        MemorySegment.copy(message, 0, slot, ValueLayout.JAVA_BYTE, 0, message.length);
        send.reset();
        send.opcode = WrOpcode.SEND;
        send.wrId = SEND_WR_ID;
        send.sgl.add(slot.address(), message.length, mr.lKey());
        final int status = commQp.postSend(send);
        if (status != QueuePair.POST_OK)
        {
            throw new IOException("cannot send the " + what + " (post send " + status + ", QP " + commQp.state() +
                ")");
        }
        await(sendCq, what + " (send)");
        if (wcs[0].opcode() != WcOpcode.SEND)
        {
            throw new IOException("completion of " + WcOpcode.name(wcs[0].opcode()) + " where the SEND of the " +
                what + " was expected");
        }
    }

    private byte[] receive(final int length, final String what) throws IOException
    {
        await(recvCq, what);
        final WorkCompletion wc = wcs[0];
        final int slot = (int)wc.wrId();
        if (wc.byteLength() != length)
        {
            throw new IOException("malformed " + what + " from " + peerName + ": " + wc.byteLength() +
                " bytes, expected " + length);
        }
        final byte[] message = new byte[length];
        MemorySegment.copy(memory, ValueLayout.JAVA_BYTE, (long)slot * SLOT_BYTES, message, 0, length);
        postReceive(slot);
        return message;
    }

    private void await(final CompletionQueue cq, final String what) throws IOException
    {
        long deadlineNs = System.nanoTime() + timeoutNs;
        if (activity != null)
        {
            activity.waitStarts();
        }
        while (true)
        {
            if (cq.poll(wcs, 1) == 1)
            {
                if (wcs[0].status() != WcStatus.SUCCESS)
                {
                    throw new IOException("the " + what + " on the exchange's QP completed with " +
                        wcs[0].status() + " (" + peerName + ")");
                }
                return;
            }
            if (comm.isClosed())
            {
                throw new IOException(peerName + " disconnected (" + comm.state() + ") while we waited for the " +
                    what);
            }
            if (System.nanoTime() - deadlineNs > 0)
            {
                if (activity != null && activity.stillActive(what + " from " + peerName))
                {
                    deadlineNs = System.nanoTime() + timeoutNs; // its packets keep coming: it runs the test
                    continue;
                }
                throw new IOException("no " + what + " from " + peerName + " within " + timeoutNs / 1_000_000 +
                    " ms" + (activity != null ? ", and no packet from it meanwhile" : ""));
            }
            idle();
        }
    }

    @Override
    public void watchPeer(final PeerActivity activity)
    {
        this.activity = activity;
    }

    private void postReceive(final int slot)
    {
        recv.wrId = slot;
        recv.sgl.clear();
        recv.sgl.add(memory.address() + (long)slot * SLOT_BYTES, SLOT_BYTES, mr.lKey());
        commQp.postRecv(recv);
    }

    /** perftest's {@code struct pingpong_dest} as {@code rdma_write_keys} sends it: each field big-endian. */
    static byte[] encode(final int outReads, final int qpn, final int psn, final int rKey, final long address,
        final long gidHigh, final long gidLow, final int gidIndex)
    {
        final ByteBuffer b = ByteBuffer.allocate(KEY_BYTES);
        b.putInt(LID_OFFSET, 0).putInt(OUT_READS_OFFSET, outReads).putInt(QPN_OFFSET, qpn).putInt(PSN_OFFSET, psn)
            .putInt(RKEY_OFFSET, rKey).putLong(VADDR_OFFSET, address).putLong(GID_OFFSET, gidHigh)
            .putLong(GID_OFFSET + 8, gidLow).putInt(SRQN_OFFSET, 0).putInt(GID_INDEX_OFFSET, gidIndex);
        return b.array();
    }

    static RemoteQp decode(final byte[] message, final String peer) throws IOException
    {
        if (message.length != KEY_BYTES)
        {
            throw new IOException("malformed perftest keys from " + peer + ": " + message.length + " bytes, " +
                "expected " + KEY_BYTES);
        }
        final ByteBuffer b = ByteBuffer.wrap(message);
        final int qpn = b.getInt(QPN_OFFSET);
        final int psn = b.getInt(PSN_OFFSET);
        if ((qpn & ~0xFF_FFFF) != 0 || (psn & ~0xFF_FFFF) != 0)
        {
            throw new IOException(String.format("malformed perftest keys from %s: QPN 0x%x, PSN 0x%x (24 bits each)",
                peer, qpn, psn));
        }
        final int outReads = b.getInt(OUT_READS_OFFSET);
        return new RemoteQp(qpn, psn, b.getInt(RKEY_OFFSET), b.getLong(VADDR_OFFSET), b.getLong(GID_OFFSET),
            b.getLong(GID_OFFSET + 8), outReads > 0 ? outReads : 1);
    }

    /**
     * Connects each QP with a CM connection of its own, in order: the client one REQ after the other, the server each
     * request it gets for its next QP; then one key message per QP.
     */
    @Override
    public RemoteQp[] exchange(final LocalQp[] local, final long gidHigh, final long gidLow,
        final Consumer<RemoteQp[]> connect) throws IOException
    {
        final byte[] zeros = new byte[KEY_BYTES];
        swap(zeros, "perftest rdma_cm hand-shake");
        data = new CmId[local.length];
        for (int i = 0; i < local.length; i++)
        {
            final LocalQp q = local[i];
            data[i] = connect(q.qp, local.length == 1 ? "the test's QP" : "the test's QP " + i,
                readAtomicResources(kind));
            q.psn = data[i].remotePsn(); // what we send from: the PSN the peer announced to the CM
        }
        swap(zeros, "perftest rdma_cm hand-shake");
        final RemoteQp[] remote = new RemoteQp[local.length];
        keys = new byte[local.length][];
        peerKeys = new byte[local.length][];
        for (int i = 0; i < local.length; i++)
        {
            final LocalQp q = local[i];
            keys[i] = encode(PerftestOutOfBand.OUT_READS, q.qp.qpn(), q.psn, q.rKey, q.announcedAddress(),
                gidHigh, gidLow, gidIndex);
            peerKeys[i] = swap(keys[i], "perftest keys");
            remote[i] = decode(peerKeys[i], peerName);
        }
        lastKeys = keys[0];
        connect.accept(remote);
        return remote;
    }

    @Override
    public boolean connectsQps()
    {
        return true;
    }

    /**
     * The barriers before the test, perftest's: its second round of keys, each QP's again (perftest takes the peer's
     * buffer address and R_Key of each QP from this round), after one barrier in the SEND tests and at once in the
     * others; then the rest of the script's barriers. The peer's second round must repeat its first.
     */
    @Override
    public void sync() throws IOException
    {
        final int between = kind == ToolKind.SEND_BW || kind == ToolKind.SEND_LAT ? 1 : 0;
        for (int i = 0; i < between; i++)
        {
            swap(lastKeys, "perftest hand-shake");
        }
        for (int i = 0; i < keys.length; i++)
        {
            final byte[] again = swap(keys[i], "perftest keys (second round)");
            if (!Arrays.equals(again, peerKeys[i]))
            {
                throw new IOException("the second round of perftest keys from " + peerName + " names QP " + i +
                    " otherwise than the first: " + decode(again, peerName) + " after " +
                    decode(peerKeys[i], peerName));
            }
        }
        for (int i = 2 + between; i < script.handshakesBefore(); i++)
        {
            swap(lastKeys, "perftest hand-shake");
        }
    }

    @Override
    public void barrier() throws IOException
    {
        swap(lastKeys, "perftest hand-shake");
    }

    @Override
    public BandwidthReport finish(final BandwidthReport mine) throws IOException
    {
        BandwidthReport theirs = null;
        if (script.bandwidthReports())
        {
            swap(lastKeys, "perftest hand-shake");
            final BandwidthReport r = mine != null ? mine : BandwidthReport.NONE;
            final long size = ByteBuffer.wrap(swap(PerftestOutOfBand.longMessage(r.size()), "perftest report"))
                .getLong();
            final long iterations =
                ByteBuffer.wrap(swap(PerftestOutOfBand.longMessage(r.iterations()), "perftest report")).getLong();
            final double peak =
                ByteBuffer.wrap(swap(PerftestOutOfBand.doubleMessage(r.peakMBps()), "perftest report")).getDouble();
            final double average = ByteBuffer.wrap(swap(PerftestOutOfBand.doubleMessage(r.averageMBps()),
                "perftest report")).getDouble();
            final double rate = ByteBuffer.wrap(swap(PerftestOutOfBand.doubleMessage(r.messageRateMpps()),
                "perftest report")).getDouble();
            theirs = new BandwidthReport(size, iterations, peak, average, rate);
        }
        if (script.closeConnection() || peerIsRnic)
        {
            swap(lastKeys, "perftest hand-shake");
        }
        disconnect();
        return theirs;
    }

    /**
     * The test QPs' connections from both sides, then the comm connection from the server (the client's fallback).
     */
    private void disconnect() throws IOException
    {
        final long deadlineNs = System.nanoTime() + timeoutNs;
        for (final CmId c : data)
        {
            cm.disconnect(c);
        }
        for (final CmId c : data)
        {
            awaitClosed(c, deadlineNs, "the test QP's DREP");
        }
        if (server)
        {
            cm.disconnect(comm);
        }
        else
        {
            cm.await(comm::isClosed, PEER_DREQ_WAIT_NS);
            cm.disconnect(comm); // no-op once the server's DREQ closed it
        }
        awaitClosed(comm, deadlineNs, "the exchange QP's DREP");
        // a moment to answer a retransmitted DREQ (our DREP lost) before the GSI QP goes away
        cm.await(() -> false, 50_000_000L);
    }

    private void awaitClosed(final CmId c, final long deadlineNs, final String what) throws IOException
    {
        if (!cm.await(c::isClosed, deadlineNs - System.nanoTime()))
        {
            throw new IOException("no " + what + " from " + peerName + " within " + timeoutNs / 1_000_000 + " ms");
        }
    }

    @Override
    public boolean hasClosingBarrier()
    {
        return script.closeConnection() || peerIsRnic;
    }

    @Override
    public int pathMtu(final int ours)
    {
        return data.length > 0 ? data[0].pathMtu().bytes() : Math.min(ours, 128 << peerMtuEnum);
    }

    @Override
    public boolean peerIsRnic()
    {
        return peerIsRnic;
    }

    @Override
    public void close()
    {
        cm.close(); // the connections end; their QPs stay ours
        context.destroyQp(commQp);
        context.deregisterMemoryRegion(mr);
    }

    private static void idle()
    {
        LockSupport.parkNanos(20_000);
    }
}
