package io.rnic.datapath.endpoint;

import io.rnic.datapath.agent.EngineAgent;
import io.rnic.datapath.agent.IdleStrategies;
import io.rnic.datapath.neighbour.NeighbourDiscovery;
import io.rnic.datapath.neighbour.NeighbourTable;
import io.rnic.datapath.port.PacketPort;
import io.rnic.pcap.PcapWriter;
import io.rnic.transport.LocalPort;
import io.rnic.transport.RnicEngine;
import io.rnic.transport.TransportCounter;
import io.rnic.transport.TransportCounters;
import io.rnic.verbs.RnicDevice;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.SystemNanoClock;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A running RNIC on one port: the device (verbs), its engine, the engine thread driving port and engine, neighbour
 * resolution, and the kernel-side UDP 4791 guard. The entry point of the tools and of programs embedding rnic.
 */
public final class Endpoint implements AutoCloseable
{
    public static final int ROCE_UDP_PORT = 4791;

    private final PacketPort port;
    private final LocalPort localPort;
    private final RnicDevice device;
    private final EngineAgent agent;
    private final AgentRunner runner;
    private final DatagramSocket rocePortGuard;
    private final PcapWriter capture;
    private final AtomicLong engineErrors = new AtomicLong();
    private final String rocePortGuardStatus;
    private volatile Throwable lastEngineError;
    private boolean closed;

    private Endpoint(final PacketPort port, final LocalPort localPort, final EndpointOptions options)
        throws IOException
    {
        this.port = port;
        this.localPort = localPort;
        final SystemNanoClock clock = SystemNanoClock.INSTANCE;
        this.device = new RnicDevice(localPort, (buffer, offset, length) -> { }, clock);
        this.capture = options.capture() == null ? null : new PcapWriter(options.capture());
        final NeighbourDiscovery neighbours =
            new NeighbourDiscovery(localPort, new NeighbourTable(256), options.answerNeighbours());
        this.agent = new EngineAgent(device.engine(), port, neighbours, options.burst(), options.cpu(), clock,
            capture);
        DatagramSocket guard = null;
        String guardStatus = "not held";
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
        this.runner = new AgentRunner(IdleStrategies.parse(options.idleStrategy()), this::onEngineError, noCounter,
            agent);
    }

    /**
     * Starts an endpoint on an open port. The endpoint owns the port from then on and closes it.
     *
     * @param localPort the port's addressing (MAC, GID table), e.g. {@link InterfaceAddresses#of}.
     */
    public static Endpoint start(final PacketPort port, final LocalPort localPort, final EndpointOptions options)
    {
        IdleStrategies.parse(options.idleStrategy()); // a bad name fails before anything opens
        final Endpoint endpoint;
        try
        {
            endpoint = new Endpoint(port, localPort, options);
        }
        catch (final IOException ex)
        {
            port.close();
            throw new UncheckedIOException("cannot start endpoint on " + port.name() + ": " + ex.getMessage(), ex);
        }
        AgentRunner.startOnThread(endpoint.runner);
        return endpoint;
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
        engine().execute(() ->
        {
            agent.neighbours().table().putStatic(gid[0], gid[1], mac);
            return null;
        });
    }

    /**
     * The MAC of a peer: from the neighbour table, or by ARP / neighbour solicitation from the source GID at
     * {@code sgidIndex}, asking again every 200 ms.
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
        long nextRequestNs = 0;
        while (true)
        {
            final boolean ask = System.nanoTime() >= nextRequestNs;
            final long mac = engine().execute(() ->
            {
                final long known = agent.neighbours().table().lookup(gid[0], gid[1]);
                if (known == NeighbourTable.NO_MAC && ask)
                {
                    agent.neighbours().sendRequest(gid[0], gid[1], sgidIndex, agent.transmitSink());
                }
                return known;
            });
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
     * The endpoint's counters as {@code name value} lines: the transport's, the port's and neighbour resolution's.
     * Read on the engine thread, so consistent while it runs.
     */
    public String countersReport()
    {
        if (closed)
        {
            return report();
        }
        return engine().execute(this::report);
    }

    private String report()
    {
        final StringBuilder text = new StringBuilder();
        final TransportCounters counters = engine().counters();
        for (int i = 0; i < TransportCounter.count(); i++)
        {
            final TransportCounter counter = TransportCounter.get(i);
            final long value = counters.get(counter);
            if (value != 0)
            {
                text.append(String.format("  %-34s %,d%n", counter.label(), value));
            }
        }
        final long invalid = engine().validator().counters().dropped();
        text.append(String.format("  %-34s %,d%n", "port frames received", port.framesReceived()));
        text.append(String.format("  %-34s %,d%n", "port frames transmitted", port.framesTransmitted()));
        text.append(String.format("  %-34s %,d%n", "port receive drops", port.receiveDrops()));
        text.append(String.format("  %-34s %,d%n", "port transmit drops", port.transmitDrops()));
        text.append(String.format("  %-34s %,d%n", "frames not for rnic (kernel traffic)", agent.framesIgnored()));
        text.append(String.format("  %-34s %,d%n", "invalid RoCEv2 frames", invalid));
        text.append(String.format("  %-34s %,d%n", "neighbour requests sent", agent.neighbours().requestsSent()));
        text.append(String.format("  %-34s %,d%n", "neighbour replies sent", agent.neighbours().repliesSent()));
        text.append(String.format("  %-34s %s%n", "kernel UDP 4791", rocePortGuardStatus));
        return text.toString();
    }

    private void onEngineError(final Throwable error)
    {
        engineErrors.incrementAndGet();
        lastEngineError = error;
        System.err.println("rnic: engine thread error: " + error);
        error.printStackTrace(System.err);
    }

    /** Stops the engine thread, then closes the port, the capture and the UDP guard. */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        runner.close();
        closed = true;
        port.close();
        if (capture != null)
        {
            capture.close();
        }
        if (rocePortGuard != null)
        {
            rocePortGuard.close();
        }
    }

    @Override
    public String toString()
    {
        return "Endpoint{" + port.name() + ", mac=" + InterfaceAddresses.formatMac(localPort.mac()) + '}';
    }
}
