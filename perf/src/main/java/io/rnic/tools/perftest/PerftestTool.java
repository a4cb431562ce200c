package io.rnic.tools.perftest;

import io.rnic.datapath.dpdk.DpdkPort;
import io.rnic.datapath.endpoint.Endpoint;
import io.rnic.datapath.endpoint.EndpointOptions;
import io.rnic.datapath.endpoint.InterfaceAddresses;
import io.rnic.device.ConnectParameters;
import io.rnic.device.QueuePair;
import io.rnic.tools.LocalQp;
import io.rnic.tools.PortFactory;
import io.rnic.tools.Ports;
import io.rnic.tools.QpLayout;
import io.rnic.tools.RemoteQp;
import io.rnic.tools.ToolKind;
import io.rnic.tools.UsageException;
import io.rnic.tools.exchange.OutOfBand;
import io.rnic.tools.exchange.PerftestOutOfBand;
import io.rnic.tools.exchange.PingpongOutOfBand;
import io.rnic.tools.exchange.RdmaCmOutOfBand;
import io.rnic.transport.LocalPort;
import io.rnic.transport.Timeouts;
import io.rnic.transport.TransportCounter;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.MemoryRegion;
import io.rnic.verbs.PathMtu;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.QpInitAttributes;
import io.rnic.verbs.QpType;
import io.rnic.verbs.WrOpcode;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogWriter;
import org.HdrHistogram.SingleWriterRecorder;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.security.SecureRandom;
import java.time.Duration;

/**
 * One run of a perftest-style tool: open the port and the endpoint, create the QPs and buffers, meet the peer over
 * TCP, connect, run the test's state machine inside the engine's duty cycle, check, print results and counters.
 * Exit status 0 on success, 1 when the run failed (an error completion, a verify mismatch, a timeout).
 */
public final class PerftestTool
{
    /** How tools open their packet port; tests put in-memory ports here. */
    private static volatile PortFactory portFactory = Ports::open;
    private LocalQp[] activeQps = new LocalQp[0];
    /** How long a DPDK endpoint keeps its device after it stopped polling, for the peer to stop polling too. */
    private static final long LINGER_MS = 500;
    /** How long nothing may arrive before a tool without a closing barrier leaves (see answerLateRetransmissions). */
    static final long QUIET_BEFORE_LEAVING_MS = 150;

    private final ToolOptions options;
    private final PrintStream out;
    private final PrintStream err;
    private final ToolKind kind;
    private final SecureRandom random = new SecureRandom();

    private PerftestTool(final ToolOptions options, final PrintStream out, final PrintStream err)
    {
        this.options = options;
        this.out = out;
        this.err = err;
        this.kind = options.kind;
    }

    public static int run(final ToolKind kind, final String[] args, final PrintStream out, final PrintStream err)
        throws IOException
    {
        return new PerftestTool(ToolOptions.parse(kind, args), out, err).run();
    }

    /** Replaces how tools open ports (for in-process tests); returns the previous factory. */
    public static PortFactory portFactory(final PortFactory factory)
    {
        final PortFactory previous = portFactory;
        portFactory = factory;
        return previous;
    }

    private int run() throws IOException
    {
        final String iface = options.iface != null ? options.iface : Ports.defaultInterface();
        final PortFactory.OpenedPort opened;
        try
        {
            opened = portFactory.open(new PortFactory.Request(options.portKind, iface, options.engines,
                options.qdiscBypass, options.ealArgs, options.addresses));
        }
        catch (final IllegalArgumentException ex)
        {
            throw new UsageException(ex.getMessage());
        }
        final LocalPort localPort = opened.addressing();
        if (opened.ports()[0] instanceof DpdkPort dpdk && !awaitLink(dpdk))
        {
            opened.close();
            throw new IOException("the link of " + dpdk.name() + " is still down after " + options.timeoutMs +
                " ms (a memif pair is up once both ends run)");
        }
        final int gidIndex;
        final int mtu;
        try
        {
            gidIndex = gidIndex(localPort, iface);
            mtu = pathMtu(localPort, iface, gidIndex);
            if (kind == ToolKind.UD_PINGPONG && options.size > mtu)
            {
                throw new UsageException("a UD message is one packet: -s " + options.size + " is larger than the " +
                    "path MTU " + mtu + " of " + iface);
            }
        }
        catch (final UsageException ex)
        {
            opened.close();
            throw ex;
        }
        final EndpointOptions endpointOptions = EndpointOptions.defaults().withCpu(options.cpu)
            .withIdleStrategy(options.idle).withCapture(options.pcap)
            .withHoldRocePort("afpacket".equals(options.portKind))
            .withAnswerNeighbours(!"afpacket".equals(options.portKind)); // no kernel behind DPDK or in-memory ports
        // the arena is opened first so that it closes last: the engine is stopped before the memory it serves is
        // freed (a peer may keep sending, e.g. duplicate READs after our last response was lost)
        try (Arena arena = Arena.ofShared();
            Endpoint endpoint = Endpoint.start(opened.ports(), localPort, endpointOptions))
        {
            return runOn(endpoint, arena, iface, gidIndex, mtu);
        }
    }

    private int runOn(final Endpoint endpoint, final Arena arena, final String iface, final int gidIndex,
        final int localMtu) throws IOException
    {
        final LocalPort localPort = endpoint.localPort();
        final QpLayout layout = new QpLayout(options.size, kind.qpType() == QpType.UD);
        endpoint.device().congestionControl(options.congestionControl); // before the QPs: they take the default
        final ProtectionDomain pd = endpoint.device().allocPd();
        final MemorySegment buffer = arena.allocate(layout.regionBytes * options.qps, 4096);
        final MemoryRegion mr = endpoint.device().registerMemoryRegion(pd, buffer, AccessFlags.ALL);
        final LocalQp[] qps = new LocalQp[options.qps];
        for (int i = 0; i < qps.length; i++)
        {
            final CompletionQueue sendCq = endpoint.device().createCq(Math.max(64, options.txDepth * 2));
            final CompletionQueue recvCq = endpoint.device().createCq(Math.max(64, options.rxDepth * 2));
            final QueuePair qp = endpoint.device().createQp(new QpInitAttributes().type(kind.qpType()).pd(pd)
                .cqs(sendCq, recvCq).capacity(Math.max(16, options.txDepth + 1), Math.max(16, options.rxDepth)));
            qps[i] = new LocalQp(qp, sendCq, recvCq, buffer.asSlice(i * layout.regionBytes, layout.regionBytes),
                mr.lKey(), mr.rKey(), layout);
            qps[i].psn = random.nextInt(1 << 24);
        }
        final MemorySegment expected = preparePatterns(arena, qps, layout);

        final long gidHigh = localPort.gidHigh(gidIndex);
        final long gidLow = localPort.gidLow(gidIndex);
        final String portDescription = iface + " (" + options.portKind + ", " +
            InterfaceAddresses.formatMac(localPort.mac()) + ")";
        if (options.isServer())
        {
            out.println();
            out.println("************************************");
            out.println("* Waiting for client to connect... *");
            out.println("************************************");
        }
        try (OutOfBand oob = openOutOfBand(endpoint, gidIndex, localMtu))
        {
            final int mtu = oob.pathMtu(localMtu);
            if (!kind.isPingpong() && !oob.peerIsRnic() && options.warmup > 0)
            {
                // perftest runs no warm-up: both sides must count the same iterations
                out.println(" the peer is perftest: no warm-up iterations (--warmup " + options.warmup + " ignored)");
                options.warmup = 0;
            }
            activeQps = qps;
            final SingleWriterRecorder recorder = new SingleWriterRecorder(1, 60_000_000_000L, 3);
            final ToolApplication[] created = new ToolApplication[1];
            oob.exchange(qps, gidHigh, gidLow, remotes ->
            {
                for (int i = 0; i < qps.length; i++)
                {
                    qps[i].remote = remotes[i];
                    if (!oob.connectsQps())
                    {
                        connect(endpoint, qps[i], gidIndex, mtu);
                    }
                }
                // before the server answers: the application posts its receives, and rdma-core's pingpong
                // client sends as soon as it has our answer (a SEND before them would get an RNR NAK)
                created[0] = createApplication(qps, expected, recorder);
            });
            final ToolApplication application = created[0];
            if (!kind.isPingpong())
            {
                ToolReport.header(out, options, portDescription, mtu, gidIndex);
            }
            for (final LocalQp q : qps)
            {
                printAddresses(q, gidHigh, gidLow);
            }

            oob.sync(); // both sides connected and their receives posted: the client may send
            final long startNs = System.nanoTime();
            final Histogram histogram = new Histogram(1, 60_000_000_000L, 3);
            final boolean finished = application == null || await(endpoint, application, recorder, histogram);
            final long elapsedNs = System.nanoTime() - startNs;
            if (!finished)
            {
                return 1;
            }
            // the client is done: the server may check its memory and leave
            final OutOfBand.BandwidthReport peerReport;
            try
            {
                peerReport = oob.finish(bandwidthReport(application));
            }
            catch (final IOException ex)
            {
                err.println(kind.command() + ": " + ex.getMessage() + "; counters:");
                err.print(endpoint.countersReport());
                printTransportState(endpoint);
                throw ex;
            }
            if (!oob.hasClosingBarrier())
            {
                answerLateRetransmissions(endpoint);
            }
            if (endpoint.port() instanceof DpdkPort)
            {
                // a memif peer that disconnects while this side still polls can crash DPDK's memif driver (it
                // unmaps the rings under a running burst): stop polling now, and give the peer time to stop too
                // before leaving closes the device
                endpoint.stopEngines();
                sleepMs(LINGER_MS);
            }
            final String problem = serverChecks(qps, expected);
            report(application, histogram, elapsedNs, peerReport);
            out.println(" rnic counters (" + endpoint.port().name() + "):");
            out.print(endpoint.countersReport());
            ToolReport.congestion(out, options, endpoint.device().engines(), qps);
            if (problem != null)
            {
                err.println(kind.command() + ": " + problem);
                return 1;
            }
            if (options.verify && (application != null || !options.isServer() || problem == null))
            {
                out.println(" verify: OK");
            }
            return 0;
        }
    }

    /** TCP (rdma-core's or perftest's exchange) or, with -R, perftest's exchange over a QP the RDMA CM connects. */
    private OutOfBand openOutOfBand(final Endpoint endpoint, final int gidIndex, final int localMtu)
        throws IOException
    {
        if (kind.isPingpong())
        {
            return PingpongOutOfBand.open(oobPeer(), options.oobHost, options.oobTcpPort(), options.timeoutMs);
        }
        if (!options.rdmaCm)
        {
            return PerftestOutOfBand.open(kind, oobPeer(), options.oobHost, options.oobTcpPort(), options.timeoutMs,
                localMtu);
        }
        long[] serverGid = null;
        if (!options.isServer())
        {
            final InetAddress address;
            try
            {
                address = InetAddress.getByName(options.server);
            }
            catch (final UnknownHostException ex)
            {
                throw new UsageException("server address " + options.server + ": " + ex.getMessage());
            }
            serverGid = InterfaceAddresses.gidOf(address);
            final LocalPort port = endpoint.localPort();
            if (port.isIpv4Gid(gidIndex) != (serverGid[0] == 0 && (serverGid[1] >>> 32) == 0xFFFF))
            {
                throw new UsageException("-R: the server address " + options.server + " and our GID " + gidIndex +
                    " (" + InterfaceAddresses.gidAddress(port.gidHigh(gidIndex), port.gidLow(gidIndex))
                    .getHostAddress() + ") are not of the same IP version: choose another with -x");
            }
        }
        return RdmaCmOutOfBand.open(kind, endpoint, gidIndex, serverGid, options.oobTcpPort(), options.timeoutMs,
            localMtu);
    }

    /** Fills what --verify needs: the slots a side sends from, and the reference copy the other side checks. */
    private MemorySegment preparePatterns(final Arena arena, final LocalQp[] qps, final QpLayout layout)
    {
        final boolean bandwidth = !kind.isLatency();
        final int sender = kind.operation() == ToolKind.Operation.READ ? Patterns.SERVER : Patterns.CLIENT;
        final MemorySegment expected = arena.allocate(layout.areaBytes, 64);
        final int slots = bandwidth ? layout.slots : 1;
        for (int s = 0; s < slots; s++)
        {
            Patterns.fill(expected.asSlice((long)s * layout.slotBytes), layout.messageBytes, s, sender);
        }
        // READ: the server's announced area (its receive area) is what the client reads; WRITE/SEND bandwidth: the
        // client sends from its send area
        final boolean read = kind.operation() == ToolKind.Operation.READ;
        if (read ? options.isServer() : bandwidth && !options.isServer())
        {
            final long offset = read ? layout.areaBytes : 0;
            for (final LocalQp q : qps)
            {
                MemorySegment.copy(expected, 0, q.region, offset, layout.areaBytes);
            }
        }
        return expected;
    }

    private ToolApplication createApplication(final LocalQp[] qps, final MemorySegment expected,
        final SingleWriterRecorder recorder)
    {
        final boolean client = !options.isServer();
        final long total = options.iterations + options.warmup;
        final int atomic = options.atomicCompareSwap ? WrOpcode.ATOMIC_CMP_AND_SWP : WrOpcode.ATOMIC_FETCH_AND_ADD;
        switch (kind.operation())
        {
            case WRITE ->
            {
                if (kind.isLatency())
                {
                    return new WriteLatency(qps[0], total, options.warmup, client, options.verify, recorder);
                }
                return client ? new Bandwidth(qps, WrOpcode.RDMA_WRITE, total, options.warmup, options.txDepth,
                    options.verify, null) : null;
            }
            case READ ->
            {
                if (!client)
                {
                    return null;
                }
                return kind.isLatency() ?
                    new ReadLatency(qps[0], WrOpcode.RDMA_READ, total, options.warmup, options.verify, expected,
                        recorder) :
                    new Bandwidth(qps, WrOpcode.RDMA_READ, total, options.warmup, options.txDepth, options.verify,
                        expected);
            }
            case ATOMIC ->
            {
                if (!client)
                {
                    return null;
                }
                return kind.isLatency() ?
                    new ReadLatency(qps[0], atomic, total, options.warmup, options.verify, null, recorder) :
                    new Bandwidth(qps, atomic, total, options.warmup, options.txDepth, false, null);
            }
            case SEND ->
            {
                if (kind.isLatency())
                {
                    final SendLatency send = new SendLatency(qps[0], total, options.warmup, client, options.verify,
                        options.immediate, recorder);
                    send.postReceives((int)Math.min(options.rxDepth, total));
                    return send;
                }
                if (client)
                {
                    return new Bandwidth(qps, options.immediate ? WrOpcode.SEND_WITH_IMM : WrOpcode.SEND, total,
                        options.warmup, options.txDepth, options.verify, null);
                }
                final SendReceiver receiver =
                    new SendReceiver(qps, total, options.rxDepth, options.verify, options.immediate, expected);
                receiver.postReceives();
                return receiver;
            }
            default -> throw new IllegalStateException(kind.toString());
        }
    }

    /**
     * Without a closing barrier the last message's ACK may be lost after we leave, and the peer's retransmissions
     * would then meet a QP that is gone (it fails with RETRY_EXC_ERR, as rdma-core's pingpongs can on real hardware
     * too). So the engine keeps answering until nothing has arrived for {@link #QUIET_BEFORE_LEAVING_MS}, or twice
     * the ACK timeout of {@code -u} when that is longer — longer than the first retransmission of a peer with our
     * timeout (14: 67 ms) — or until a second, or four ACK timeouts, have passed.
     */
    private void answerLateRetransmissions(final Endpoint endpoint)
    {
        final long timeoutNs = Timeouts.localAckTimeoutNs(options.qpTimeout);
        final long quietNs = Math.max(QUIET_BEFORE_LEAVING_MS * 1_000_000L, 2 * timeoutNs);
        final long limitNs = Math.max(1_000_000_000L, 4 * timeoutNs);
        final long startNs = System.nanoTime();
        long quietSinceNs = startNs;
        long received = endpoint.transportCounter(TransportCounter.PACKETS_RECEIVED);
        while (true)
        {
            final long nowNs = System.nanoTime();
            if (nowNs - quietSinceNs >= quietNs || nowNs - startNs >= limitNs)
            {
                return;
            }
            sleepMs(10);
            final long now = endpoint.transportCounter(TransportCounter.PACKETS_RECEIVED);
            if (now != received)
            {
                received = now;
                quietSinceNs = System.nanoTime();
            }
        }
    }

    /** Waits for the application, logging histogram intervals each second; false after a failure or timeout. */
    /** Each QP's transport state (PSNs, timers, queues) and the engine's clock: what a stalled run needs. */
    private void printTransportState(final Endpoint endpoint)
    {
        err.println(" engine clock now=" + System.nanoTime() + " ns");
        for (final LocalQp q : activeQps)
        {
            err.println(" " + q.qp.context().describe());
        }
    }

    private boolean await(final Endpoint endpoint, final ToolApplication application,
        final SingleWriterRecorder recorder, final Histogram total) throws IOException
    {
        HistogramLogWriter log = null;
        Histogram interval = null;
        if (options.hlog != null)
        {
            log = new HistogramLogWriter(options.hlog.toFile());
            log.outputComment("rnic " + kind.command() + " -s " + options.size + ": round trips in ns");
            log.outputLogFormatVersion();
            final long nowMs = System.currentTimeMillis();
            log.setBaseTime(nowMs);
            log.outputBaseTime(nowMs);
            log.outputLegend();
        }
        endpoint.addApplication(application);
        final long deadlineNs = System.nanoTime() + options.timeoutMs * 1_000_000L;
        try
        {
            long nextIntervalNs = System.nanoTime() + 1_000_000_000L;
            while (!application.isDone())
            {
                if (System.nanoTime() > deadlineNs)
                {
                    err.println(kind.command() + ": timed out after " + options.timeoutMs + " ms with " +
                        application.iterationsDone() + " iterations done; counters:");
                    err.print(endpoint.countersReport());
                    printTransportState(endpoint);
                    return false;
                }
                if (endpoint.engineErrors() > 0)
                {
                    err.println(kind.command() + ": the engine thread failed: " + endpoint.lastEngineError());
                    return false;
                }
                sleepMs(20); // rarely: each wake-up of this thread may preempt a spinning engine thread
                if (System.nanoTime() >= nextIntervalNs)
                {
                    interval = drainInterval(recorder, interval, total, log);
                    nextIntervalNs += 1_000_000_000L;
                }
            }
        }
        finally
        {
            endpoint.removeApplication(application);
            drainInterval(recorder, interval, total, log);
            if (log != null)
            {
                log.close();
            }
        }
        if (application.failure() != null)
        {
            err.println(kind.command() + ": " + application.failure());
            err.println(" rnic counters:");
            err.print(endpoint.countersReport());
            return false;
        }
        return true;
    }

    private Histogram drainInterval(final SingleWriterRecorder recorder, final Histogram reuse, final Histogram total,
        final HistogramLogWriter log)
    {
        final Histogram interval = recorder.getIntervalHistogram(reuse);
        total.add(interval);
        if (log != null && interval.getTotalCount() > 0)
        {
            log.outputIntervalHistogram(interval);
        }
        return interval;
    }

    private boolean halved()
    {
        return kind.isLatency() && !kind.isPingpong() &&
            (kind.operation() == ToolKind.Operation.WRITE || kind.operation() == ToolKind.Operation.SEND);
    }

    /** What the server checks once the client is done: WRITE data in its slots, the atomic counter. */
    private String serverChecks(final LocalQp[] qps, final MemorySegment expected)
    {
        if (!options.isServer() || !options.verify)
        {
            return null;
        }
        final long total = options.iterations + options.warmup;
        for (final LocalQp q : qps)
        {
            if (kind == ToolKind.WRITE_BW)
            {
                final long used = Math.min(total, q.layout.slots);
                for (long s = 0; s < used; s++)
                {
                    final long local = q.layout.areaBytes + s * q.layout.slotBytes;
                    final long reference = s * q.layout.slotBytes;
                    final long at = MemorySegment.mismatch(q.region, local, local + options.size, expected,
                        reference, reference + options.size);
                    if (at >= 0)
                    {
                        return "verify: slot " + s + " of QP " + q.qp.qpn() + " differs from the client's data at " +
                            "byte " + at;
                    }
                }
            }
            else if (kind.operation() == ToolKind.Operation.ATOMIC)
            {
                final long value = q.region.get(ValueLayout.JAVA_LONG_UNALIGNED, q.layout.areaBytes);
                final long wanted = options.atomicCompareSwap && !kind.isLatency() ? 0 : total;
                if (value != wanted)
                {
                    return "verify: the atomic target of QP " + q.qp.qpn() + " holds " + value + ", expected " +
                        wanted;
                }
            }
        }
        return null;
    }

    /** What a bandwidth client tells a perftest server (which prints it as its own result). */
    private OutOfBand.BandwidthReport bandwidthReport(final ToolApplication application)
    {
        if (!(application instanceof Bandwidth bandwidth) || bandwidth.elapsedNs() <= 0)
        {
            return null;
        }
        final double seconds = bandwidth.elapsedNs() / 1e9;
        final long operations = bandwidth.operations();
        final double mbps = (double)operations * options.size / seconds / (1 << 20);
        return new OutOfBand.BandwidthReport(options.size, operations, mbps, mbps, operations / seconds / 1e6);
    }

    private void report(final ToolApplication application, final Histogram histogram, final long elapsedNs,
        final OutOfBand.BandwidthReport peerReport)
    {
        if (kind.isPingpong())
        {
            ToolReport.pingpong(out, options, options.iterations + options.warmup, elapsedNs);
            if (!options.isServer())
            {
                ToolReport.latency(out, options, histogram, false);
            }
            return;
        }
        if (kind.isLatency())
        {
            if (histogram.getTotalCount() > 0)
            {
                ToolReport.latency(out, options, histogram, halved());
            }
            else
            {
                out.println(" (the client measures latency; see its output)");
            }
            return;
        }
        if (application instanceof Bandwidth bandwidth)
        {
            ToolReport.bandwidth(out, options, bandwidth.operations(), bandwidth.elapsedNs());
        }
        else if (application instanceof SendReceiver)
        {
            // the server cannot tell warm-up from measurement: its figure covers both
            ToolReport.bandwidth(out, options, (options.iterations + options.warmup) * options.qps, elapsedNs);
        }
        else if (peerReport != null && peerReport.iterations() > 0)
        {
            ToolReport.peerBandwidth(out, peerReport);
        }
        else
        {
            out.println(" (the client measures bandwidth; see its output)");
        }
    }

    private void connect(final Endpoint endpoint, final LocalQp q, final int gidIndex, final int mtu)
    {
        final RemoteQp remote = q.remote;
        final InetAddress peer = InterfaceAddresses.gidAddress(remote.gidHigh(), remote.gidLow());
        final long mac = endpoint.resolveMac(peer, gidIndex, Duration.ofMillis(Math.min(options.timeoutMs, 30_000)));
        final ConnectParameters parameters = new ConnectParameters()
            .remote(remote.qpn(), remote.psn())
            .localPsn(q.psn)
            .pathMtu(PathMtu.ofBytes(mtu))
            // perftest gives its max_dest_rd_atomic the out_reads it announces: never have more outstanding
            .readAtomic(Math.max(1, Math.min(PerftestOutOfBand.OUT_READS, remote.outReads())),
                PerftestOutOfBand.OUT_READS);
        parameters.qkey = LocalQp.QKEY;
        parameters.timeout = options.qpTimeout;
        parameters.addressVector.destinationGid(remote.gidHigh(), remote.gidLow()).destinationMac(mac)
            .sourceGidIndex(gidIndex).hopLimit(64);
        parameters.applyTo(q.qp);
        q.peerAddress.copyFrom(parameters.addressVector);
    }

    private void printAddresses(final LocalQp q, final long gidHigh, final long gidLow)
    {
        final RemoteQp remote = q.remote;
        if (kind.isPingpong())
        {
            out.printf("  local address:  LID 0x0000, QPN 0x%06x, PSN 0x%06x, GID %s%n", q.qp.qpn(), q.psn,
                InterfaceAddresses.gidAddress(gidHigh, gidLow).getHostAddress());
            out.printf("  remote address: LID 0x0000, QPN 0x%06x, PSN 0x%06x, GID %s%n", remote.qpn(), remote.psn(),
                InterfaceAddresses.gidAddress(remote.gidHigh(), remote.gidLow()).getHostAddress());
            return;
        }
        ToolReport.address(out, "local", q.qp.qpn(), q.psn, q.rKey, q.announcedAddress(), gidHigh, gidLow);
        ToolReport.address(out, "remote", remote.qpn(), remote.psn(), remote.rKey(), remote.regionAddress(),
            remote.gidHigh(), remote.gidLow());
    }

    private int gidIndex(final LocalPort port, final String iface)
    {
        if (options.gidIndex >= 0)
        {
            if (options.gidIndex >= port.gidCount())
            {
                throw new UsageException("GID index " + options.gidIndex + " does not exist on " + iface + " (it has " +
                    port.gidCount() + " GIDs: " + gidList(port) + ")");
            }
            return options.gidIndex;
        }
        for (int i = 0; i < port.gidCount(); i++)
        {
            if (port.isIpv4Gid(i))
            {
                return i;
            }
        }
        return 0;
    }

    private static String gidList(final LocalPort port)
    {
        final StringBuilder text = new StringBuilder();
        for (int i = 0; i < port.gidCount(); i++)
        {
            text.append(i == 0 ? "" : ", ").append(i).append('=')
                .append(InterfaceAddresses.gidAddress(port.gidHigh(i), port.gidLow(i)).getHostAddress());
        }
        return text.toString();
    }

    /** The IB MTU: -m, or the largest one a packet with the biggest headers fits in the interface's MTU. */
    private int pathMtu(final LocalPort port, final String iface, final int gidIndex)
    {
        final int ipHeader = port.isIpv4Gid(gidIndex) ? 20 : 40;
        final int room = port.ethernetMtu() - ipHeader - 8 - 12 - 28 - 4;
        int largest = 0;
        for (int mtu = 256; mtu <= 4096; mtu <<= 1)
        {
            if (mtu <= room)
            {
                largest = mtu;
            }
        }
        if (largest == 0)
        {
            throw new UsageException(iface + " has MTU " + port.ethernetMtu() + ": too small for RoCEv2 (IB MTU 256 " +
                "needs an Ethernet MTU of at least " + (256 + ipHeader + 52) + ")");
        }
        if (options.mtu == 0)
        {
            // ibv_rc_pingpong and ibv_uc_pingpong connect with -m (default 1024) and do not exchange it: a peer
            // running them rejects larger packets, so ours default to it too (UD messages follow the port's MTU)
            final boolean connectedPingpong = kind == ToolKind.RC_PINGPONG || kind == ToolKind.UC_PINGPONG;
            return connectedPingpong ? Math.min(1024, largest) : largest;
        }
        if (options.mtu > largest)
        {
            throw new UsageException("-m " + options.mtu + " does not fit " + iface + "'s MTU " + port.ethernetMtu() +
                " (largest IB MTU: " + largest + ")");
        }
        return options.mtu;
    }

    private boolean awaitLink(final DpdkPort port)
    {
        try
        {
            return port.awaitLinkUp(options.timeoutMs);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** The client's TCP peer: --oob's host, else the server address; null on the server. */
    private String oobPeer()
    {
        return options.isServer() ? null : options.oobHost != null ? options.oobHost : options.server;
    }

    private static void sleepMs(final long ms)
    {
        try
        {
            Thread.sleep(ms);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted");
        }
    }
}
