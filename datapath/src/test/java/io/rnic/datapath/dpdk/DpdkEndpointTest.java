package io.rnic.datapath.dpdk;

import io.rnic.datapath.endpoint.Endpoint;
import io.rnic.datapath.endpoint.EndpointOptions;
import io.rnic.datapath.endpoint.EndpointPairScenario;
import io.rnic.datapath.endpoint.InterfaceAddresses;
import io.rnic.datapath.port.PortCounters;
import io.rnic.dpdkbindings.DpdkBindings;
import io.rnic.dpdkbindings.EthDevice;
import io.rnic.transport.LocalPort;
import io.rnic.verbs.PathMtu;
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
        final DpdkPort portA = runRcOperations("e", DpdkConfig.ZeroCopy.AUTO, PathMtu.MTU_1024);
        assertEquals(0, portA.counters().get(PortCounters.TX_ZERO_COPY_SEGMENTS), "net_ring copies unless told");
    }

    /**
     * The same with payload sent from the memory regions (net_ring hands the chained mbufs to the other port, which
     * joins each frame and checks its ICRC): byte-exact, nothing dropped, every mbuf and every lent buffer back.
     */
    @Test
    void shouldRunRcOperationsSendingPayloadFromTheRegionsAndReturnEveryMbuf() throws Exception
    {
        final DpdkPort portA = runRcOperations("z", DpdkConfig.ZeroCopy.ON, PathMtu.MTU_2048);
        // the WRITE's 48 full packets (of 100 000 bytes) and the SEND's 2 (of 5000)
        assertEquals(50, portA.counters().get(PortCounters.TX_ZERO_COPY_SEGMENTS), "WRITE and SEND sent zero-copy");
    }

    private static DpdkPort runRcOperations(final String name, final DpdkConfig.ZeroCopy zeroCopy,
        final PathMtu pathMtu) throws Exception
    {
        try (Arena arena = Arena.ofShared())
        {
            final long aToB = ring(arena, name + "_ab");
            final long bToA = ring(arena, name + "_ba");
            final String nameA = EthDevice.fromRings(name + "_a", bToA, aToB).name();
            final String nameB = EthDevice.fromRings(name + "_b", aToB, bToA).name();
            final DpdkPort portA = DpdkPort.open(DpdkConfig.of(nameA, EAL).withMtu(4096).withZeroCopy(zeroCopy))[0];
            final DpdkPort portB = DpdkPort.open(DpdkConfig.of(nameB, EAL).withMtu(4096).withZeroCopy(zeroCopy))[0];
            assertEquals(0, portA.pool().inUse() + portB.pool().inUse(), "net_ring keeps no mbufs in its rings");
            final EndpointOptions options = EndpointOptions.defaults().withIdleStrategy("yield")
                .withAnswerNeighbours(true).withHoldRocePort(false);
            try (Endpoint a = Endpoint.start(portA, addressing(portA, 1), options);
                Endpoint b = Endpoint.start(portB, addressing(portB, 2), options))
            {
                EndpointPairScenario.rcOperations(a, b, new byte[]{10, 11, 0, 1}, new byte[]{10, 11, 0, 2}, arena,
                    pathMtu);
                assertTrue(portA.framesTransmitted() > 40 && portB.framesReceived() > 40);
                assertEquals(0, portA.transmitDrops() + portB.transmitDrops());
                assertEquals(0, portA.receiveDrops() + portB.receiveDrops());
                assertEquals(0, a.engine().validator().counters().dropped() + b.engine().validator().counters()
                    .dropped(), "no frame dropped, for its ICRC or anything else");
            }
            // endpoints closed: engine threads stopped, ports closed, devices stopped and closed
            assertEquals(0, portA.mbufsInUseAtClose(), "A's pools had every mbuf back and were freed");
            assertEquals(0, portB.mbufsInUseAtClose(), "B's pools had every mbuf back and were freed");
            DpdkBindings.rte_ring_free(aToB);
            DpdkBindings.rte_ring_free(bToA);
            return portA;
        }
    }

    /**
     * Two queues a side, one engine thread each, QPs sharded over them: a frame that arrives on the queue of the
     * other shard is handed over to the QP's owner (net_ring has no RSS: a frame lands on the queue it was sent
     * from).
     */
    @Test
    void shouldRunRcOperationsOverTwoQueuesAndHandFramesToTheOwningShard() throws Exception
    {
        try (Arena arena = Arena.ofShared())
        {
            final long[] aToB = { ring(arena, "q_ab0"), ring(arena, "q_ab1") };
            final long[] bToA = { ring(arena, "q_ba0"), ring(arena, "q_ba1") };
            final String nameA = EthDevice.fromRings("q_a", bToA, aToB).name();
            final String nameB = EthDevice.fromRings("q_b", aToB, bToA).name();
            final DpdkPort[] portsA = DpdkPort.open(DpdkConfig.of(nameA, EAL).withMtu(4096).withQueues(2));
            final DpdkPort[] portsB = DpdkPort.open(DpdkConfig.of(nameB, EAL).withMtu(4096).withQueues(2));
            final EndpointOptions options = EndpointOptions.defaults().withIdleStrategy("yield")
                .withAnswerNeighbours(true).withHoldRocePort(false);
            try (Endpoint a = Endpoint.start(portsA, addressing(portsA[0], 1), options);
                Endpoint b = Endpoint.start(portsB, addressing(portsB[0], 2), options))
            {
                // one more QP on B first: B's QPs then sit on the other shard than their peers on A
                final var pd = b.device().allocPd();
                final var cq = b.device().createCq(16);
                b.device().createQp(new io.rnic.verbs.QpInitAttributes().pd(pd).cqs(cq, cq));
                for (int round = 0; round < 3; round++)
                {
                    // a new QP pair a round: QPNs alternate over the shards
                    EndpointPairScenario.rcOperations(a, b, new byte[]{10, 11, 0, 1}, new byte[]{10, 11, 0, 2},
                        arena);
                }
                long handedOver = 0;
                for (final var agent : b.agents())
                {
                    handedOver += agent.framesHandedOver();
                }
                assertTrue(handedOver > 0, "some frames reached the other shard's queue and were handed over");
            }
            for (final DpdkPort port : new DpdkPort[]{ portsA[0], portsB[0] })
            {
                assertEquals(0, port.mbufsInUseAtClose(), "every mbuf back in " + port.name() + "'s pool");
            }
            for (int i = 0; i < 2; i++)
            {
                DpdkBindings.rte_ring_free(aToB[i]);
                DpdkBindings.rte_ring_free(bToA[i]);
            }
        }
    }

    /**
     * A memif carries a frame in one of its buffers: their size is the device's {@code bsize} argument, 2048 unless
     * given. (The ports themselves are run over memif between two processes in perf's {@code DpdkEndToEndTest}:
     * memif devices made and removed inside one JVM leave EAL's interrupt thread a callback that crashed the JVM at
     * its exit.)
     */
    @Test
    void shouldReadTheMemifBufferSizeFromTheDeviceArguments()
    {
        assertEquals(8192, SharedEthDevice.memifBufferBytes("role=server,bsize=8192,socket=/run/x.sock"));
        assertEquals(4352, SharedEthDevice.memifBufferBytes("bsize=4352"));
        assertEquals(2048, SharedEthDevice.memifBufferBytes("role=client,socket=/run/x.sock"));
        assertEquals(2048, SharedEthDevice.memifBufferBytes(""));
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
