package io.rnic.tools.rping;

import io.rnic.cm.CmCounter;
import io.rnic.cm.CmId;
import io.rnic.cm.CmService;
import io.rnic.cnc.CncException;
import io.rnic.cm.ConnectionManager;
import io.rnic.datapath.endpoint.Endpoint;
import io.rnic.datapath.endpoint.EndpointOptions;
import io.rnic.datapath.endpoint.InterfaceAddresses;
import io.rnic.datapath.port.PortException;
import io.rnic.device.QueuePair;
import io.rnic.device.RnicContext;
import io.rnic.tools.DriverToolDevice;
import io.rnic.tools.EmbeddedToolDevice;
import io.rnic.tools.GidSelection;
import io.rnic.tools.PortFactory;
import io.rnic.tools.Ports;
import io.rnic.tools.ToolDevice;
import io.rnic.tools.UsageException;
import io.rnic.tools.options.CommandLine;
import io.rnic.tools.options.GivenOption;
import io.rnic.tools.options.OptionHelp;
import io.rnic.tools.exchange.RdmaCmOutOfBand;
import io.rnic.tools.perftest.ToolReport;
import io.rnic.transport.LocalPort;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.MemoryRegion;
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

import java.io.IOException;
import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

/**
 * {@code rnic rping}: librdmacm's {@code rping} over our connection manager, in either role against the real tool.
 * The protocol, as examples/rping.c runs it: the client SENDs a 16-byte {@code rping_rdma_info} (buffer address
 * u64, R_Key u32, size u32, big-endian) naming its start buffer; the server RDMA READs it and SENDs a go-ahead; the
 * client SENDs the info of its sink buffer; the server RDMA WRITEs what it read there (the string and its NUL) and
 * SENDs "done". The start buffer holds {@code "rdma-ping-%d: "} and ASCII from a letter that moves one on each ping.
 * Connection set-up and tear-down go through the CM (REQ/REP/RTU, DREQ/DREP) on QP1.
 */
public final class Rping
{
    public static final String SYNOPSIS = OptionHelp.synopsis("rping", "");
    /** What {@code rnic help rping} adds: the flags as rping has them, and where ours differ. */
    public static final String DETAILS = String.join("\n", OptionHelp.help("rping"),
        "A server (-s) without -a listens on the port's first IPv4 address; a client (-c) needs -a.");
    public static final int PORT_DEFAULT = ToolDefaults.RPING_PORT;
    public static final int SIZE_DEFAULT = ToolDefaults.RPING_SIZE;
    /** rping's RPING_MSG_FMT; its minimum size leaves room for it with INT_MAX and the NUL. */
    static final String MESSAGE_FORMAT = "rdma-ping-%d: ";
    public static final int MIN_SIZE = ToolDefaults.RPING_MIN_SIZE;
    public static final int MAX_SIZE = ToolDefaults.RPING_MAX_SIZE;
    static final int INFO_BYTES = 16;

    private static final long RECV_WR_ID = 1;
    private static final long SEND_WR_ID = 2;
    private static final long RDMA_WR_ID = 3;

    private final PrintStream out;
    private final PrintStream err;
    private boolean server;
    private boolean client;
    private String address;
    private int port = PORT_DEFAULT;
    private long count;
    private int size = SIZE_DEFAULT;
    private boolean verbose;
    private boolean validate;
    private String iface;
    private String portKind = "afpacket";
    private long timeoutMs = 60_000;
    private String idle = "backoff";
    private java.nio.file.Path pcap;
    /** {@code -I}: the client's source address, or null: the port's first address of the server's family. */
    private String sourceAddress;
    /** {@code -P}: serve one client after another. */
    private boolean persistent;
    /** {@code -d}: rping's debug printfs. */
    private boolean debug;
    /** {@code -t}: the RDMA CM's type of service, -1: not set (the default, 0). */
    private int typeOfService = -1;
    private int vlanId = LocalPort.NO_VLAN;

    private java.nio.file.Path driver;
    private RnicContext context;
    private CmService cm;
    private CmId connection;
    private QueuePair qp;
    private ProtectionDomain pd;
    private CompletionQueue sendCq;
    private CompletionQueue recvCq;
    private MemoryRegion mr;
    private MemorySegment recvBuf;
    private MemorySegment sendBuf;
    private MemorySegment rdmaBuf;
    private MemorySegment startBuf;
    private final WorkCompletion[] wcs = { new WorkCompletion() };
    private final SendWorkRequest wr = new SendWorkRequest();
    private final RecvWorkRequest recv = new RecvWorkRequest();
    private long deadlineNs;
    private int gidIndex;

    private Rping(final PrintStream out, final PrintStream err)
    {
        this.out = out;
        this.err = err;
    }

    public static int run(final String[] args, final PrintStream out, final PrintStream err) throws IOException
    {
        final Rping rping = new Rping(out, err);
        rping.parse(args);
        return rping.run();
    }

    private void parse(final String[] args)
    {
        for (final GivenOption given : CommandLine.parse("rping", args).optionsOnly())
        {
            switch (given.option())
            {
                case RPING_SERVER -> server = true;
                case RPING_CLIENT -> client = true;
                case RPING_VERBOSE -> verbose = true;
                case RPING_VALIDATE -> validate = true;
                case RPING_ADDRESS -> address = given.text();
                case RPING_SOURCE -> sourceAddress = given.text();
                case RPING_PERSISTENT -> persistent = true;
                case RPING_DEBUG -> debug = true;
                case PORT -> port = given.intValue();
                case RPING_COUNT -> count = given.number();
                case RPING_SIZE -> size = given.intValue();
                case RPING_TOS -> typeOfService = given.intValue();
                case VLAN -> vlanId = given.intValue();
                case RPING_INTERFACE -> iface = Ports.interfaceOf(given.text());
                case PORT_KIND -> portKind = given.text();
                case TIMEOUT_MS -> timeoutMs = given.number();
                case IDLE -> idle = given.text();
                case PCAP -> pcap = given.path();
                case DRIVER -> driver = given.path();
                default -> throw given.notHandled("rping");
            }
        }
        if (server == client)
        {
            throw new UsageException("give one of -s (server) and -c (client)");
        }
        if (client && address == null)
        {
            throw new UsageException("-a ADDR is required (the server's address)");
        }
        if (persistent && client)
        {
            throw new UsageException("-P (persistent server) applies to the server (-s)");
        }
        if (sourceAddress != null && server)
        {
            throw new UsageException("-I (the source address) applies to the client (-c); a server listens on -a");
        }
    }

    private int run() throws IOException
    {
        final InetAddress serverAddress = address == null ? null : inetAddress("-a", address);
        final long[] sourceGid = sourceAddress == null ? null : InterfaceAddresses.gidOf(inetAddress("-I",
            sourceAddress));
        if (driver != null)
        {
            if (iface != null || pcap != null || !"afpacket".equals(portKind) || vlanId != LocalPort.NO_VLAN)
            {
                throw new UsageException((iface != null ? "--iface" : pcap != null ? "--pcap" :
                    vlanId != LocalPort.NO_VLAN ? "--vlan" : "--port") +
                    " sets up the port, which is the driver's business with --driver: give it to bin/rnic driver");
            }
            final DriverToolDevice device;
            try
            {
                device = DriverToolDevice.open(driver, idle, -1);
            }
            catch (final CncException ex)
            {
                throw new IOException(ex.getMessage(), ex);
            }
            try (device)
            {
                return runOn(device, serverAddress, sourceGid, device.name());
            }
        }
        final String name = iface != null ? iface : Ports.defaultInterface();
        final PortFactory.OpenedPort opened;
        try
        {
            opened = Ports.open(new PortFactory.Request(portKind, name, 1, false, null, java.util.List.of(), 0,
                vlanId, LocalPort.CNP_DSCP_DEFAULT, LocalPort.CNP_PRIORITY_DEFAULT));
        }
        catch (final IllegalArgumentException | PortException ex)
        {
            throw new UsageException(ex.getMessage());
        }
        final boolean afpacket = "afpacket".equals(portKind);
        final EndpointOptions options = EndpointOptions.defaults().withIdleStrategy(idle).withCapture(pcap)
            .withHoldRocePort(afpacket).withAnswerNeighbours(!afpacket || vlanId != LocalPort.NO_VLAN);
        // the device frees the memory it allocated only after its engine has stopped: a peer that keeps sending never
        // reaches freed memory
        try (EmbeddedToolDevice device = EmbeddedToolDevice.of(Endpoint.start(opened.ports(), opened.addressing(),
            options)))
        {
            return runOn(device, serverAddress, sourceGid, name);
        }
    }

    private int runOn(final ToolDevice device, final InetAddress serverAddress, final long[] sourceGid,
        final String name)
    {
        context = device.context();
        final LocalPort localPort = context.port();
        final long[] serverGid = serverAddress == null ? null : InterfaceAddresses.gidOf(serverAddress);
        final int gidIndex = localGid(localPort, serverGid, sourceGid, name);
        if (gidIndex < 0)
        {
            throw new UsageException(server ? address + " is not an address of " + name : sourceGid != null ?
                "-I " + sourceAddress + " is not an address of " + name :
                name + " has no address of " + address + "'s family");
        }
        deadlineNs = System.nanoTime() + timeoutMs * 1_000_000L;
        this.gidIndex = gidIndex;
        setUp();
        // the server listens before anything can arrive, as rdma_listen
        cm = device.openConnectionManager(gidIndex, Duration.ofMillis(Math.min(timeoutMs, 30_000)),
            server ? port : -1, typeOfService);
        try
        {
            final String failure = server ? runServer() : runClient(serverGid);
            if (failure != null)
            {
                err.println((server ? "server" : "client") + ": " + failure);
                err.println(" CM counters: " + cm.counters());
                err.print(device.countersReport());
                return 1;
            }
            return 0;
        }
        finally
        {
            cm.close();
        }
    }

    private static InetAddress inetAddress(final String option, final String value)
    {
        try
        {
            return InetAddress.getByName(value);
        }
        catch (final UnknownHostException ex)
        {
            throw new UsageException(option + " " + value + ": " + ex.getMessage());
        }
    }

    /**
     * Our GID: a server's -a, or without it the port's first IPv4 GID (else its first), as rping binds 0.0.0.0; a
     * client's -I, or the first of the server's family. -1 when the address given is not the port's.
     */
    private int localGid(final LocalPort localPort, final long[] serverGid, final long[] sourceGid, final String name)
    {
        if (server)
        {
            return serverGid == null ? GidSelection.byIndex(localPort, -1, name) :
                GidSelection.ofAddress(localPort, serverGid);
        }
        return sourceGid != null ? GidSelection.ofAddress(localPort, sourceGid) :
            GidSelection.ofFamily(localPort, serverGid);
    }

    private void setUp()
    {
        pd = context.allocPd();
        sendCq = context.createCq(16);
        recvCq = context.createCq(16);
        qp = newQp();
        // the context's memory: through a driver only that can be registered; freed with the device
        final MemorySegment memory = context.allocate(2L * INFO_BYTES + 2L * size);
        memory.fill((byte)0);
        recvBuf = memory.asSlice(0, INFO_BYTES);
        sendBuf = memory.asSlice(INFO_BYTES, INFO_BYTES);
        rdmaBuf = memory.asSlice(2 * INFO_BYTES, size);
        startBuf = memory.asSlice(2 * INFO_BYTES + size, size);
        mr = context.registerMemoryRegion(pd, memory, AccessFlags.ALL);
        ConnectionManager.toInit(qp); // as rdma_create_qp: receives may be posted before the connection
        postReceive();
    }

    private QueuePair newQp()
    {
        return context.createQp(new QpInitAttributes().type(QpType.RC).pd(pd).cqs(sendCq, recvCq)
            .capacity(8, 8).signalAll(true));
    }

    // ------------------------------------------------------------------------------------------------ server

    /**
     * One client, or with {@code -P} one after another, each on a fresh QP and CQs (the last QP is in the error state
     * after its disconnect, its receive flushed), until none has come for {@code --timeout-ms}.
     */
    private String runServer()
    {
        for (long served = 0; ; served++)
        {
            final CmId request = cm.awaitConnectRequest(leftNs());
            if (request == null)
            {
                return served > 0 ? null : "no connect request within " + timeoutMs + " ms";
            }
            debug("connect request from " + ToolReport.gidText(request.peerGidHigh(), request.peerGidLow()));
            final String failure = serveClient(request);
            if (!persistent)
            {
                return failure;
            }
            if (failure != null)
            {
                err.println("server: client " + (served + 1) + ": " + failure);
            }
            // new CQs too: the last QP's flushed receive must not complete the next client's first one
            context.destroyQp(qp);
            context.destroyCq(sendCq);
            context.destroyCq(recvCq);
            sendCq = context.createCq(16);
            recvCq = context.createCq(16);
            qp = newQp();
            ConnectionManager.toInit(qp);
            postReceive();
            deadlineNs = System.nanoTime() + timeoutMs * 1_000_000L;
        }
    }

    private void debug(final String message)
    {
        if (debug)
        {
            out.println(message);
        }
    }

    private String serveClient(final CmId request)
    {
        connection = request;
        cm.accept(request, qp, 1, 1, new byte[0]);
        for (long ping = 0; count == 0 || ping < count; ping++)
        {
            // the client's start buffer
            String failure = awaitReceive();
            if (failure != null)
            {
                return failure;
            }
            final long remoteAddress = recvBuf.get(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 0);
            final int remoteKey = recvBuf.get(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 8);
            final int remoteLength = recvBuf.get(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 12);
            if (remoteLength < 0 || remoteLength > size)
            {
                return "the client's buffer (" + Integer.toUnsignedString(remoteLength) + " bytes) is larger than -S " +
                    size;
            }
            postReceive();
            failure = post(WrOpcode.RDMA_READ, RDMA_WR_ID, rdmaBuf.address(), remoteLength, remoteAddress, remoteKey);
            if (failure == null)
            {
                failure = awaitSend(WcOpcode.RDMA_READ);
            }
            if (failure != null)
            {
                return failure;
            }
            if (verbose)
            {
                out.println("server ping data: " + cString(rdmaBuf));
            }
            // go ahead
            failure = sendInfo();
            if (failure != null)
            {
                return failure;
            }
            // the client's sink buffer
            failure = awaitReceive();
            if (failure != null)
            {
                return failure;
            }
            final long sinkAddress = recvBuf.get(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 0);
            final int sinkKey = recvBuf.get(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 8);
            postReceive();
            failure = post(WrOpcode.RDMA_WRITE, RDMA_WR_ID, rdmaBuf.address(), cLength(rdmaBuf) + 1, sinkAddress,
                sinkKey);
            if (failure == null)
            {
                failure = awaitSend(WcOpcode.RDMA_WRITE);
            }
            if (failure == null)
            {
                failure = sendInfo(); // done: begin again
                if (failure != null && count != 0 && ping == count - 1 && connection.isClosed())
                {
                    // the client disconnects once it has our last SEND: its DREQ may overtake the ACK of that SEND
                    // (lost, or still on its way) and flush it here. The DREQ is the delivery it answers, not an error
                    failure = null;
                }
            }
            if (failure != null)
            {
                return failure;
            }
        }
        // the client disconnects after its last ping; if it does not, we do
        cm.await(connection::isClosed, 2_000_000_000L);
        return disconnect("server");
    }

    // ------------------------------------------------------------------------------------------------ client

    private String runClient(final long[] serverGid)
    {
        final CmId c = cm.connect(qp, gidIndex, serverGid[0], serverGid[1], port, 1, 1, new byte[0]);
        connection = c;
        if (!cm.await(() -> c.isEstablished() || c.isClosed(), leftNs()))
        {
            return "connect error: no reply within " + timeoutMs + " ms";
        }
        if (c.isClosed())
        {
            return "connect error: " + RdmaCmOutOfBand.closedReason(c);
        }
        debug("connected to " + ToolReport.gidText(serverGid[0], serverGid[1]) + " port " + port);
        int start = 'A';
        for (long ping = 0; count == 0 || ping < count; ping++)
        {
            fillStart(ping, start);
            if (++start > 'z')
            {
                start = 'A';
            }
            String failure = advertise(startBuf);
            if (failure == null)
            {
                failure = awaitReceive(); // the server read it
            }
            if (failure != null)
            {
                return failure;
            }
            postReceive();
            failure = advertise(rdmaBuf);
            if (failure == null)
            {
                failure = awaitReceive(); // the server wrote it back
            }
            if (failure != null)
            {
                return failure;
            }
            postReceive();
            if (validate && startBuf.mismatch(rdmaBuf) >= 0)
            {
                return "data mismatch in ping " + ping + ": sent '" + cString(startBuf) + "', received '" +
                    cString(rdmaBuf) + "'";
            }
            if (verbose)
            {
                out.println("ping data: " + cString(rdmaBuf));
            }
        }
        return disconnect("client");
    }

    /** rping's start buffer: the message, then ASCII from {@code start} wrapping after 'z', and a NUL at the end. */
    private void fillStart(final long ping, final int start)
    {
        final byte[] prefix = String.format(MESSAGE_FORMAT, ping).getBytes(StandardCharsets.US_ASCII);
        final int cc = Math.min(prefix.length, size - 1);
        MemorySegment.copy(prefix, 0, startBuf, ValueLayout.JAVA_BYTE, 0, cc);
        int c = start;
        for (int i = cc; i < size; i++)
        {
            startBuf.set(ValueLayout.JAVA_BYTE, i, (byte)c);
            if (++c > 'z')
            {
                c = 'A';
            }
        }
        startBuf.set(ValueLayout.JAVA_BYTE, size - 1, (byte)0);
    }

    /** SENDs the rping_rdma_info of a buffer: its address, our R_Key, -S. */
    private String advertise(final MemorySegment buffer)
    {
        sendBuf.set(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 0, buffer.address());
        sendBuf.set(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 8, mr.rKey());
        sendBuf.set(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 12, size);
        return sendInfo();
    }

    // ------------------------------------------------------------------------------------------------ both

    private String sendInfo()
    {
        final String failure = post(WrOpcode.SEND, SEND_WR_ID, sendBuf.address(), INFO_BYTES, 0, 0);
        return failure != null ? failure : awaitSend(WcOpcode.SEND);
    }

    private String post(final int opcode, final long wrId, final long localAddress, final int length,
        final long remoteAddress, final int rKey)
    {
        wr.reset();
        wr.opcode = opcode;
        wr.wrId = wrId;
        wr.sgl.add(localAddress, length, mr.lKey());
        wr.remoteAddress = remoteAddress;
        wr.rKey = rKey;
        final int status = qp.postSend(wr);
        return status == QueuePair.POST_OK ? null : "post send failed (" + status + ") in QP state " + qp.state();
    }

    private void postReceive()
    {
        recv.wrId = RECV_WR_ID;
        recv.sgl.clear();
        recv.sgl.add(recvBuf.address(), INFO_BYTES, mr.lKey());
        qp.postRecv(recv);
    }

    private String awaitReceive()
    {
        final String failure = await(recvCq, "receive");
        if (failure != null)
        {
            return failure;
        }
        if (wcs[0].byteLength() != INFO_BYTES)
        {
            return "received " + wcs[0].byteLength() + " bytes, not a " + INFO_BYTES + "-byte rping_rdma_info";
        }
        return null;
    }

    private String awaitSend(final int opcode)
    {
        final String failure = await(sendCq, WcOpcode.name(opcode));
        if (failure == null && wcs[0].opcode() != opcode)
        {
            return "completion of " + WcOpcode.name(wcs[0].opcode()) + " where " + WcOpcode.name(opcode) +
                " was expected";
        }
        return failure;
    }

    /** Polls a CQ for one completion; the engine thread keeps the CM going (retransmissions, the peer's DREQ). */
    private String await(final CompletionQueue cq, final String what)
    {
        while (true)
        {
            if (cq.poll(wcs, 1) == 1)
            {
                final WorkCompletion wc = wcs[0];
                return wc.status() == WcStatus.SUCCESS ? null : what + " completed with " + wc.status();
            }
            if (connection.isClosed())
            {
                return "the connection closed (" + connection.state() + ") while waiting for a " + what;
            }
            if (expired())
            {
                return "no " + what + " completion within " + timeoutMs + " ms";
            }
            idle();
        }
    }

    private String disconnect(final String role)
    {
        debug(role + ": disconnecting; CM counters: " + cm.counters());
        cm.disconnect(connection);
        if (!cm.await(connection::isClosed, leftNs()))
        {
            return "no DREP within " + timeoutMs + " ms";
        }
        // stay a moment to answer a retransmitted DREQ (our DREP lost) before the GSI QP goes away
        cm.await(() -> false, 50_000_000L);
        out.println(role + " DISCONNECT EVENT...");
        final Long retransmissions = cm.counters().get(CmCounter.RETRANSMISSIONS);
        if (retransmissions != null)
        {
            out.println(" CM retransmissions: " + retransmissions);
        }
        return null;
    }

    private long leftNs()
    {
        return deadlineNs - System.nanoTime();
    }

    private boolean expired()
    {
        return System.nanoTime() - deadlineNs > 0;
    }

    private static void idle()
    {
        LockSupport.parkNanos(20_000);
    }

    private static int cLength(final MemorySegment buffer)
    {
        for (int i = 0; i < buffer.byteSize(); i++)
        {
            if (buffer.get(ValueLayout.JAVA_BYTE, i) == 0)
            {
                return i;
            }
        }
        return (int)buffer.byteSize() - 1; // no NUL: send it all but the last byte, which becomes the NUL
    }

    private static String cString(final MemorySegment buffer)
    {
        final byte[] bytes = new byte[cLength(buffer)];
        MemorySegment.copy(buffer, ValueLayout.JAVA_BYTE, 0, bytes, 0, bytes.length);
        return new String(bytes, StandardCharsets.ISO_8859_1);
    }
}
