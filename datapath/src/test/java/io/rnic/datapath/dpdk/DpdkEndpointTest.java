package io.rnic.datapath.dpdk;

import io.rnic.datapath.endpoint.Endpoint;
import io.rnic.datapath.endpoint.EndpointOptions;
import io.rnic.datapath.endpoint.EndpointPairScenario;
import io.rnic.datapath.endpoint.InterfaceAddresses;
import io.rnic.dpdkbindings.DpdkBindings;
import io.rnic.dpdkbindings.DpdkException;
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
     * memif declares 1518-byte frames to ethdev, yet carries a frame as long as its buffers: with buffers of 8 KiB
     * and no MTU asked for, a memif port has the RoCE jumbo MTU (path MTU 4096: a 4 KB WRITE is one frame), each
     * frame received whole in one mbuf.
     */
    @Test
    void shouldCarryJumboFramesOverMemifWithLargeBuffersByDefault() throws Exception
    {
        final String socket = "/run/rnic-test-memif-" + ProcessHandle.current().pid() + ".sock";
        final String server = EthDevice.createVirtual("net_memif7",
            "role=server,id=7,bsize=8192,socket=" + socket).name();
        final String client = EthDevice.createVirtual("net_memif8",
            "role=client,id=7,bsize=8192,socket=" + socket).name();
        final DpdkPort portA = DpdkPort.open(DpdkConfig.of(server, EAL))[0];
        final DpdkPort portB = DpdkPort.open(DpdkConfig.of(client, EAL))[0];
        try
        {
            assertEquals(DpdkConfig.JUMBO_MTU_DEFAULT, portA.mtu());
            assertEquals(io.rnic.verbs.PathMtu.MTU_4096, io.rnic.verbs.PathMtu.forEthernetMtu(portB.mtu()));
            assertTrue(portA.awaitLinkUp(10_000) && portB.awaitLinkUp(10_000), "memif connected");
            final int length = 14 + portA.mtu();
            final org.agrona.concurrent.UnsafeBuffer frame = new org.agrona.concurrent.UnsafeBuffer(new byte[length]);
            for (int i = 0; i < length; i++)
            {
                frame.putByte(i, (byte)(i * 31 + 7));
            }
            final byte[] arrived = new byte[length];
            final int[] received = new int[2]; // frames, and the last one's length
            // as an engine thread: registered with EAL, polling both ports
            final Thread poller = new Thread(() ->
            {
                portA.onEngineThreadStart();
                try
                {
                    final long deadlineNs = System.nanoTime() + 10_000_000_000L;
                    boolean sent = false;
                    while (received[0] == 0 && System.nanoTime() < deadlineNs)
                    {
                        sent = sent || portA.transmit(frame, 0, length);
                        portA.flush();
                        portB.receive((buffer, offset, frameLength) ->
                        {
                            buffer.getBytes(offset, arrived, 0, Math.min(frameLength, length));
                            received[0]++;
                            received[1] = frameLength;
                        }, 32);
                    }
                }
                finally
                {
                    portA.onEngineThreadStop();
                    portB.onEngineThreadStop();
                }
            });
            poller.start();
            poller.join();
            assertEquals(1, received[0], "the " + length + "-byte frame arrived");
            assertEquals(length, received[1]);
            assertEquals(-1, java.util.Arrays.mismatch(frame.byteArray(), arrived), "byte for byte");
            assertEquals(0, portB.receiveDrops(), "in one mbuf");
        }
        finally
        {
            portA.close();
            portB.close();
            EthDevice.destroyVirtual(client);
            EthDevice.destroyVirtual(server);
        }
    }

    /** memif's default 2048-byte buffers: MTU 1500 by default, and a larger one refused naming the fix. */
    @Test
    void shouldKeepMtu1500OverMemifWithDefaultBuffersAndNameTheFixForMore()
    {
        final String socket = "/run/rnic-test-memif-small-" + ProcessHandle.current().pid() + ".sock";
        final String server = EthDevice.createVirtual("net_memif9", "role=server,id=9,socket=" + socket).name();
        try
        {
            final DpdkException ex = assertThrows(DpdkException.class,
                () -> DpdkPort.open(DpdkConfig.of(server, EAL).withMtu(4200)));
            assertEquals("net_memif9 carries a frame in one of its buffers of 2048 bytes (MTU 2030): for MTU 4200 " +
                "give its --vdev bsize=8192, at both ends", ex.getMessage());
            final DpdkPort port = DpdkPort.open(DpdkConfig.of(server, EAL))[0];
            try
            {
                assertEquals(1500, port.mtu());
            }
            finally
            {
                port.close();
            }
        }
        finally
        {
            EthDevice.destroyVirtual(server);
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
