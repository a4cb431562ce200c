package io.rnic.datapath.driver;

import io.rnic.datapath.endpoint.EmbeddedContext;
import io.rnic.datapath.endpoint.Endpoint;
import io.rnic.datapath.endpoint.EndpointOptions;
import io.rnic.datapath.endpoint.InterfaceAddresses;
import io.rnic.datapath.port.InMemoryPort;
import io.rnic.transport.LocalPort;
import org.agrona.concurrent.status.CountersReader;

import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A driver on one end of an in-memory link and an embedded endpoint on the other (the peer), with yielding engine
 * threads: the machine may have fewer cores than spinning threads.
 */
final class DriverFixture implements AutoCloseable
{
    static final long MAC_DRIVER = 0x02_00_00_00_0D_01L;
    static final long MAC_PEER = 0x02_00_00_00_0D_02L;
    static final InetAddress IP_DRIVER = address(10, 13, 0, 1);
    static final InetAddress IP_PEER = address(10, 13, 0, 2);

    final Path directory;
    private final ClientQuotas quotas;
    /** The lines the driver wrote for its client events (departures), as its own output shows them. */
    final Queue<String> events = new ConcurrentLinkedQueue<>();
    InMemoryPort[] ports;
    EmbeddedContext peer;
    Driver driver;

    DriverFixture(final long clientTimeoutNs) throws IOException
    {
        this(Files.createTempDirectory("rnic-driver-test"), clientTimeoutNs);
    }

    /** A driver in {@code directory}: another process's, for a test of a driver that dies and one that follows. */
    DriverFixture(final Path directory, final long clientTimeoutNs)
    {
        this(directory, clientTimeoutNs, ClientQuotas.defaults());
    }

    /** A driver that holds each client to {@code quotas}. */
    DriverFixture(final Path directory, final long clientTimeoutNs, final ClientQuotas quotas)
    {
        this.directory = directory;
        this.quotas = quotas;
        link();
        driver = startDriver(clientTimeoutNs);
    }

    /** A new link and peer: a stopped driver's endpoint has closed its port. */
    void link()
    {
        ports = InMemoryPort.pair(MAC_DRIVER, MAC_PEER, 4096, 1 << 22);
        peer = EmbeddedContext.of(Endpoint.start(ports[1], port(MAC_PEER, IP_PEER), options()));
    }

    /** Stops the driver and the peer, then starts both again on a new link; the directory stays. */
    void restart(final long clientTimeoutNs)
    {
        driver.close();
        peer.close();
        link();
        driver = startDriver(clientTimeoutNs);
    }

    Driver startDriver(final long clientTimeoutNs)
    {
        return Driver.start(directory, clientTimeoutNs, quotas,
            counters -> Endpoint.start(new io.rnic.datapath.port.PacketPort[]{ ports[0] },
                port(MAC_DRIVER, IP_DRIVER), options(), counters), events::add);
    }

    static DriverFixture withTimeoutMs(final long ms) throws IOException
    {
        return new DriverFixture(TimeUnit.MILLISECONDS.toNanos(ms));
    }

    private static EndpointOptions options()
    {
        return EndpointOptions.defaults().withIdleStrategy("yield").withAnswerNeighbours(true)
            .withHoldRocePort(false);
    }

    static LocalPort port(final long mac, final InetAddress ip)
    {
        final LocalPort port = new LocalPort(mac).ethernetMtu(4096);
        port.addGid(0xFE80_0000_0000_0000L, InterfaceAddresses.eui64(mac));
        port.addIpv4((int)InterfaceAddresses.gidOf(ip)[1]);
        return port;
    }

    /** The value of the counter whose label starts with {@code labelStart}, as another process reads the CnC. */
    static long counter(final CountersReader counters, final String labelStart)
    {
        final long[] value = { Long.MIN_VALUE };
        counters.forEach((id, typeId, key, label) ->
        {
            if (label.startsWith(labelStart))
            {
                value[0] = counters.getCounterValue(id);
            }
        });
        if (value[0] == Long.MIN_VALUE)
        {
            throw new AssertionError("no counter " + labelStart);
        }
        return value[0];
    }

    private static InetAddress address(final int a, final int b, final int c, final int d)
    {
        try
        {
            return InetAddress.getByAddress(new byte[]{ (byte)a, (byte)b, (byte)c, (byte)d });
        }
        catch (final UnknownHostException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    public void close() throws IOException
    {
        try
        {
            if (driver != null)
            {
                driver.close();
            }
        }
        finally
        {
            peer.close();
            if (Files.exists(directory)) // a driver that made its directory removes it
            {
                try (Stream<Path> files = Files.walk(directory))
                {
                    files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
                }
            }
        }
    }
}
