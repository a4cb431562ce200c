package io.rnic.tools.mw;

import io.rnic.datapath.endpoint.Endpoint;
import io.rnic.datapath.endpoint.EndpointOptions;
import io.rnic.datapath.endpoint.InterfaceAddresses;
import io.rnic.datapath.port.PortException;
import io.rnic.device.ConnectParameters;
import io.rnic.device.QueuePair;
import io.rnic.device.RnicContext;
import io.rnic.tools.DriverToolDevice;
import io.rnic.tools.EmbeddedToolDevice;
import io.rnic.tools.PortFactory;
import io.rnic.tools.Ports;
import io.rnic.tools.UsageException;
import io.rnic.tools.options.CommandLine;
import io.rnic.tools.options.GivenOption;
import io.rnic.tools.options.OptionHelp;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.MemoryRegion;
import io.rnic.verbs.MemoryWindow;
import io.rnic.verbs.PathMtu;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.QpInitAttributes;
import io.rnic.verbs.QpType;
import io.rnic.verbs.RecvWorkRequest;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.WcOpcode;
import io.rnic.verbs.WcStatus;
import io.rnic.verbs.WorkCompletion;
import io.rnic.verbs.WrOpcode;
import io.rnic.tools.options.ToolDefaults;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;

/**
 * {@code rnic mw-peer}: memory windows against a peer running {@code deploy/interop/mw_peer.c} (rdma-core's verbs,
 * e.g. on Linux Soft-RoCE), over two RC QPs. On QP A the peer binds a type 1 window ({@code ibv_bind_mw}) and a
 * type 2 window ({@code IBV_WR_BIND_MW}); we READ both and check the bytes, WRITE both, invalidate the type 2 window
 * with SEND_WITH_INV and expect the next WRITE through it refused with REM_ACCESS_ERR; the peer checks what landed.
 * On QP B the roles swap: our windows (the bind verb and a BIND_MW work request), the peer's accesses, and we check
 * the bytes, that nothing landed outside the windows, and the SEND_WITH_INV's receive completion. The exchange is
 * one text line each way per step over TCP. Exit 0 when every check on both sides passed.
 */
public final class MwPeer
{
    public static final String SYNOPSIS = OptionHelp.synopsis("mw-peer", "SERVER");
    public static final String DETAILS = String.join("\n", OptionHelp.help("mw-peer"),
        "SERVER is where deploy/interop/mw_peer runs (its TCP exchange listens on -p, 18516).");
    public static final int PORT_DEFAULT = ToolDefaults.MW_PEER_PORT;
    private static final int REGION_BYTES = 64 * 1024;
    private static final int W1_OFFSET = 4096;
    private static final int W2_OFFSET = 16384;
    private static final int WINDOW_BYTES = 8192;
    private static final int SCRATCH_OFFSET = 40960;
    private static final byte UNTOUCHED = (byte)0xA5;

    private final PrintStream out;
    private String iface;
    private String server;
    private int port = PORT_DEFAULT;
    private int gidIndex = 1;
    private long timeoutMs = 20_000;
    private java.nio.file.Path pcap;
    private java.nio.file.Path driver;
    private int failures;

    private RnicContext context;
    private MemorySegment memory;
    private MemoryRegion mr;
    private final WorkCompletion[] completions = { new WorkCompletion() };

    private MwPeer(final PrintStream out)
    {
        this.out = out;
    }

    public static int run(final String[] args, final PrintStream out, final PrintStream err) throws IOException
    {
        final MwPeer peer = new MwPeer(out);
        peer.parse(args);
        return peer.run();
    }

    private void parse(final String[] args)
    {
        final CommandLine line = CommandLine.parse("mw-peer", args);
        for (final GivenOption given : line.options())
        {
            switch (given.option())
            {
                case INTERFACE -> iface = Ports.interfaceOf(given.text());
                case PORT -> port = given.intValue();
                case GID_INDEX -> gidIndex = given.intValue();
                case TIMEOUT_MS -> timeoutMs = given.number();
                case PCAP -> pcap = given.path();
                case DRIVER -> driver = given.path();
                default -> throw given.notHandled("mw-peer");
            }
        }
        if (line.operands().size() > 1)
        {
            throw new UsageException("one SERVER at most, got " + line.operands());
        }
        server = line.operands().isEmpty() ? null : line.operands().get(0);
        if (server == null)
        {
            throw new UsageException("mw-peer needs the SERVER where mw_peer runs");
        }
        if (driver != null && (iface != null || pcap != null))
        {
            throw new UsageException("-d and --pcap are the driver's with --driver (give them to bin/rnic driver)");
        }
    }

    private int run() throws IOException
    {
        if (driver != null)
        {
            try (DriverToolDevice device = DriverToolDevice.open(driver, null, -1))
            {
                context = device.context();
                return talk();
            }
        }
        final String name = iface != null ? iface : Ports.defaultInterface();
        final PortFactory.OpenedPort opened;
        try
        {
            opened = Ports.open(new PortFactory.Request("afpacket", name, 1, false, null, List.of()));
        }
        catch (final IllegalArgumentException | PortException ex)
        {
            throw new UsageException(ex.getMessage());
        }
        final EndpointOptions options = EndpointOptions.defaults().withIdleStrategy("yield").withCapture(pcap)
            .withHoldRocePort(true).withAnswerNeighbours(false);
        try (EmbeddedToolDevice device = EmbeddedToolDevice.of(Endpoint.start(opened.ports(), opened.addressing(),
            options)))
        {
            device.awaitEngines(timeoutMs);
            context = device.context();
            return talk();
        }
    }

    /** The exchange with mw_peer over TCP, then the checks, on {@link #context}. */
    private int talk() throws IOException
    {
        try (Socket socket = new Socket())
        {
            socket.connect(new InetSocketAddress(server, port), (int)Math.min(timeoutMs, Integer.MAX_VALUE));
            socket.setSoTimeout((int)Math.min(timeoutMs * 4, Integer.MAX_VALUE));
            final BufferedReader in =
                new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII));
            final PrintWriter tcp = new PrintWriter(socket.getOutputStream(), true, StandardCharsets.US_ASCII);
            return exchange(in, tcp);
        }
    }

    private int exchange(final BufferedReader in, final PrintWriter tcp) throws IOException
    {
        final ProtectionDomain pd = context.allocPd();
        memory = context.allocate(REGION_BYTES);
        mr = context.registerMemoryRegion(pd, memory, AccessFlags.ALL | AccessFlags.MW_BIND);
        final CompletionQueue cqA = context.createCq(64);
        final CompletionQueue cqB = context.createCq(64);
        final QueuePair qpA = context.createQp(new QpInitAttributes().type(QpType.RC).pd(pd).cqs(cqA, cqA)
            .capacity(16, 16));
        final QueuePair qpB = context.createQp(new QpInitAttributes().type(QpType.RC).pd(pd).cqs(cqB, cqB)
            .capacity(16, 16));
        final int psn = ThreadLocalRandom.current().nextInt(1 << 24);
        final long gidHigh = context.port().gidHigh(gidIndex);
        final long gidLow = context.port().gidLow(gidIndex);
        tcp.println(String.format("HELLO %d %d %d %016x%016x", qpA.qpn(), qpB.qpn(), psn, gidHigh, gidLow));
        final String[] hello = expect(in, "HELLO", 5);
        final String gidHex = hello[4];
        final long peerGidHigh = Long.parseUnsignedLong(gidHex.substring(0, 16), 16);
        final long peerGidLow = Long.parseUnsignedLong(gidHex.substring(16), 16);
        final InetAddress peerAddress = InterfaceAddresses.gidAddress(peerGidHigh, peerGidLow);
        final long mac = context.resolveMac(peerAddress, gidIndex, Duration.ofMillis(timeoutMs));
        final int peerPsn = Integer.parseInt(hello[3]);
        connect(qpA, Integer.parseInt(hello[1]), psn, peerPsn, peerGidHigh, peerGidLow, mac);
        connect(qpB, Integer.parseInt(hello[2]), psn, peerPsn, peerGidHigh, peerGidLow, mac);

        accessPeerWindows(in, tcp, qpA, cqA);
        offerOurWindows(in, tcp, pd, qpB, cqB);
        out.println((failures == 0 ? "PASS" : "FAIL") + ": " + failures + " failure(s)");
        return failures == 0 ? 0 : 1;
    }

    /** QP A: the peer's windows, our accesses. */
    private void accessPeerWindows(
        final BufferedReader in, final PrintWriter tcp, final QueuePair qp, final CompletionQueue cq) throws IOException
    {
        final String[] windows = expect(in, "WINDOWS", 6);
        final long va1 = Long.parseUnsignedLong(windows[1]);
        final int rKey1 = Integer.parseUnsignedInt(windows[2]);
        final long va2 = Long.parseUnsignedLong(windows[3]);
        final int rKey2 = Integer.parseUnsignedInt(windows[4]);
        final int length = Integer.parseInt(windows[5]);
        final long scratch = mr.address() + SCRATCH_OFFSET;

        memory.asSlice(SCRATCH_OFFSET, length).fill((byte)0);
        WcStatus status = post(qp, cq, WrOpcode.RDMA_READ, scratch, length, va1, rKey1);
        check(status == WcStatus.SUCCESS && matches(SCRATCH_OFFSET, length, true),
            "READ through the peer's type 1 window", status);
        memory.asSlice(SCRATCH_OFFSET, length).fill((byte)0);
        status = post(qp, cq, WrOpcode.RDMA_READ, scratch, length, va2, rKey2);
        check(status == WcStatus.SUCCESS && matches(SCRATCH_OFFSET, length, true),
            "READ through the peer's type 2 window", status);
        fill(SCRATCH_OFFSET, length, false);
        status = post(qp, cq, WrOpcode.RDMA_WRITE, scratch, length, va1, rKey1);
        check(status == WcStatus.SUCCESS, "WRITE through the peer's type 1 window", status);
        status = post(qp, cq, WrOpcode.RDMA_WRITE, scratch, length, va2, rKey2);
        check(status == WcStatus.SUCCESS, "WRITE through the peer's type 2 window", status);
        status = post(qp, cq, WrOpcode.SEND_WITH_INV, scratch, 16, 0, rKey2);
        check(status == WcStatus.SUCCESS, "SEND_WITH_INV naming the peer's type 2 window", status);
        status = post(qp, cq, WrOpcode.RDMA_WRITE, scratch, 8, va2, rKey2);
        check(status == WcStatus.REM_ACCESS_ERR, "a WRITE through the invalidated window: REM_ACCESS_ERR", status);
        tcp.println("DONE");
        final String checked = in.readLine();
        check("CHECKED ok".equals(checked), "the peer's checks of our accesses", checked);
    }

    /** QP B: our windows, the peer's accesses. */
    private void offerOurWindows(
        final BufferedReader in, final PrintWriter tcp, final ProtectionDomain pd, final QueuePair qp,
        final CompletionQueue cq) throws IOException
    {
        memory.fill(UNTOUCHED);
        fill(W1_OFFSET, WINDOW_BYTES, true);
        fill(W2_OFFSET, WINDOW_BYTES, true);
        final int rights = AccessFlags.REMOTE_READ | AccessFlags.REMOTE_WRITE;
        final MemoryWindow w1 = context.allocMw(pd, MemoryWindow.TYPE_1);
        final MemoryWindow w2 = context.allocMw(pd, MemoryWindow.TYPE_2);
        final SendWorkRequest bind1 = new SendWorkRequest();
        bind1.wrId = 1;
        bind1.mwMrLKey = mr.lKey();
        bind1.mwAddress = mr.address() + W1_OFFSET;
        bind1.mwLength = WINDOW_BYTES;
        bind1.mwAccess = rights;
        WorkCompletion wc = qp.bindMw(w1, bind1) == QueuePair.POST_OK ? await(cq) : null;
        check(wc != null && wc.status() == WcStatus.SUCCESS && wc.opcode() == WcOpcode.BIND_MW,
            "we bind a type 1 window (the bind verb)", wc);
        final int rKey2 = MemoryWindow.incRKey(w2.rKey());
        final SendWorkRequest bind2 = new SendWorkRequest().bindMw(w2, rKey2, mr, mr.address() + W2_OFFSET,
            WINDOW_BYTES, rights);
        bind2.wrId = 2;
        wc = qp.postSend(bind2) == QueuePair.POST_OK ? await(cq) : null;
        check(wc != null && wc.status() == WcStatus.SUCCESS && wc.opcode() == WcOpcode.BIND_MW,
            "we bind a type 2 window (BIND_MW)", wc);
        final RecvWorkRequest recv = new RecvWorkRequest();
        recv.wrId = 90;
        recv.sgl.add(mr.address() + SCRATCH_OFFSET, 4096, mr.lKey());
        qp.postRecv(recv);
        tcp.println("WINDOWS " + Long.toUnsignedString(mr.address() + W1_OFFSET) + " " +
            Integer.toUnsignedString(w1.rKey()) + " " + Long.toUnsignedString(mr.address() + W2_OFFSET) + " " +
            Integer.toUnsignedString(rKey2) + " " + WINDOW_BYTES);
        expect(in, "DONE", 1);
        final int before = failures;
        check(matches(W1_OFFSET, WINDOW_BYTES, false), "the peer's WRITE through our type 1 window", null);
        check(matches(W2_OFFSET, WINDOW_BYTES, false), "the peer's WRITE through our type 2 window", null);
        boolean untouched = true;
        for (int i = 0; i < 64; i++)
        {
            untouched &= memory.get(ValueLayout.JAVA_BYTE, W1_OFFSET + WINDOW_BYTES + i) == UNTOUCHED &&
                memory.get(ValueLayout.JAVA_BYTE, W2_OFFSET + WINDOW_BYTES + i) == UNTOUCHED &&
                memory.get(ValueLayout.JAVA_BYTE, W1_OFFSET - 1 - i) == UNTOUCHED;
        }
        check(untouched, "nothing written outside our windows", null);
        wc = await(cq);
        check(wc != null && wc.status() == WcStatus.SUCCESS && wc.opcode() == WcOpcode.RECV &&
            wc.hasFlag(WorkCompletion.WITH_INV) && wc.immediateData() == rKey2,
            "the peer's SEND_WITH_INV completes WITH_INV and our window's R_Key", wc);
        tcp.println(failures == before ? "CHECKED ok" : "CHECKED fail");
    }

    private void connect(
        final QueuePair qp, final int remoteQpn, final int psn, final int remotePsn, final long gidHigh,
        final long gidLow, final long mac)
    {
        final ConnectParameters parameters = new ConnectParameters().remote(remoteQpn, remotePsn).localPsn(psn)
            .pathMtu(PathMtu.MTU_1024).readAtomic(1, 1);
        // 1.07 s: an emulated (TCG) guest's first answers through a window took longer than perftest's 67 ms once
        parameters.timeout = 18;
        parameters.accessFlags = AccessFlags.REMOTE_READ | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_ATOMIC;
        parameters.addressVector.destinationGid(gidHigh, gidLow).destinationMac(mac).sourceGidIndex(gidIndex)
            .hopLimit(64);
        parameters.applyTo(qp);
    }

    private WcStatus post(
        final QueuePair qp, final CompletionQueue cq, final int opcode, final long local, final int length,
        final long remote, final int rKey)
    {
        final SendWorkRequest wr = new SendWorkRequest();
        wr.wrId = 7;
        wr.opcode = opcode;
        wr.sgl.add(local, length, mr.lKey());
        wr.remoteAddress = remote;
        wr.rKey = rKey;
        wr.immediateOrInvalidateRKey = rKey;
        if (qp.postSend(wr) != QueuePair.POST_OK)
        {
            return null;
        }
        final WorkCompletion wc = await(cq);
        return wc == null ? null : wc.status();
    }

    private WorkCompletion await(final CompletionQueue cq)
    {
        final long deadlineNs = System.nanoTime() + timeoutMs * 1_000_000L;
        while (System.nanoTime() - deadlineNs < 0)
        {
            if (cq.poll(completions, 1) == 1)
            {
                return completions[0];
            }
            LockSupport.parkNanos(20_000);
        }
        return null;
    }

    private static String[] expect(final BufferedReader in, final String word, final int fields) throws IOException
    {
        final String line = in.readLine();
        final String[] parts = line == null ? new String[0] : line.trim().split(" ");
        if (parts.length != fields || !parts[0].equals(word))
        {
            throw new IOException("expected " + word + " from mw_peer, got: " + line);
        }
        return parts;
    }

    private void fill(final long offset, final int length, final boolean owner)
    {
        for (int i = 0; i < length; i++)
        {
            memory.set(ValueLayout.JAVA_BYTE, offset + i, pattern(i, owner));
        }
    }

    private boolean matches(final long offset, final int length, final boolean owner)
    {
        for (int i = 0; i < length; i++)
        {
            if (memory.get(ValueLayout.JAVA_BYTE, offset + i) != pattern(i, owner))
            {
                return false;
            }
        }
        return true;
    }

    /** mw_peer.c's patterns: the windows' owner fills them, the peer writes the other. */
    private static byte pattern(final int i, final boolean owner)
    {
        return (byte)(owner ? i * 7 + 1 : i * 13 + 5);
    }

    private void check(final boolean ok, final String what, final Object detail)
    {
        out.println((ok ? "ok " : "FAIL ") + what + (detail != null ? ": " + detail : ""));
        if (!ok)
        {
            failures++;
        }
    }
}
