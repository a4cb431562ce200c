package io.rnic.tools.perftest;

import io.rnic.datapath.dpdk.DpdkPort;
import io.rnic.datapath.endpoint.Endpoint;
import io.rnic.tools.LocalQp;
import io.rnic.tools.PortFactory;
import io.rnic.tools.Ports;
import io.rnic.tools.QpLayout;
import io.rnic.tools.ToolKind;
import io.rnic.tools.exchange.OutOfBand;
import io.rnic.transport.LocalPort;
import io.rnic.transport.Timeouts;
import io.rnic.transport.TransportCounter;
import io.rnic.verbs.QpType;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * One run of a perftest-style tool: open the port and the endpoint, create the QPs and buffers, meet the peer over
 * TCP, connect, run the test's state machine inside the engine's duty cycle, check, print results and counters.
 * Exit status 0 on success, 1 when the run failed (an error completion, a verify mismatch, a timeout).
 */
public final class PerftestTool
{
    /** How tools open their packet port; tests put in-memory ports here. */
    private static volatile PortFactory portFactory = Ports::open;
    /** How long a DPDK endpoint keeps its device after it stopped polling, for the peer to stop polling too. */
    private static final long LINGER_MS = 500;
    /** How long nothing may arrive before a tool without a closing barrier leaves (see answerLateRetransmissions). */
    static final long QUIET_BEFORE_LEAVING_MS = 150;

    private final ToolOptions options;
    private final PrintStream out;
    private final PrintStream err;
    private final ToolKind kind;
    private final RunReport report;
    private LocalQp[] activeQps = new LocalQp[0];

    private PerftestTool(final ToolOptions options, final PrintStream out, final PrintStream err)
    {
        this.options = options;
        this.out = out;
        this.err = err;
        this.kind = options.kind;
        this.report = new RunReport(options, out);
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
        final PerftestPort port = PerftestPort.open(portFactory, options);
        // the arena is opened first so that it closes last: the engine is stopped before the memory it serves is
        // freed (a peer may keep sending, e.g. duplicate READs after our last response was lost)
        try (Arena arena = Arena.ofShared();
            Endpoint endpoint = Endpoint.start(port.opened.ports(), port.opened.addressing(),
                port.endpointOptions(options)))
        {
            return runOn(endpoint, arena, port.iface, port.gidIndex, port.mtu);
        }
    }

    /** Creates the QPs and buffers, meets the peer and connects; {@link #measure} does the rest. */
    private int runOn(final Endpoint endpoint, final Arena arena, final String iface, final int gidIndex,
        final int localMtu) throws IOException
    {
        final LocalPort localPort = endpoint.localPort();
        final QpLayout layout = new QpLayout(options.size, kind.qpType() == QpType.UD);
        endpoint.device().congestionControl(options.congestionControl); // before the QPs: they take the default
        final LocalQp[] qps = ToolQps.create(endpoint, arena, options, layout);
        final MemorySegment expected = Verification.preparePatterns(options, arena, qps, layout);

        report.waiting();
        try (OutOfBand oob = OutOfBandSelection.open(options, endpoint, gidIndex, localMtu))
        {
            final int mtu = oob.pathMtu(localMtu);
            if (!kind.isPingpong() && !oob.peerIsRnic() && options.warmup > 0)
            {
                // perftest runs no warm-up: both sides must count the same iterations
                out.println(" the peer is perftest: no warm-up iterations (--warmup " + options.warmup + " ignored)");
                options.warmup = 0;
            }
            activeQps = qps;
            final LatencyLog latency = new LatencyLog();
            final ToolApplication[] created = new ToolApplication[1];
            oob.exchange(qps, localPort.gidHigh(gidIndex), localPort.gidLow(gidIndex), remotes ->
            {
                for (int i = 0; i < qps.length; i++)
                {
                    qps[i].remote = remotes[i];
                    if (!oob.connectsQps())
                    {
                        ToolQps.connect(endpoint, qps[i], gidIndex, mtu, options);
                    }
                }
                // before the server answers: the application posts its receives, and rdma-core's pingpong
                // client sends as soon as it has our answer (a SEND before them would get an RNR NAK)
                created[0] = ToolApplications.create(options, qps, expected, latency.recorder());
            });
            final ToolApplication application = created[0];
            report.connected(localPort, iface, gidIndex, mtu, qps);
            return measure(endpoint, oob, application, latency, qps, expected);
        }
    }

    /** Runs the test from the peers' start signal to its end, checks it, leaves the peer in peace, prints. */
    private int measure(final Endpoint endpoint, final OutOfBand oob, final ToolApplication application,
        final LatencyLog latency, final LocalQp[] qps, final MemorySegment expected) throws IOException
    {
        oob.sync(); // both sides connected and their receives posted: the client may send
        final long startNs = System.nanoTime();
        final boolean finished = application == null || await(endpoint, application, latency);
        final long elapsedNs = System.nanoTime() - startNs;
        if (!finished)
        {
            return 1;
        }
        // the client is done: the server may check its memory and leave
        final OutOfBand.BandwidthReport peerReport;
        try
        {
            peerReport = oob.finish(report.bandwidthReport(application));
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
        final String problem = Verification.serverChecks(options, qps, expected);
        report.result(application, latency.total(), elapsedNs, peerReport);
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

    /** Each QP's transport state (PSNs, timers, queues) and the engine's clock: what a stalled run needs. */
    private void printTransportState(final Endpoint endpoint)
    {
        err.println(" engine clock now=" + System.nanoTime() + " ns");
        for (final LocalQp q : activeQps)
        {
            err.println(" " + q.qp.describe());
        }
    }
    /** Waits for the application, logging histogram intervals each second; false after a failure or timeout. */
    private boolean await(final Endpoint endpoint, final ToolApplication application, final LatencyLog latency)
        throws IOException
    {
        latency.start(options.hlog, "rnic " + kind.command() + " -s " + options.size + ": round trips in ns");
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
                    latency.drainInterval();
                    nextIntervalNs += 1_000_000_000L;
                }
            }
        }
        finally
        {
            endpoint.removeApplication(application);
            latency.finish();
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
