package io.rnic.datapath.endpoint;

import io.rnic.datapath.port.InMemoryPort;
import io.rnic.transport.LocalPort;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.net.InetAddress;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two endpoints, each with its own engine thread, joined by in-memory ports: the datapath agent end to end (duty
 * cycle, transmit flush, neighbour resolution, cross-thread verbs) without a kernel interface.
 */
class InMemoryEndpointTest
{
    private static final long MAC_A = 0x02_00_00_00_00_0AL;
    private static final long MAC_B = 0x02_00_00_00_00_0BL;
    private static final int IP_A = 0x0A0A_0001;
    private static final int IP_B = 0x0A0A_0002;
    private static final long V6_PREFIX = 0xFD91_0000_0000_0000L;

    private final Arena arena = Arena.ofShared();
    private Endpoint a;
    private Endpoint b;

    @BeforeEach
    void start()
    {
        final InMemoryPort[] ports = InMemoryPort.pair(MAC_A, MAC_B, 4096, 1 << 22);
        // yielding engine threads: the machine may have fewer cores than spinning threads
        final EndpointOptions options = EndpointOptions.defaults().withIdleStrategy("yield")
            .withAnswerNeighbours(true).withHoldRocePort(false);
        a = Endpoint.start(ports[0], port(MAC_A, IP_A, 1), options);
        b = Endpoint.start(ports[1], port(MAC_B, IP_B, 2), options);
    }

    @AfterEach
    void stop()
    {
        if (a != null)
        {
            a.close();
        }
        if (b != null)
        {
            b.close();
        }
        arena.close();
    }

    private static LocalPort port(final long mac, final int ip, final int v6)
    {
        final LocalPort port = new LocalPort(mac).ethernetMtu(4096);
        port.addGid(0xFE80_0000_0000_0000L, InterfaceAddresses.eui64(mac));
        port.addIpv4(ip);
        port.addGid(V6_PREFIX, v6);
        return port;
    }

    @Test
    void shouldResolvePeerMacByArpAndNeighbourSolicitation() throws Exception
    {
        final InetAddress ipB = InetAddress.getByAddress(new byte[]{10, 10, 0, 2});
        assertEquals(MAC_B, a.resolveMac(ipB, 1, Duration.ofSeconds(5)));
        final InetAddress v6B = InterfaceAddresses.gidAddress(V6_PREFIX, 2);
        assertEquals(MAC_B, a.resolveMac(v6B, 2, Duration.ofSeconds(5)));
        final InetAddress ipA = InetAddress.getByAddress(new byte[]{10, 10, 0, 1});
        assertEquals(MAC_A, b.resolveMac(ipA, 1, Duration.ofSeconds(5)), "B learned A from A's request");
    }

    @Test
    void shouldNameTheAddressWhenNobodyAnswers() throws Exception
    {
        final InetAddress nobody = InetAddress.getByAddress(new byte[]{10, 10, 0, 99});
        final IllegalStateException error =
            assertThrows(IllegalStateException.class, () -> a.resolveMac(nobody, 1, Duration.ofMillis(300)));
        assertTrue(error.getMessage().contains("10.10.0.99"), error.getMessage());
    }

    @Test
    void shouldRunRcOperationsBetweenEngineThreads() throws Exception
    {
        EndpointPairScenario.rcOperations(a, b, new byte[]{10, 10, 0, 1}, new byte[]{10, 10, 0, 2}, arena);
    }

}
