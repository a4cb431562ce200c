package io.rnic.datapath.endpoint;

import io.rnic.datapath.port.InMemoryPort;
import io.rnic.transport.LocalPort;

import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * Two endpoints in this JVM joined by an in-memory link, each with its engine thread, as an {@link EmbeddedContext}:
 * for an application's own tests, no interface, no privileges, nothing bound in the host's network namespace (UDP
 * 4791 is not held: no kernel sees these frames). Each endpoint answers ARP and neighbour solicitations for its
 * addresses, so {@code resolveMac} and the RDMA CM work between them as on a link. The engine threads yield when
 * idle by default: a test machine may have fewer cores than spinning threads.
 * <p>
 * Addresses, from the documentation ranges so that they mean nothing anywhere else: MACs {@link #MAC_FIRST} and
 * {@link #MAC_SECOND}; GID 0 the link-local {@code fe80::} from the MAC, GID 1 the IPv4 address {@code 192.0.2.1} /
 * {@code .2} (as {@code ::ffff:192.0.2.x}), GID 2 the IPv6 address {@code 2001:db8::1} / {@code ::2}; Ethernet MTU
 * 4096 (path MTU 2048).
 * <pre>{@code
 * try (InMemoryContexts pair = InMemoryContexts.pair())
 * {
 *     RnicContext a = pair.first();
 *     RnicContext b = pair.second();
 *     long macOfB = a.resolveMac(pair.secondIpv4(), InMemoryContexts.IPV4_GID_INDEX, Duration.ofSeconds(1));
 *     ...
 * }
 * }</pre>
 */
public final class InMemoryContexts implements AutoCloseable
{
    public static final long MAC_FIRST = 0x02_00_00_00_00_01L;
    public static final long MAC_SECOND = 0x02_00_00_00_00_02L;
    public static final int ETHERNET_MTU = 4096;
    /** The GID indexes of each port's addresses. */
    public static final int LINK_LOCAL_GID_INDEX = 0;
    public static final int IPV4_GID_INDEX = 1;
    public static final int IPV6_GID_INDEX = 2;
    private static final int IPV4_PREFIX = 0xC000_0200; // 192.0.2.0/24, TEST-NET-1 (RFC 5737)
    private static final long IPV6_PREFIX = 0x2001_0DB8_0000_0000L; // 2001:db8::/32 (RFC 3849)
    private static final int RING_BYTES = 1 << 22;

    private final EmbeddedContext first;
    private final EmbeddedContext second;

    private InMemoryContexts(final EmbeddedContext first, final EmbeddedContext second)
    {
        this.first = first;
        this.second = second;
    }

    /** Two connected endpoints with yielding engine threads. */
    public static InMemoryContexts pair()
    {
        return pair(EndpointOptions.defaults().withIdleStrategy("yield"));
    }

    /**
     * Two connected endpoints with these options (CPU, idle strategy, capture…), except that they answer ARP and
     * neighbour solicitations and hold no UDP port, whatever the options say: no kernel is behind an in-memory port.
     */
    public static InMemoryContexts pair(final EndpointOptions options)
    {
        final EndpointOptions inMemory = options.withAnswerNeighbours(true).withHoldRocePort(false);
        final InMemoryPort[] ports = InMemoryPort.pair(MAC_FIRST, MAC_SECOND, ETHERNET_MTU, RING_BYTES);
        final EmbeddedContext first;
        try
        {
            first = EmbeddedContext.of(Endpoint.start(ports[0], localPort(MAC_FIRST, 1), inMemory));
        }
        catch (final RuntimeException ex)
        {
            ports[0].close();
            ports[1].close();
            throw ex;
        }
        try
        {
            return new InMemoryContexts(first, EmbeddedContext.of(Endpoint.start(ports[1], localPort(MAC_SECOND, 2),
                inMemory)));
        }
        catch (final RuntimeException ex)
        {
            ports[1].close();
            first.close();
            throw ex;
        }
    }

    public EmbeddedContext first()
    {
        return first;
    }

    public EmbeddedContext second()
    {
        return second;
    }

    /** 192.0.2.1. */
    public InetAddress firstIpv4()
    {
        return ipv4(1);
    }

    /** 192.0.2.2. */
    public InetAddress secondIpv4()
    {
        return ipv4(2);
    }

    /** 2001:db8::1. */
    public InetAddress firstIpv6()
    {
        return InterfaceAddresses.gidAddress(IPV6_PREFIX, 1);
    }

    /** 2001:db8::2. */
    public InetAddress secondIpv6()
    {
        return InterfaceAddresses.gidAddress(IPV6_PREFIX, 2);
    }

    /** Closes both contexts (each stops its engine, then frees its memory), the second even if the first fails. */
    public void close()
    {
        try
        {
            first.close();
        }
        finally
        {
            second.close();
        }
    }

    private static LocalPort localPort(final long mac, final int host)
    {
        final LocalPort port = new LocalPort(mac).ethernetMtu(ETHERNET_MTU);
        port.addGid(0xFE80_0000_0000_0000L, InterfaceAddresses.eui64(mac));
        port.addIpv4(IPV4_PREFIX | host);
        port.addGid(IPV6_PREFIX, host);
        return port;
    }

    private static InetAddress ipv4(final int host)
    {
        try
        {
            return InetAddress.getByAddress(new byte[]{ (byte)192, 0, 2, (byte)host });
        }
        catch (final UnknownHostException ex)
        {
            throw new IllegalStateException(ex); // four bytes are always an address
        }
    }
}
