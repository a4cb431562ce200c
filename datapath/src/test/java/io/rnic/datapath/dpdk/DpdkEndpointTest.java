package io.rnic.datapath.dpdk;

import io.rnic.datapath.endpoint.Endpoint;
import io.rnic.datapath.endpoint.EndpointOptions;
import io.rnic.datapath.endpoint.EndpointPairScenario;
import io.rnic.datapath.endpoint.InterfaceAddresses;
import io.rnic.dpdkbindings.DpdkBindings;
import io.rnic.dpdkbindings.EthDevice;
import io.rnic.transport.LocalPort;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Two endpoints on DPDK ports: two net_ring devices whose rings cross (a wire inside the process), each with its
 * engine thread registered with EAL. Frames are received in place from mbufs and built in place into mbufs.
 */
class DpdkEndpointTest
{
    static final List<String> EAL = List.of("--no-huge", "-m", "512", "--no-shconf", "--no-pci");

    @BeforeAll
    static void dpdk()
    {
        if (!Boolean.getBoolean("rnic.require.dpdk"))
        {
            assumeTrue(DpdkBindings.unavailableReason() == null, () -> "DPDK: " + DpdkBindings.unavailableReason());
        }
        io.rnic.dpdkbindings.Eal.init(EAL);
    }

    @Test
    void shouldRunRcOperationsOverDpdkPortsAndReturnEveryMbuf() throws Exception
    {
        try (Arena arena = Arena.ofShared())
        {
            final long aToB = ring(arena, "e_ab");
            final long bToA = ring(arena, "e_ba");
            final String nameA = EthDevice.fromRings("e_a", bToA, aToB).name();
            final String nameB = EthDevice.fromRings("e_b", aToB, bToA).name();
            final DpdkPort portA = DpdkPort.open(DpdkConfig.of(nameA, EAL).withMtu(4096))[0];
            final DpdkPort portB = DpdkPort.open(DpdkConfig.of(nameB, EAL).withMtu(4096))[0];
            assertEquals(0, portA.pool().inUse() + portB.pool().inUse(), "net_ring keeps no mbufs in its rings");
            final EndpointOptions options = EndpointOptions.defaults().withIdleStrategy("yield")
                .withAnswerNeighbours(true).withHoldRocePort(false);
            try (Endpoint a = Endpoint.start(portA, addressing(portA, 1), options);
                Endpoint b = Endpoint.start(portB, addressing(portB, 2), options))
            {
                EndpointPairScenario.rcOperations(a, b, new byte[]{10, 11, 0, 1}, new byte[]{10, 11, 0, 2}, arena);
                assertTrue(portA.framesTransmitted() > 100 && portB.framesReceived() > 100);
                assertEquals(0, portA.transmitDrops() + portB.transmitDrops());
                assertEquals(0, portA.receiveDrops() + portB.receiveDrops());
            }
            // endpoints closed: engine threads stopped, ports closed, devices stopped and closed
            assertEquals(0, portA.mbufsInUseAtClose(), "A's pool had every mbuf back and was freed");
            assertEquals(0, portB.mbufsInUseAtClose(), "B's pool had every mbuf back and was freed");
            DpdkBindings.rte_ring_free(aToB);
            DpdkBindings.rte_ring_free(bToA);
        }
    }

    @Test
    void shouldNameTheKnownPortsWhenTheDeviceIsMissing()
    {
        final RuntimeException ex = assertThrows(RuntimeException.class,
            () -> DpdkPort.open(DpdkConfig.of("net_memif_missing", EAL)));
        assertTrue(ex.getMessage().contains("no DPDK port named 'net_memif_missing'"), ex.getMessage());
    }

    static LocalPort addressing(final DpdkPort port, final int host)
    {
        final LocalPort local = new LocalPort(port.macAddress()).ethernetMtu(port.mtu());
        local.addGid(0xFE80_0000_0000_0000L, InterfaceAddresses.eui64(port.macAddress()));
        local.addIpv4(0x0A0B_0000 | host);
        return local;
    }

    static long ring(final Arena arena, final String name)
    {
        final long ring = DpdkBindings.rte_ring_create(arena.allocateFrom(name), 4096, DpdkBindings.SOCKET_ID_ANY,
            0x0001 | 0x0002);
        assertTrue(ring != 0, "rte_ring_create " + name);
        return ring;
    }
}
