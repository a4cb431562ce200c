package io.rnic.datapath.endpoint;

import io.rnic.datapath.afpacket.AfPacketPort;
import io.rnic.datapath.affinity.ThreadAffinity;
import io.rnic.datapath.agent.EngineAgent;
import io.rnic.datapath.agent.IdleStrategies;
import io.rnic.datapath.agent.ShardRouter;
import io.rnic.datapath.neighbour.NeighbourDiscovery;
import io.rnic.datapath.neighbour.NeighbourTable;
import io.rnic.datapath.port.PacketPort;
import io.rnic.datapath.port.PortCounters;
import io.rnic.device.JvmFlags;
import io.rnic.device.RnicDevice;
import io.rnic.pcap.PcapWriter;
import io.rnic.sim.PacketPathWarmUp;
import io.rnic.status.CounterTypes;
import io.rnic.transport.LocalPort;
import io.rnic.transport.RnicEngine;
import io.rnic.transport.TransportCounter;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.SystemNanoClock;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersManager;
import org.agrona.concurrent.status.CountersReader;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A running RNIC on one port: the device (verbs), its engine, the engine thread driving port and engine, neighbour
 * resolution, and the kernel-side UDP 4791 guard. The entry point of the tools and of programs embedding rnic.
 */
public final class Endpoint implements AutoCloseable
{
    public static final int ROCE_UDP_PORT = 4791;
    /** Room for one engine thread's counters: transport, inbound verdicts, port, agent, neighbours. */
    private static final int COUNTERS_PER_SHARD = 128;
    /** Room for the counters of the device as a whole (its connection managers). */
    private static final int COUNTERS_SHARED = 256;

    private final PacketPort[] ports;
    private final PacketPort port;
    private final LocalPort localPort;
    private final RnicDevice device;
    private final EngineAgent[] agents;
    private final EngineAgent agent;
    private final AgentRunner[] runners;
    private final DatagramSocket rocePortGuard;
    private final PcapWriter[] captures;
    /** Every counter of the endpoint: the engines', the ports', the engine threads', neighbour resolution's, CM's. */
    private final CountersManager counters;
    private final AtomicLong engineErrors = new AtomicLong();
    private final String rocePortGuardStatus;
    /** The AF_PACKET interface's lock ({@link InterfaceLock}), or null for in-memory and DPDK ports. */
    private final InterfaceLock interfaceLock;
    private volatile Throwable lastEngineError;
    private final boolean printEngineErrors;
    private boolean closed;

    private Endpoint(
        final PacketPort[] ports, final LocalPort localPort, final EndpointOptions options,
        final InterfaceLock interfaceLock, final CountersManager givenCounters)
        throws IOException
    {
        this.interfaceLock = interfaceLock;
        this.ports = ports;
        this.port = ports[0];
        this.localPort = localPort;
        final SystemNanoClock clock = SystemNanoClock.INSTANCE;
        final int shards = ports.length;
        this.counters = givenCounters != null ? givenCounters :
            CounterTypes.newManager(COUNTERS_PER_SHARD * shards + COUNTERS_SHARED);
        this.device = new RnicDevice(localPort, clock, shards, counters);
        final ShardRouter router = shards == 1 ? null : new ShardRouter(shards, 1 << 22);
        this.captures = new PcapWriter[shards];
        this.agents = new EngineAgent[shards];
        final RnicEngine[] engines = device.engines();
        for (int i = 0; i < shards; i++)
        {
            captures[i] = options.capture() == null ? null : new PcapWriter(capturePath(options.capture(), i));
            final NeighbourDiscovery neighbours =
                new NeighbourDiscovery(localPort, new NeighbourTable(256), options.answerNeighbours());
            agents[i] = new EngineAgent(engines[i], ports[i], neighbours, options.burst(),
                options.cpu() < 0 ? -1 : options.cpu() + i, clock, captures[i], router);
            agents[i].moveCountersTo(counters);
        }
        this.agent = agents[0];
        DatagramSocket guard = null;
        String guardStatus = "not held";
        this.printEngineErrors = options.printEngineErrors();
        if (options.holdRocePort())
        {
            try
            {
                guard = new DatagramSocket(null);
                guard.setReceiveBufferSize(4096); // never read: the kernel drops what overflows
                guard.bind(new InetSocketAddress(ROCE_UDP_PORT));
                guardStatus = "held";
            }
            catch (final BindException ex)
            {
                // someone else (rdma_rxe, another endpoint) holds it: the kernel will not answer ICMP either
                guardStatus = "already bound by another socket";
                guard.close();
                guard = null;
            }
        }
        this.rocePortGuard = guard;
        this.rocePortGuardStatus = guardStatus;
        final AtomicCounter noCounter = null;
        this.runners = new AgentRunner[shards];
        for (int i = 0; i < shards; i++)
        {
            runners[i] = new AgentRunner(IdleStrategies.parse(options.idleStrategy()), this::onEngineError,
                noCounter, agents[i]);
        }
    }

    /** Shard 0 captures into the given file, shard n into {@code NAME-n.pcap}. */
    private static Path capturePath(final Path path, final int shard)
    {
        if (shard == 0)
        {
            return path;
        }
        final String name = path.getFileName().toString();
        final int dot = name.lastIndexOf('.');
        final String shardName = dot < 0 ? name + "-" + shard : name.substring(0, dot) + "-" + shard +
            name.substring(dot);
        return path.resolveSibling(shardName);
    }

    /**
     * Starts an endpoint on an open port. The endpoint owns the port from then on and closes it.
     *
     * @param localPort the port's addressing (MAC, GID table), e.g. {@link InterfaceAddresses#of}.
     */
    public static Endpoint start(final PacketPort port, final LocalPort localPort, final EndpointOptions options)
    {
        return start(new PacketPort[]{ port }, localPort, options);
    }

    /**
     * Starts an endpoint with one engine thread per port (queues of one interface: AF_PACKET fanout members, DPDK
     * queues); QPs are sharded over the engines and frames reaching the wrong one are handed over. Engine thread
     * {@code i} is pinned to CPU {@code options.cpu() + i} when a CPU is given.
     *
     * @throws IllegalArgumentException naming the CPU and the CPUs allowed when this process may not run on one of
     *                                  the engine threads' CPUs.
     */
    public static Endpoint start(final PacketPort[] ports, final LocalPort localPort, final EndpointOptions options)
    {
        return start(ports, localPort, options, null);
    }

    /**
     * As {@link #start(PacketPort[], LocalPort, EndpointOptions)}, every counter of the endpoint allocated in
     * {@code counters} (a driver's, over its CnC file, so that other processes read them), or in a manager of the
     * endpoint's own when null.
     */
    public static Endpoint start(
        final PacketPort[] ports, final LocalPort localPort, final EndpointOptions options,
        final CountersManager counters)
    {
        JvmFlags.check(); // one line naming a missing flag, not the IllegalAccessError of a library
        IdleStrategies.parse(options.idleStrategy()); // a bad name fails before anything opens
        if (ports.length < 1 || ports.length > 64)
        {
            throw new IllegalArgumentException("an endpoint needs 1..64 ports (engine threads), not " + ports.length);
        }
        final Endpoint endpoint;
        InterfaceLock interfaceLock = null;
        try
        {
            if (options.cpu() >= 0)
            {
                // an engine thread that cannot be pinned dies alone after start: the endpoint would run without it
                ThreadAffinity.checkAllowed("cannot pin the engine thread" + (ports.length > 1 ? "s" : "") +
                    " to CPU " + options.cpu() + (ports.length > 1 ? " and up" : ""), options.cpu(), ports.length);
            }
            // two endpoints on one interface would both answer every frame: the second one is refused
            interfaceLock = ports[0] instanceof AfPacketPort ? InterfaceLock.acquire(ports[0].name()) : null;
            // the first packets must not run in code the JVM has never run (tens of ms each side: the peer's
            // local ACK timer expires on a clean link); once per JVM, before the engine threads start
            PacketPathWarmUp.ensure();
            endpoint = new Endpoint(ports, localPort, options, interfaceLock, counters);
        }
        catch (final IOException ex)
        {
            closeAll(ports, interfaceLock);
            throw new UncheckedIOException("cannot start endpoint on " + ports[0].name() + ": " + ex.getMessage(), ex);
        }
        catch (final RuntimeException ex)
        {
            closeAll(ports, interfaceLock);
            throw ex;
        }
        for (final AgentRunner runner : endpoint.runners)
        {
            AgentRunner.startOnThread(runner);
        }
        return endpoint;
    }

    private static void closeAll(final PacketPort[] ports, final InterfaceLock interfaceLock)
    {
        for (final PacketPort each : ports)
        {
            each.close();
        }
        if (interfaceLock != null)
        {
            interfaceLock.close();
        }
    }

    public RnicDevice device()
    {
        return device;
    }

    public RnicEngine engine()
    {
        return device.engine();
    }

    public LocalPort localPort()
    {
        return localPort;
    }

    public PacketPort port()
    {
        return port;
    }

    public EngineAgent agent()
    {
        return agent;
    }

    /** One agent per engine thread (shard). */
    public EngineAgent[] agents()
    {
        return agents.clone();
    }

    /** Work to run in every duty cycle of the engine thread (see {@link EngineAgent#addApplication}). */
    public void addApplication(final Agent application)
    {
        agent.addApplication(application);
    }

    public void removeApplication(final Agent application)
    {
        agent.removeApplication(application);
    }

    /** Adds a static neighbour (a peer that does not answer ARP, or to skip resolution). */
    public void addStaticNeighbour(final InetAddress address, final long mac)
    {
        final long[] gid = InterfaceAddresses.gidOf(address);
        for (final EngineAgent each : agents)
        {
            each.engine().execute(() ->
            {
                each.neighbours().table().putStatic(gid[0], gid[1], mac);
                return null;
            });
        }
    }

    /**
     * The MAC of a peer: from the neighbour table, or by ARP / neighbour solicitation from the source GID at
     * {@code sgidIndex}, asking again every 200 ms. A zero timeout (the engine thread's CM, answering a peer that
     * just spoke) takes a stale entry heard from the peer's datagram; a wait takes only what ARP / ND or the user
     * confirmed, asking the wire to confirm a stale one, as Linux probes a stale neighbour before trusting it.
     *
     * @throws IllegalStateException naming the address when nobody answers within the timeout.
     */
    public long resolveMac(final InetAddress address, final int sgidIndex, final Duration timeout)
    {
        final long[] gid = InterfaceAddresses.gidOf(address);
        if (sgidIndex < 0 || sgidIndex >= localPort.gidCount())
        {
            throw new IllegalArgumentException("GID index " + sgidIndex + " out of range 0.." +
                (localPort.gidCount() - 1));
        }
        final long deadlineNs = System.nanoTime() + timeout.toNanos();
        final boolean staleWillDo = timeout.isZero();
        long nextRequestNs = 0;
        while (true)
        {
            final boolean ask = System.nanoTime() >= nextRequestNs;
            long mac = NeighbourTable.NO_MAC;
            for (int i = agents.length - 1; i >= 0 && mac == NeighbourTable.NO_MAC; i--)
            {
                final EngineAgent each = agents[i];
                final boolean sender = i == 0 && ask;
                mac = each.engine().execute(() ->
                {
                    final NeighbourTable table = each.neighbours().table();
                    final long known = staleWillDo ? table.lookup(gid[0], gid[1]) :
                        table.lookupConfirmed(gid[0], gid[1]);
                    if (known == NeighbourTable.NO_MAC && sender)
                    {
                        each.neighbours().sendRequest(gid[0], gid[1], sgidIndex, each.transmitSink());
                    }
                    return known;
                });
            }
            if (mac != NeighbourTable.NO_MAC)
            {
                return mac;
            }
            if (ask)
            {
                nextRequestNs = System.nanoTime() + 200_000_000L;
            }
            if (System.nanoTime() > deadlineNs)
            {
                throw new IllegalStateException("no ARP/neighbour reply from " + address.getHostAddress() + " on " +
                    port.name() + " within " + timeout.toMillis() + " ms");
            }
            try
            {
                Thread.sleep(1);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while resolving " + address.getHostAddress());
            }
        }
    }

    /** Errors the engine thread ran into (each is also printed). */
    public long engineErrors()
    {
        return engineErrors.get();
    }

    public Throwable lastEngineError()
    {
        return lastEngineError;
    }

    /**
     * The manager of every counter of the endpoint, for a reader of all of them (each with its kind as type id and
     * its engine shard in its key: see {@link CounterTypes}).
     */
    public CountersReader counters()
    {
        return counters;
    }

    /** One transport counter summed over the engines, read from the counters themselves: any thread. */
    public long transportCounter(final TransportCounter counter)
    {
        long value = 0;
        for (final EngineAgent each : agents)
        {
            value += each.engine().counters().get(counter);
        }
        return value;
    }

    /** Each port's receive queue state ({@link PacketPort#describeReceive}), a line each: for a failure dump. */
    public String describeReceive()
    {
        final StringBuilder text = new StringBuilder();
        for (final EngineAgent each : agents)
        {
            final String state = each.port().describeReceive();
            if (!state.isEmpty())
            {
                text.append(' ').append(each.port().name()).append(": ").append(state).append(System.lineSeparator());
            }
        }
        return text.toString();
    }

    /**
     * The endpoint's counters as {@code name value} lines: the transport's, the port's and neighbour resolution's.
     * Read from the counters themselves, from any thread, without the engine threads' help; each value is exact, the
     * set of them as of one moment only when the engines are idle.
     */
    public String countersReport()
    {
        final StringBuilder text = new StringBuilder();
        for (int i = 0; i < TransportCounter.count(); i++)
        {
            final long value = transportCounter(TransportCounter.get(i));
            if (value != 0)
            {
                text.append(String.format("  %-36s %,d%n", TransportCounter.get(i).label(), value));
            }
        }
        long received = 0, transmitted = 0, receiveDrops = 0, tooLong = 0, transmitDrops = 0, ignored = 0, invalid = 0;
        long requests = 0, replies = 0, handedOver = 0, handOverDrops = 0, stalls = 0, zeroCopySegments = 0;
        long longestStallNs = 0;
        for (final EngineAgent each : agents)
        {
            zeroCopySegments += each.port().counters().get(PortCounters.TX_ZERO_COPY_SEGMENTS);
            received += each.port().framesReceived();
            transmitted += each.port().framesTransmitted();
            receiveDrops += each.port().receiveDrops();
            tooLong += each.port().receiveTooLong();
            transmitDrops += each.port().transmitDrops();
            ignored += each.framesIgnored();
            invalid += each.engine().validator().counters().dropped();
            requests += each.neighbours().requestsSent();
            replies += each.neighbours().repliesSent();
            handedOver += each.framesHandedOver();
            handOverDrops += each.handOverDrops();
            stalls += each.stalls();
            longestStallNs = Math.max(longestStallNs, each.longestStallNs());
        }
        line(text, "port frames received", received);
        line(text, "port frames transmitted", transmitted);
        line(text, "port receive drops", receiveDrops);
        line(text, "port receive drops (frame too long)", tooLong);
        line(text, "port transmit drops", transmitDrops);
        if (zeroCopySegments > 0) // only on a port that sends payload from where it lies
        {
            line(text, "port tx zero-copy segments", zeroCopySegments);
        }
        line(text, "frames not for rnic (kernel traffic)", ignored);
        line(text, "invalid RoCEv2 frames dropped", invalid);
        line(text, "neighbour requests sent", requests);
        line(text, "neighbour replies sent", replies);
        if (agents.length > 1)
        {
            line(text, "frames handed to another engine", handedOver);
            line(text, "hand-over drops (inbox full)", handOverDrops);
        }
        if (stalls > 0) // only when it happened: it explains what the counters above may show on a clean link
        {
            line(text, "engine stalls over 10 ms", stalls);
            line(text, "longest engine stall (ms)", longestStallNs / 1_000_000);
        }
        text.append(String.format("  %-36s %s%n", "kernel UDP 4791", rocePortGuardStatus));
        return text.toString();
    }

    private static void line(final StringBuilder text, final String name, final long value)
    {
        text.append(String.format("  %-36s %,d%n", name, value));
    }

    private void onEngineError(final Throwable error)
    {
        engineErrors.incrementAndGet();
        lastEngineError = error;
        if (printEngineErrors)
        {
            System.err.println("rnic: engine thread error: " + error);
        }
        if (System.getenv("RNIC_DEBUG") != null)
        {
            error.printStackTrace(System.err); // the tools' users get the line; developers ask for the trace
        }
    }

    /**
     * Stops the engine threads (their last flush done) and leaves the ports open: nothing polls them any more.
     * Idempotent; {@link #close} does it first.
     */
    public void stopEngines()
    {
        for (final AgentRunner runner : runners)
        {
            runner.close();
        }
    }

    /** Stops the engine thread, then closes the port, the capture, the UDP guard and the interface's lock. */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        stopEngines();
        closed = true;
        for (final PacketPort each : ports)
        {
            each.close();
        }
        for (final PcapWriter capture : captures)
        {
            if (capture != null)
            {
                capture.close();
            }
        }
        if (rocePortGuard != null)
        {
            rocePortGuard.close();
        }
        if (interfaceLock != null)
        {
            interfaceLock.close(); // last: the interface is free once nothing of this endpoint uses it
        }
    }

    @Override
    public String toString()
    {
        return "Endpoint{" + port.name() + ", mac=" + InterfaceAddresses.formatMac(localPort.mac()) + '}';
    }
}
