package io.rnic.tools.perftest;

import io.rnic.cnc.CncException;
import io.rnic.datapath.endpoint.Endpoint;
import io.rnic.device.RnicContext;
import io.rnic.tools.DriverToolDevice;
import io.rnic.tools.EmbeddedToolDevice;
import io.rnic.tools.GidSelection;
import io.rnic.tools.LocalQp;
import io.rnic.tools.PortFactory;
import io.rnic.tools.Ports;
import io.rnic.tools.QpLayout;
import io.rnic.tools.ToolDevice;
import io.rnic.tools.ToolKind;
import io.rnic.tools.UsageException;
import io.rnic.tools.exchange.OutOfBand;
import io.rnic.tools.exchange.PeerActivity;
import io.rnic.tools.exchange.TcpChannel;
import io.rnic.transport.LocalPort;
import io.rnic.transport.Timeouts;
import io.rnic.verbs.QpType;
import sun.misc.Signal;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One run of a perftest-style tool: open the port and the endpoint (or, with {@code --driver}, attach to a running
 * driver), create the QPs and buffers, meet the peer over TCP, connect, run the test's state machine (inside the
 * engine's duty cycle, or on the tool's application thread through a driver), check, print results and counters.
 * Exit status 0 on success, 1 when the run failed (an error completion, a verify mismatch, a timeout).
 */
public final class PerftestTool
{
    /** How tools open their packet port; tests put in-memory ports here. */
    private static volatile PortFactory portFactory = Ports::open;
    /** How long nothing may arrive before a tool without a closing barrier leaves (see answerLateRetransmissions). */
    static final long QUIET_BEFORE_LEAVING_MS = 150;
    /** How long the engine threads may take to start (pin, start their port) before the tool gives up. */
    private static final long ENGINE_START_TIMEOUT_MS = 10_000;
    /** The most round trips a latency tool keeps in order for perftest's line and -U (8 bytes each). */
    static final int MAX_SAMPLES = 1 << 24;

    private final ToolOptions options;
    private final PrintStream out;
    private final PrintStream err;
    private final ToolKind kind;
    private final RunReport report;
    private LocalQp[] activeQps = new LocalQp[0];
    /** -D's or --run_infinitely's phases, or null when the run counts iterations. */
    private final DurationPhases duration;
    /** The --run_infinitely runs of this JVM, which SIGINT and SIGTERM end. */
    private static final Set<DurationPhases> INFINITE_RUNS = ConcurrentHashMap.newKeySet();

    private PerftestTool(final ToolOptions options, final PrintStream out, final PrintStream err)
    {
        this.options = options;
        this.out = out;
        this.err = err;
        this.kind = options.kind;
        this.duration = options.runInfinitely ? DurationPhases.infinite() :
            options.durationS > 0 ? DurationPhases.of(options.durationS) : null;
        this.report = new RunReport(options, out, duration);
    }

    /**
     * Ends every --run_infinitely run of this JVM as SIGINT and SIGTERM do: each stops measuring at its next duty
     * cycle, completes what it posted, and reports as a -D run does.
     */
    public static void stopInfiniteRuns()
    {
        for (final DurationPhases run : INFINITE_RUNS)
        {
            run.stop();
        }
    }

    /** SIGINT and SIGTERM end --run_infinitely's runs instead of the JVM (once the run ends, the tool exits). */
    private static void handleStopSignals()
    {
        for (final String name : new String[]{ "INT", "TERM" })
        {
            Signal.handle(new Signal(name), signal -> stopInfiniteRuns());
        }
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
        if (options.isServer() && !options.rdmaCm)
        {
            // a second server on the port fails now, not after its engine has started and its banner is out
            TcpChannel.checkCanListen(options.oobHost, options.oobTcpPort());
        }
        if (options.driver != null)
        {
            final DriverToolDevice device;
            try
            {
                device = DriverToolDevice.open(options.driver, options.idle, options.cpu);
            }
            catch (final CncException ex)
            {
                throw new IOException(ex.getMessage(), ex);
            }
            try (device)
            {
                final String name = device.name();
                final LocalPort localPort = device.context().port();
                final int gidIndex = GidSelection.byIndex(localPort, options.gidIndex, name);
                final int mtu = PathMtuSelection.choose(localPort, name, gidIndex, options);
                if (options.kind == ToolKind.UD_PINGPONG && options.size > mtu)
                {
                    throw new UsageException("a UD message is one packet: -s " + options.size + " is larger than " +
                        "the path MTU " + mtu + " of " + name);
                }
                return causeNamed(device, () -> runOn(device, name, gidIndex, mtu));
            }
        }
        final PerftestPort port = PerftestPort.open(portFactory, options);
        // the device frees the memory it allocated only after its engine has stopped: a peer may keep sending, e.g.
        // duplicate READs after our last response was lost
        try (EmbeddedToolDevice device = EmbeddedToolDevice.of(Endpoint.start(port.opened.ports(),
            port.opened.addressing(), port.endpointOptions(options))))
        {
            device.awaitEngines(ENGINE_START_TIMEOUT_MS);
            device.endpoint().device().congestionControl(options.congestionControl); // before the QPs: their default
            return causeNamed(device, () -> runOn(device, port.iface, port.gidIndex, port.mtu));
        }
    }

    private interface Run
    {
        int run() throws IOException;
    }

    /**
     * Runs {@code run}, and when the exchange with the peer fails while the device can no longer serve (the driver
     * stopped, the engine failed), names that first: the peer closed the connection because of it.
     */
    private static int causeNamed(final ToolDevice device, final Run run) throws IOException
    {
        try
        {
            return run.run();
        }
        catch (final IOException ex)
        {
            final String failure = device.failure();
            if (failure == null || String.valueOf(ex.getMessage()).startsWith(failure))
            {
                throw ex; // nothing to add, or the error names the failure already (a wait that watched for it)
            }
            throw new IOException(failure + " (then: " + ex.getMessage() + ")", ex);
        }
    }

    /** Creates the QPs and buffers, meets the peer and connects; {@link #measure} does the rest. */
    private int runOn(final ToolDevice device, final String iface, final int gidIndex, final int localMtu)
        throws IOException
    {
        if (kind == ToolKind.SRQ_PINGPONG)
        {
            return runSrqPingpong(device, gidIndex, localMtu);
        }
        final RnicContext context = device.context();
        final LocalPort localPort = context.port();
        final QpLayout layout = new QpLayout(options.size, options.flags.qpType(kind) == QpType.UD);
        final LocalQp[] qps = ToolQps.create(context, options, layout);
        final MemorySegment expected = Verification.preparePatterns(options, context, qps, layout);

        report.waiting();
        try (OutOfBand oob = OutOfBandSelection.open(options, device, gidIndex, localMtu))
        {
            final int mtu = oob.pathMtu(localMtu);
            if (!kind.isPingpong() && !oob.peerIsRnic() && options.warmup > 0)
            {
                // perftest runs no warm-up: both sides must count the same iterations
                out.println(" the peer is perftest: no warm-up iterations (--warmup " + options.warmup + " ignored)");
                options.warmup(0);
            }
            activeQps = qps;
            final LatencyLog latency = new LatencyLog();
            if (kind.isLatency() && !kind.isPingpong() && duration == null)
            {
                latency.keepSamples((int)Math.min(options.iterations, MAX_SAMPLES));
            }
            final ToolApplication[] created = new ToolApplication[1];
            oob.exchange(qps, localPort.gidHigh(gidIndex), localPort.gidLow(gidIndex), remotes ->
            {
                for (int i = 0; i < qps.length; i++)
                {
                    qps[i].remote = remotes[i];
                    if (!oob.connectsQps())
                    {
                        ToolQps.connect(context, qps[i], gidIndex, mtu, options);
                    }
                }
                // before the server answers: the application posts its receives, and rdma-core's pingpong
                // client sends as soon as it has our answer (a SEND before them would get an RNR NAK); -a makes
                // one application per size instead, each posting receives of its size
                created[0] = runsEverySize() ? null :
                    ToolApplications.create(options, qps, expected, latency, duration);
            });
            final ToolApplication application = created[0];
            report.connected(localPort, iface, gidIndex, mtu, qps);
            oob.watchPeer(new PeerActivity(device::packetsReceived, device::failure));
            return measure(device, oob, application, latency, qps, expected);
        }
    }

    /**
     * ibv_srq_pingpong: its QPs and SRQ, the receives posted, our addresses printed; the exchange (its 256 slots),
     * the QPs connected, the peer's addresses printed; the run; its two lines.
     */
    private int runSrqPingpong(final ToolDevice device, final int gidIndex, final int localMtu) throws IOException
    {
        final RnicContext context = device.context();
        final LocalPort localPort = context.port();
        final long gidHigh = localPort.gidHigh(gidIndex);
        final long gidLow = localPort.gidLow(gidIndex);
        final SrqPingpong.Setup setup = SrqPingpong.setUp(context, options);
        final LocalQp[] qps = setup.qps();
        for (final LocalQp q : qps)
        {
            out.printf("  local address:  LID 0x0000, QPN 0x%06x, PSN 0x%06x, GID %s%n", q.qp.qpn(), q.psn,
                ToolReport.gidText(gidHigh, gidLow));
        }
        try (OutOfBand oob = OutOfBandSelection.open(options, device, gidIndex, localMtu))
        {
            final int mtu = oob.pathMtu(localMtu);
            activeQps = qps;
            oob.exchange(qps, gidHigh, gidLow, remotes ->
            {
                for (int i = 0; i < qps.length; i++)
                {
                    qps[i].remote = remotes[i];
                    ToolQps.connect(context, qps[i], gidIndex, mtu, options);
                }
            });
            for (final LocalQp q : qps)
            {
                out.printf("  remote address: LID 0x0000, QPN 0x%06x, PSN 0x%06x, GID %s%n", q.remote.qpn(),
                    q.remote.psn(), ToolReport.gidText(q.remote.gidHigh(), q.remote.gidLow()));
            }
            final SrqPingpong application = SrqPingpong.create(setup, options);
            oob.sync(); // the client has connected its QPs: it sends as soon as its application runs
            final long startNs = System.nanoTime();
            if (!await(device, application, new LatencyLog()))
            {
                return 1;
            }
            final long elapsedNs = System.nanoTime() - startNs;
            answerLateRetransmissions(device);
            device.stopPolling();
            ToolReport.pingpong(out, options, options.iterations, elapsedNs);
            out.println(" rnic counters (" + device.name() + "):");
            out.print(device.countersReport());
            return 0;
        }
    }

    /** Runs the test from the peers' start signal to its end, checks it, leaves the peer in peace, prints. */
    private int measure(final ToolDevice device, final OutOfBand oob, final ToolApplication application,
        final LatencyLog latency, final LocalQp[] qps, final MemorySegment expected) throws IOException
    {
        if (runsEverySize())
        {
            return measureAllSizes(device, oob, qps);
        }
        meet(device, oob::sync); // both sides connected and their receives posted: the client may send
        final long startNs = System.nanoTime();
        final boolean finished = application == null || await(device, application, latency);
        final long elapsedNs = System.nanoTime() - startNs;
        if (!finished)
        {
            return 1;
        }
        // the client is done: the server may check its memory and leave
        final OutOfBand.BandwidthReport mine = report.bandwidthReport(application);
        final OutOfBand.BandwidthReport peerReport = exchange(device, () -> oob.finish(mine));
        if (!oob.hasClosingBarrier())
        {
            answerLateRetransmissions(device);
        }
        device.stopPolling();
        final String problem = Verification.serverChecks(options, qps, expected);
        report.result(application, latency, elapsedNs, peerReport);
        final double averageMbps = kind.isLatency() ? -1 : report.averageMbps(application, elapsedNs, peerReport);
        final boolean belowLimit = averageMbps >= 0 && averageMbps < options.flags.limitBwMbps;
        out.println(" rnic counters (" + device.name() + "):");
        out.print(device.countersReport());
        ToolReport.congestion(out, options, device.engines(), qps);
        if (problem != null)
        {
            err.println(kind.command() + ": " + problem);
            return 1;
        }
        if (belowLimit)
        {
            err.printf("Error: BW result is below bw limit (%.2f MB/sec, -w %.2f)%n", averageMbps,
                options.flags.limitBwMbps);
            return 1;
        }
        if (options.verify && (application != null || !options.isServer() || problem == null))
        {
            out.println(" verify: OK");
        }
        return 0;
    }

    /** -a on this side: the client, or a server that takes part (write-lat, send-lat, send-bw). */
    private boolean runsEverySize()
    {
        return options.allSizes && (!options.isServer() || kind == ToolKind.WRITE_LAT ||
            kind.operation() == ToolKind.Operation.SEND);
    }

    /**
     * -a: each size from 2 B to 8 MiB in turn on the same QPs (views of their regions, which hold the largest, with
     * the receive area where the peer was told), one line each under perftest's header, as perftest. On the client,
     * and on the server where it takes part (write-lat, send-lat, send-bw), as perftest's prints a line too; the
     * servers of write-bw, read-bw and read-lat only serve and get the last size's figures at the end. Between sizes
     * the sides meet where perftest's do: ib_write_lat nowhere (each size polls a byte the smaller ones never wrote),
     * ib_send_lat once the next size's receives are posted, ib_send_bw also after each size.
     */
    private int measureAllSizes(final ToolDevice device, final OutOfBand oob, final LocalQp[] qps) throws IOException
    {
        final boolean send = kind.operation() == ToolKind.Operation.SEND;
        int size = 2;
        LatencyLog latency = new LatencyLog();
        // the first size's receives are posted before the barriers that let the client send
        ToolApplication application = createForSize(qps, size, latency);
        meet(device, oob::sync);
        report.allSizesStart();
        OutOfBand.BandwidthReport last = null;
        while (true)
        {
            if (!await(device, application, latency))
            {
                return 1;
            }
            final OutOfBand.BandwidthReport line = report.allSizesLine(application, latency);
            last = line != null ? line : last;
            if (send && !kind.isLatency())
            {
                meet(device, oob::barrier); // ib_send_bw: both sides done with this size
            }
            if (size == ToolOptions.ALL_SIZES_MAX_BYTES)
            {
                break;
            }
            size <<= 1;
            latency = new LatencyLog();
            application = createForSize(qps, size, latency);
            if (send)
            {
                meet(device, oob::barrier); // the next size's receives posted on both sides: the client may send
            }
        }
        out.println(ToolReport.RULE);
        final OutOfBand.BandwidthReport lastLine = last;
        exchange(device, () -> oob.finish(lastLine));
        if (!oob.hasClosingBarrier())
        {
            answerLateRetransmissions(device);
        }
        device.stopPolling();
        out.println(" rnic counters (" + device.name() + "):");
        out.print(device.countersReport());
        ToolReport.congestion(out, options, device.engines(), qps);
        return 0;
    }

    /** -a: the application of one size on views of the QPs; it posts its receives (SEND) before it returns. */
    private ToolApplication createForSize(final LocalQp[] qps, final int size, final LatencyLog latency)
    {
        options.size = size;
        options.warmup = options.warmupFor(size);
        final LocalQp[] views = new LocalQp[qps.length];
        for (int i = 0; i < qps.length; i++)
        {
            views[i] = qps[i].withLayout(qps[i].layout.sizedWithin(size));
        }
        if (kind.isLatency())
        {
            latency.keepSamples((int)Math.min(options.iterations, MAX_SAMPLES));
        }
        return ToolApplications.create(options, views, null, latency, null);
    }

    /**
     * Without a closing barrier the last message's ACK may be lost after we leave, and the peer's retransmissions
     * would then meet a QP that is gone (it fails with RETRY_EXC_ERR, as rdma-core's pingpongs can on real hardware
     * too). So the engine keeps answering until nothing has arrived for {@link #QUIET_BEFORE_LEAVING_MS}, or twice
     * the ACK timeout of {@code -u} when that is longer — longer than the first retransmission of a peer with our
     * timeout (14: 67 ms) — or until a second, or four ACK timeouts, have passed.
     */
    private void answerLateRetransmissions(final ToolDevice device)
    {
        final long timeoutNs = Timeouts.localAckTimeoutNs(options.qpTimeout);
        final long quietNs = Math.max(QUIET_BEFORE_LEAVING_MS * 1_000_000L, 2 * timeoutNs);
        final long limitNs = Math.max(1_000_000_000L, 4 * timeoutNs);
        final long startNs = System.nanoTime();
        long quietSinceNs = startNs;
        long received = device.packetsReceived();
        while (true)
        {
            final long nowNs = System.nanoTime();
            if (nowNs - quietSinceNs >= quietNs || nowNs - startNs >= limitNs)
            {
                return;
            }
            sleepMs(10);
            final long now = device.packetsReceived();
            if (now != received)
            {
                received = now;
                quietSinceNs = System.nanoTime();
            }
        }
    }

    /** A step of the exchange that returns nothing. */
    @FunctionalInterface
    private interface ExchangeStep
    {
        void run() throws IOException;
    }

    /** A step of the exchange that returns the peer's answer. */
    @FunctionalInterface
    private interface ExchangeAnswer<T>
    {
        T get() throws IOException;
    }

    /** A barrier of the exchange once the QPs are connected (see {@link #exchange}). */
    private void meet(final ToolDevice device, final ExchangeStep step) throws IOException
    {
        exchange(device, () ->
        {
            step.run();
            return null;
        });
    }

    /**
     * A step of the exchange once the QPs are connected. When it fails (the peer vanished, or fell silent) this side
     * prints its counters, as a failed run does: a server that only serves has no other word on what it saw. The
     * launcher prints the error itself, once.
     */
    private <T> T exchange(final ToolDevice device, final ExchangeAnswer<T> step) throws IOException
    {
        try
        {
            return step.get();
        }
        catch (final IOException ex)
        {
            if (device.failure() == null) // else the device's failure is the cause, which the launcher names first
            {
                err.println(kind.command() + ": the exchange with the peer failed");
                err.println(" rnic counters:");
                err.print(device.countersReport());
                printTransportState(device);
            }
            throw ex;
        }
    }

    /** With {@code --debug}, each QP's transport state (PSNs, timers, queues), the receive rings and the clock. */
    private void printTransportState(final ToolDevice device)
    {
        if (!options.debug)
        {
            return;
        }
        err.println(" engine clock now=" + System.nanoTime() + " ns");
        err.print(device.describeReceive());
        for (final LocalQp q : activeQps)
        {
            err.println(" " + q.qp.describe());
        }
    }
    /** Waits for the application, logging histogram intervals each second; false after a failure or timeout. */
    private boolean await(final ToolDevice device, final ToolApplication application, final LatencyLog latency)
        throws IOException
    {
        latency.start(options.hlog, "rnic " + kind.command() + " -s " + options.size + ": round trips in ns");
        if (options.runInfinitely)
        {
            INFINITE_RUNS.add(duration);
            handleStopSignals();
            report.periodicStart();
        }
        device.addApplication(application);
        final long deadlineNs = System.nanoTime() + options.timeoutMs * 1_000_000L;
        try
        {
            long nextIntervalNs = System.nanoTime() + 1_000_000_000L;
            final long periodNs = options.durationS * 1_000_000_000L;
            long reportedNs = System.nanoTime();
            long nextReportNs = reportedNs + periodNs;
            long reportedIterations = 0;
            while (!application.isDone())
            {
                if (options.runInfinitely && System.nanoTime() >= nextReportNs)
                {
                    // perftest's report every -D seconds: the iterations of the last period
                    final long iterations = duration.measured();
                    final long nowNs = System.nanoTime();
                    report.periodic(iterations - reportedIterations, nowNs - reportedNs);
                    reportedIterations = iterations;
                    reportedNs = nowNs;
                    nextReportNs += periodNs;
                }
                if (System.nanoTime() > deadlineNs)
                {
                    err.println(kind.command() + ": timed out after " + options.timeoutMs + " ms with " +
                        application.iterationsDone() + " iterations done; counters:");
                    err.print(device.countersReport());
                    printTransportState(device);
                    return false;
                }
                final String failure = device.failure();
                if (failure != null)
                {
                    err.println(kind.command() + ": " + failure);
                    return false;
                }
                sleepMs(20); // rarely: each wake-up of this thread may preempt a spinning engine thread
                if (System.nanoTime() >= nextIntervalNs)
                {
                    latency.drainInterval();
                    nextIntervalNs += 1_000_000_000L;
                }
            }
        }
        finally
        {
            device.removeApplication(application);
            latency.finish();
            if (options.runInfinitely)
            {
                INFINITE_RUNS.remove(duration);
            }
        }
        if (application.failure() != null)
        {
            err.println(kind.command() + ": " + application.failure());
            err.println(" rnic counters:");
            err.print(device.countersReport());
            return false;
        }
        return true;
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
