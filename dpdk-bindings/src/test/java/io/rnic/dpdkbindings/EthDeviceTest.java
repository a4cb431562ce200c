package io.rnic.dpdkbindings;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The bindings against real DPDK virtual devices: net_null (a sink and an endless source) and net_ring. */
class EthDeviceTest
{
    private static final int BURST = 32;

    @BeforeAll
    static void eal()
    {
        TestEal.ensure();
    }

    @Test
    void shouldMatchTheInstalledDpdkLayout()
    {
        // Eal.init checked every size and offset against the shim's offsetof(); here: the result is in force
        assertEquals(Eal.withDefaults(TestEal.ARGS), Eal.arguments());
        assertEquals(List.of(), List.of(), "layout checked at init");
    }

    @Test
    void shouldRefuseASecondInitWithOtherArguments()
    {
        final DpdkException ex = assertThrows(DpdkException.class, () -> Eal.init(List.of("--no-huge")));
        assertTrue(ex.getMessage().contains("already initialised"), ex.getMessage());
        assertEquals(Eal.arguments(), Eal.init(TestEal.ARGS), "the same arguments again: a no-op");
    }

    @Test
    void shouldNameTheKnownPortsForAnUnknownOne()
    {
        final DpdkException ex = assertThrows(DpdkException.class, () -> EthDevice.byName("net_nothing9"));
        assertTrue(ex.getMessage().contains("no DPDK port named 'net_nothing9'"), ex.getMessage());
    }

    @Test
    void shouldReceiveFromNetNullAndReturnEveryMbufThroughBothBurstPaths()
    {
        try (PacketMempool pool = PacketMempool.create("t_null_pool", 1023, 32, 2048, DpdkBindings.SOCKET_ID_ANY);
            Arena arena = Arena.ofConfined())
        {
            final EthDevice null0 = EthDevice.createVirtual("net_null_t0", "size=96");
            try
            {
                final EthDevice.Info info = null0.info();
                assertEquals("net_null", info.driverName());
                null0.configure(1, 0);
                null0.setupRxQueue(0, 256, pool);
                null0.setupTxQueue(0, 256);
                null0.start();
                final int baseline = pool.inUse();
                final MemorySegment mbufs = arena.allocate(JAVA_LONG, BURST);
                for (final BurstFunctions burst : List.of(BurstFunctions.shim(null0, 0), BurstFunctions.fpOps(null0, 0)))
                {
                    final int received = burst.receive(mbufs.address(), BURST);
                    assertEquals(BURST, received, burst.getClass().getSimpleName());
                    for (int i = 0; i < received; i++)
                    {
                        final MemorySegment mbuf = MemorySegment.ofAddress(mbufs.getAtIndex(JAVA_LONG, i))
                            .reinterpret(DpdkBindings.RTE_MBUF.byteSize());
                        assertEquals(96, mbuf.get(JAVA_SHORT, DpdkBindings.MBUF_DATA_LEN));
                        assertEquals(96, mbuf.get(JAVA_INT, DpdkBindings.MBUF_PKT_LEN));
                        assertEquals(1, mbuf.get(JAVA_SHORT, DpdkBindings.MBUF_NB_SEGS));
                    }
                    assertEquals(baseline + BURST, pool.inUse());
                    // transmit them back: net_null frees what it sends
                    assertEquals(BURST, burst.transmit(mbufs.address(), received));
                    assertEquals(baseline, pool.inUse(), "every mbuf back in the pool");
                }
                assertTrue(null0.stats().rxPackets() >= 2 * BURST);
                null0.stop();
                null0.close();
            }
            finally
            {
                EthDevice.destroyVirtual("net_null_t0");
            }
            assertEquals(0, pool.inUse(), "the closed device gave its mbufs back");
        }
    }

    @Test
    void shouldCarryFramesByteExactBetweenTwoRingPorts()
    {
        try (PacketMempool pool = PacketMempool.create("t_ring_pool", 1023, 0, 2048, DpdkBindings.SOCKET_ID_ANY);
            Arena arena = Arena.ofConfined())
        {
            final long aToB = ring(arena, "t_ring_ab");
            final long bToA = ring(arena, "t_ring_ba");
            final EthDevice a = EthDevice.fromRings("net_ring_ta", bToA, aToB);
            final EthDevice b = EthDevice.fromRings("net_ring_tb", aToB, bToA);
            for (final EthDevice device : List.of(a, b))
            {
                device.configure(1, 0);
                device.setupRxQueue(0, 128, pool);
                device.setupTxQueue(0, 128);
                device.start();
            }
            final MemorySegment out = arena.allocate(JAVA_LONG, 4);
            assertEquals(0, DpdkBindings.rte_pktmbuf_alloc_bulk(pool.address(), out.address(), 4));
            for (int i = 0; i < 4; i++)
            {
                final MemorySegment mbuf = MemorySegment.ofAddress(out.getAtIndex(JAVA_LONG, i)).reinterpret(128);
                final long data = mbuf.get(JAVA_LONG, DpdkBindings.MBUF_BUF_ADDR) +
                    mbuf.get(JAVA_SHORT, DpdkBindings.MBUF_DATA_OFF);
                final MemorySegment frame = MemorySegment.ofAddress(data).reinterpret(60 + i);
                for (int j = 0; j < 60 + i; j++)
                {
                    frame.set(JAVA_BYTE, j, (byte)(i * 31 + j));
                }
                mbuf.set(JAVA_SHORT, DpdkBindings.MBUF_DATA_LEN, (short)(60 + i));
                mbuf.set(JAVA_INT, DpdkBindings.MBUF_PKT_LEN, 60 + i);
            }
            assertEquals(4, BurstFunctions.shim(a, 0).transmit(out.address(), 4));
            final MemorySegment in = arena.allocate(JAVA_LONG, BURST);
            assertEquals(4, BurstFunctions.shim(b, 0).receive(in.address(), BURST));
            for (int i = 0; i < 4; i++)
            {
                final MemorySegment mbuf = MemorySegment.ofAddress(in.getAtIndex(JAVA_LONG, i)).reinterpret(128);
                final int length = mbuf.get(JAVA_SHORT, DpdkBindings.MBUF_DATA_LEN);
                assertEquals(60 + i, length);
                final MemorySegment frame = MemorySegment.ofAddress(mbuf.get(JAVA_LONG, DpdkBindings.MBUF_BUF_ADDR) +
                    mbuf.get(JAVA_SHORT, DpdkBindings.MBUF_DATA_OFF)).reinterpret(length);
                final byte[] expected = new byte[length];
                for (int j = 0; j < length; j++)
                {
                    expected[j] = (byte)(i * 31 + j);
                }
                assertArrayEquals(expected, frame.toArray(JAVA_BYTE));
            }
            DpdkBindings.rte_pktmbuf_free_bulk(in.address(), 4);
            assertEquals(0, pool.inUse());
            for (final EthDevice device : List.of(a, b))
            {
                device.stop();
                device.close();
            }
            DpdkBindings.rte_ring_free(aToB);
            DpdkBindings.rte_ring_free(bToA);
        }
    }

    @Test
    void shouldExplainAMempoolThatDoesNotFit()
    {
        assertThrows(IllegalArgumentException.class,
            () -> PacketMempool.create("t_bad", 1023, 1000, 2048, DpdkBindings.SOCKET_ID_ANY));
        final DpdkException ex = assertThrows(DpdkException.class,
            () -> PacketMempool.create("t_huge", 50_000_000, 0, 9000, DpdkBindings.SOCKET_ID_ANY));
        assertTrue(ex.getMessage().contains("rte_pktmbuf_pool_create t_huge"), ex.getMessage());
    }

    private static long ring(final Arena arena, final String name)
    {
        // RING_F_SP_ENQ | RING_F_SC_DEQ: one producer and one consumer thread each way
        final long ring = DpdkBindings.rte_ring_create(arena.allocateFrom(name), 1024, DpdkBindings.SOCKET_ID_ANY,
            0x0001 | 0x0002);
        assertTrue(ring != 0, "rte_ring_create " + name);
        return ring;
    }
}
