package io.rnic.bench;

import io.rnic.datapath.dpdk.DpdkConfig;
import io.rnic.dpdkbindings.BurstFunctions;
import io.rnic.dpdkbindings.DpdkBindings;
import io.rnic.dpdkbindings.Eal;
import io.rnic.dpdkbindings.EthDevice;
import io.rnic.tools.ToolProcess;
import org.HdrHistogram.Histogram;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.nio.ByteOrder;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The DPDK ping-pong baseline: in one process over two net_ring ports whose rings cross (a wire in memory, each side
 * on a thread of its own registered with EAL), and between two processes over net_memif as memif-bench.sh runs it.
 * With {@code -Drnic.require.dpdk=true} a missing DPDK fails instead of skipping.
 */
class DpdkPingPongTest
{
    private static final long TIMEOUT_NS = TimeUnit.SECONDS.toNanos(60);
    private static int pairs;

    private final ExecutorService threads = Executors.newFixedThreadPool(2);
    private Arena arena;
    private long aToB;
    private long bToA;
    private DpdkPingPong a;
    private DpdkPingPong b;
    private long foreignPool;

    @BeforeEach
    void ringPair()
    {
        if (!Boolean.getBoolean("rnic.require.dpdk"))
        {
            assumeTrue(DpdkBindings.unavailableReason() == null, () -> "DPDK: " + DpdkBindings.unavailableReason());
        }
        Eal.init(DpdkConfig.EAL_DEFAULT);
        arena = Arena.ofConfined();
        final int pair = ++pairs;
        aToB = ring("pp_ab" + pair);
        bToA = ring("pp_ba" + pair);
        a = DpdkPingPong.open(EthDevice.fromRings("pp_a" + pair, bToA, aToB), DpdkPingPong.FRAME_BYTES_DEFAULT);
        b = DpdkPingPong.open(EthDevice.fromRings("pp_b" + pair, aToB, bToA), DpdkPingPong.FRAME_BYTES_DEFAULT);
    }

    @AfterEach
    void close()
    {
        threads.shutdownNow();
        if (a != null)
        {
            a.close();
            b.close();
            DpdkBindings.rte_ring_free(aToB);
            DpdkBindings.rte_ring_free(bToA);
            arena.close();
        }
        if (foreignPool != 0)
        {
            DpdkBindings.rte_mempool_free(foreignPool); // its one mbuf went back to it when the pinger dropped it
        }
    }

    @Test
    void shouldRecordEveryRoundTripAfterTheWarmupWhenThePeerEchoesEachFrame() throws Exception
    {
        final Histogram roundTripsNs = new Histogram(1, TIMEOUT_NS, 3);
        final long deadlineNs = System.nanoTime() + TIMEOUT_NS;
        final CompletableFuture<Boolean> echo = onEalThread(() -> b.echo(1_499, deadlineNs));
        final CompletableFuture<Boolean> ping =
            onEalThread(() -> a.ping(500, 1_000, roundTripsNs, TimeUnit.SECONDS.toNanos(10), deadlineNs));

        assertTrue(ping.get(), "every ping came back");
        assertTrue(echo.get(), "the echo side saw the last sequence number");
        assertEquals(1_000, roundTripsNs.getTotalCount());
        assertTrue(roundTripsNs.getMinValue() > 0);
        assertEquals(1_500 + a.resent(), b.echoed(), "one echo per frame sent, none lost in memory");
        assertEquals(0, a.mbufsInUse() + b.mbufsInUse(), "every mbuf back in its pool");
    }

    @Test
    void shouldSendAFrameAgainWhenItIsLostAndDropFramesThatAreNotItsAnswer() throws Exception
    {
        final Histogram roundTripsNs = new Histogram(1, TIMEOUT_NS, 3);
        final long deadlineNs = System.nanoTime() + TIMEOUT_NS;
        final CompletableFuture<Boolean> ping =
            onEalThread(() -> a.ping(0, 10, roundTripsNs, TimeUnit.MILLISECONDS.toNanos(1), deadlineNs));

        // the wire loses the first frame (and any copy sent again meanwhile), then carries a frame of another protocol
        final CompletableFuture<Boolean> lossThenEcho = onEalThread(() ->
        {
            final BurstFunctions bBursts = BurstFunctions.shim(b.device(), 0);
            final UnsafeBuffer mbufs = new UnsafeBuffer(BufferUtil.allocateDirectAligned(8 * 32, 64));
            int lost = 0;
            while (lost == 0 && System.nanoTime() - deadlineNs < 0)
            {
                lost = bBursts.receive(mbufs.addressOffset(), 32);
            }
            DpdkBindings.rte_pktmbuf_free_bulk(mbufs.addressOffset(), lost);
            sendFrame(bBursts, mbufs, DpdkPingPong.FRAME_BYTES_DEFAULT, 0x0800); // IPv4: not the pinger's
            return lost > 0 && b.echo(9, deadlineNs);
        });

        assertTrue(lossThenEcho.get(), "the echo side saw the last sequence number");
        assertTrue(ping.get(), "every ping came back");
        assertTrue(a.resent() >= 1, "the lost frame was sent again");
        assertTrue(a.foreign() >= 1, "the foreign frame was dropped");
        assertEquals(10, roundTripsNs.getTotalCount());
    }

    @Test
    void shouldSendARuntBackAsItCameAndGoOnEchoing() throws Exception
    {
        final UnsafeBuffer mbufs = new UnsafeBuffer(BufferUtil.allocateDirectAligned(8 * 32, 64));
        sendFrame(BurstFunctions.shim(a.device(), 0), mbufs, 10, 0x0800); // shorter than two MAC addresses
        final Histogram roundTripsNs = new Histogram(1, TIMEOUT_NS, 3);
        final long deadlineNs = System.nanoTime() + TIMEOUT_NS;
        final CompletableFuture<Boolean> echo = onEalThread(() -> b.echo(9, deadlineNs));
        final CompletableFuture<Boolean> ping =
            onEalThread(() -> a.ping(0, 10, roundTripsNs, TimeUnit.SECONDS.toNanos(10), deadlineNs));

        assertTrue(echo.get(), "the echo side went on after the runt");
        assertTrue(ping.get(), "every ping came back");
        assertEquals(11, b.echoed(), "the runt and the 10 pings");
        assertEquals(1, a.foreign(), "the runt came back and was dropped");
    }

    @Test
    void shouldPrintTheRoundTripsBetweenTwoProcessesOverMemif() throws Exception
    {
        final long pid = ProcessHandle.current().pid();
        final String socket = "/run/rnic-test-" + pid + "-pingpong.sock";
        final String eal = "--no-huge -m 256 --no-shconf --no-pci --vdev=net_memif0,socket=" + socket + ",role=";
        final ToolProcess server = ToolProcess.start(null, List.of("dpdk-pingpong", "--server", "-d", "net_memif0",
            "-n", "2000", "--warmup", "200", "--eal", eal + "server --file-prefix pps" + pid));
        final ToolProcess client = ToolProcess.start(null, List.of("dpdk-pingpong", "-d", "net_memif0",
            "-n", "2000", "--warmup", "200", "--eal", eal + "client --file-prefix ppc" + pid));
        final ToolProcess.Result c = client.await(120);
        final ToolProcess.Result s = server.await(30);

        assertEquals(0, c.status(), c.output() + "\n--- server:\n" + s.output());
        assertEquals(0, s.status(), s.output());
        assertTrue(c.output().contains("(net_memif), 138-byte frames: 2000 round trips after 200 of warm-up"),
            c.output());
        assertTrue(c.output().matches("(?s).* round trip \\[usec\\]: p50=[0-9.]+ p90=[0-9.]+ p99=[0-9.]+ " +
            "p99\\.9=[0-9.]+ p99\\.99=[0-9.]+ max=[0-9.]+\n.*"), c.output());
        assertTrue(s.output().contains("echoed "), s.output());
    }

    /** Sends one frame of {@code length} zero bytes but its EtherType from a pool of the test's own. */
    private void sendFrame(
        final BurstFunctions bursts, final UnsafeBuffer mbufs, final int length, final int etherType)
    {
        try (Arena names = Arena.ofConfined())
        {
            foreignPool = DpdkBindings.rte_pktmbuf_pool_create(names.allocateFrom("pp_foreign" + pairs), 63, 0,
                (short)0, (short)(2048 + DpdkBindings.RTE_PKTMBUF_HEADROOM), DpdkBindings.SOCKET_ID_ANY);
        }
        assertTrue(foreignPool != 0);
        assertEquals(0, DpdkBindings.rte_pktmbuf_alloc_bulk(foreignPool, mbufs.addressOffset(), 1));
        final UnsafeBuffer mbuf = new UnsafeBuffer(mbufs.getLong(0), 128);
        mbuf.putShort((int)DpdkBindings.MBUF_DATA_LEN, (short)length);
        mbuf.putInt((int)DpdkBindings.MBUF_PKT_LEN, length);
        final UnsafeBuffer frame = new UnsafeBuffer(mbuf.getLong((int)DpdkBindings.MBUF_BUF_ADDR) +
            (mbuf.getShort((int)DpdkBindings.MBUF_DATA_OFF) & 0xFFFF), Math.max(length, 14));
        frame.setMemory(0, frame.capacity(), (byte)0);
        frame.putShort(12, (short)etherType, ByteOrder.BIG_ENDIAN);
        assertEquals(1, bursts.transmit(mbufs.addressOffset(), 1));
    }

    private <T> CompletableFuture<T> onEalThread(final java.util.concurrent.Callable<T> work)
    {
        return CompletableFuture.supplyAsync(() ->
        {
            Eal.registerCurrentThread();
            try
            {
                return work.call();
            }
            catch (final Exception ex)
            {
                throw new IllegalStateException(ex);
            }
            finally
            {
                Eal.unregisterCurrentThread();
            }
        }, threads);
    }

    private long ring(final String name)
    {
        // RING_F_SP_ENQ | RING_F_SC_DEQ: one producer and one consumer thread each way
        final long ring = DpdkBindings.rte_ring_create(arena.allocateFrom(name), 1024, DpdkBindings.SOCKET_ID_ANY,
            0x0001 | 0x0002);
        assertTrue(ring != 0, "rte_ring_create " + name);
        return ring;
    }
}
