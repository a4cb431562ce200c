package io.rnic.bench;

import io.rnic.datapath.affinity.ThreadAffinity;
import io.rnic.dpdkbindings.BurstFunctions;
import io.rnic.dpdkbindings.DpdkBindings;
import io.rnic.dpdkbindings.DpdkException;
import io.rnic.dpdkbindings.Eal;
import io.rnic.dpdkbindings.EthDevice;
import io.rnic.dpdkbindings.PacketMempool;
import io.rnic.tools.UsageException;
import io.rnic.tools.options.CommandLine;
import io.rnic.tools.options.GivenOption;
import io.rnic.tools.options.OptionHelp;
import io.rnic.tools.options.ToolDefaults;
import org.HdrHistogram.Histogram;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.PrintStream;
import java.nio.ByteOrder;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The floor of a round trip over a DPDK port: one Ethernet frame each way, on the raw bindings (an ethdev queue
 * pair, a mempool, the burst functions) — no RoCEv2, no endpoint, no engine. The ponger sends every frame back as it
 * came, in the same mbuf with the MAC addresses turned round (testpmd's macswap); the pinger sends a frame carrying
 * a sequence number, polls until that frame comes back, records the time from before its transmit burst to after
 * the receive burst that returned it, and sends the next sequence number in the same mbuf. The frame is as long as a
 * 64-byte RDMA WRITE's ({@value #FRAME_BYTES_DEFAULT} bytes) unless asked otherwise, so that
 * {@code deploy/bench/memif-bench.sh} can set {@code write-lat}'s round trip over a memif beside the round trip of
 * the memif itself, as {@code veth-bench.sh} sets it beside {@code raw_pingpong}'s over a veth.
 * <p>
 * A frame the pinger does not get back within {@code resendNs} is sent again with the same sequence number (a memif
 * drops what it carries before both ends are connected); the ponger ends after echoing the last sequence number.
 * Either side's loop runs on one thread registered with EAL and allocates nothing.
 */
public final class DpdkPingPong implements AutoCloseable
{
    /** The frame of a 64-byte RDMA WRITE over IPv4: Ethernet 14, IPv4 20, UDP 8, BTH 12, RETH 16, data 64, ICRC 4. */
    public static final int FRAME_BYTES_DEFAULT = ToolDefaults.DPDK_PINGPONG_FRAME_BYTES;
    public static final int FRAME_BYTES_MIN = ToolDefaults.DPDK_PINGPONG_FRAME_BYTES_MIN;
    public static final int FRAME_BYTES_MAX = ToolDefaults.DPDK_PINGPONG_FRAME_BYTES_MAX;
    /** IEEE 802's local experimental EtherType 1: no stack on either side claims it. */
    static final int ETHER_TYPE = 0x88B5;
    public static final String SYNOPSIS = OptionHelp.synopsis("dpdk-pingpong", "");
    public static final String DETAILS = String.join("\n",
        "The floor of a DPDK round trip: Java on the raw DPDK bindings, no RoCEv2. The server (--server) sends every",
        "frame back (MACs swapped); the client sends one frame, waits for it, and prints the round trips' percentiles",
        "in write-lat's format (' round trip [usec]: p50=... p90=... p99=... p99.9=... p99.99=... max=...'); it",
        "gives up after --timeout-ms, exit status 1.",
        OptionHelp.help("dpdk-pingpong"));

    private static final int BURST = 32;
    private static final int DESCRIPTORS = 1024;
    private static final int POOL_SIZE = 4095;
    private static final int SEQUENCE_OFFSET = 14;
    private static final long RESEND_NS_DEFAULT = 200_000_000L;
    private static final long START_RETRY_NS = 30_000_000_000L;
    private static final AtomicInteger POOLS = new AtomicInteger();

    private final EthDevice device;
    private final PacketMempool pool;
    private final int frameBytes;
    private final long localMac;
    private final UnsafeBuffer received = new UnsafeBuffer(BufferUtil.allocateDirectAligned(8 * BURST, 64));
    private final UnsafeBuffer transmitted = new UnsafeBuffer(BufferUtil.allocateDirectAligned(8 * BURST, 64));
    private final UnsafeBuffer mbuf = new UnsafeBuffer(0, 0);
    private final UnsafeBuffer frame = new UnsafeBuffer(0, 0);
    private BurstFunctions bursts;
    private long echoed;
    private long resent;
    private long foreign;

    private DpdkPingPong(final EthDevice device, final PacketMempool pool, final int frameBytes)
    {
        this.device = device;
        this.pool = pool;
        this.frameBytes = frameBytes;
        this.localMac = device.macAddress();
        this.bursts = BurstFunctions.shim(device, 0);
    }

    /**
     * Configures {@code device} with one queue pair over a pool of its own and starts it, retrying while it cannot
     * (a memif client whose server is not listening yet). EAL initialised; control path.
     */
    public static DpdkPingPong open(final EthDevice device, final int frameBytes)
    {
        if (frameBytes < FRAME_BYTES_MIN || frameBytes > FRAME_BYTES_MAX)
        {
            throw new IllegalArgumentException("frame " + frameBytes + " bytes out of " + FRAME_BYTES_MIN + ".." +
                FRAME_BYTES_MAX);
        }
        final PacketMempool pool = PacketMempool.create("pingpong_" + ProcessHandle.current().pid() + "_" +
            POOLS.incrementAndGet(), POOL_SIZE, 256, 2048, device.socketId());
        try
        {
            device.configure(1, 0);
            device.setupRxQueue(0, DESCRIPTORS, pool);
            device.setupTxQueue(0, DESCRIPTORS);
            startRetrying(device);
            device.promiscuous();
            return new DpdkPingPong(device, pool, frameBytes);
        }
        catch (final RuntimeException ex)
        {
            try
            {
                device.close();
            }
            catch (final DpdkException ignored)
            {
                // the original failure is the one to report
            }
            pool.close();
            throw ex;
        }
    }

    /**
     * Waits until the link is up (a memif pair once both ends connected), restarting the device while it stays down
     * (DPDK does not retry a memif connection the peer refused during its own start-up). Control path.
     */
    public boolean awaitLinkUp(final long timeoutMs) throws InterruptedException
    {
        final long deadlineNs = System.nanoTime() + timeoutMs * 1_000_000L;
        long restartNs = System.nanoTime() + restartDelayNs();
        while (!device.link().up())
        {
            final long nowNs = System.nanoTime();
            if (nowNs - deadlineNs > 0)
            {
                return false;
            }
            if (nowNs - restartNs > 0)
            {
                device.stop();
                startRetrying(device);
                bursts = BurstFunctions.shim(device, 0);
                restartNs = System.nanoTime() + restartDelayNs();
            }
            Thread.sleep(5);
        }
        return true;
    }

    /**
     * The ponger: sends every frame back until it has sent back the one carrying {@code lastSequence}.
     *
     * @return false when {@code deadlineNs} passed first.
     */
    public boolean echo(final long lastSequence, final long deadlineNs)
    {
        final long receivedAddress = received.addressOffset();
        boolean last = false;
        while (!last)
        {
            final int count = bursts.receive(receivedAddress, BURST);
            if (count == 0)
            {
                if (System.nanoTime() - deadlineNs > 0)
                {
                    return false;
                }
                Thread.onSpinWait();
                continue;
            }
            for (int i = 0; i < count; i++)
            {
                wrapFrame(received.getLong(8 * i));
                if (frame.capacity() >= SEQUENCE_OFFSET) // a runt goes back as it came
                {
                    addresses(sourceMac(), localMac);
                }
                last |= ours() && frame.getLong(SEQUENCE_OFFSET) >= lastSequence;
            }
            if (!transmitAll(receivedAddress, count, deadlineNs))
            {
                return false;
            }
            echoed += count;
        }
        return true;
    }

    /**
     * The pinger: {@code warmup} round trips, then {@code iterations} recorded in {@code roundTripsNs}.
     *
     * @return false when {@code deadlineNs} passed first (or the pool ran dry).
     */
    public boolean ping(
        final long warmup, final long iterations, final Histogram roundTripsNs, final long resendNs,
        final long deadlineNs)
    {
        final long total = warmup + iterations;
        final long receivedAddress = received.addressOffset();
        long sequence = 0;
        long frameMbuf = newFrame(sequence);
        long sentNs = System.nanoTime();
        if (frameMbuf == 0 || !transmitAll(store(frameMbuf), 1, deadlineNs))
        {
            return false;
        }
        while (sequence < total)
        {
            final int count = bursts.receive(receivedAddress, BURST);
            final long nowNs = System.nanoTime();
            long answer = 0;
            for (int i = 0; i < count; i++)
            {
                final long candidate = received.getLong(8 * i);
                wrapFrame(candidate);
                if (answer == 0 && ours() && frame.getLong(SEQUENCE_OFFSET) == sequence)
                {
                    answer = candidate;
                }
                else
                {
                    foreign++; // a late copy of a frame sent again, or not ours
                    free(candidate);
                }
            }
            if (answer == 0)
            {
                if (nowNs - sentNs > resendNs)
                {
                    if (nowNs - deadlineNs > 0 || (frameMbuf = newFrame(sequence)) == 0)
                    {
                        return false;
                    }
                    resent++;
                    sentNs = System.nanoTime();
                    if (!transmitAll(store(frameMbuf), 1, deadlineNs))
                    {
                        return false;
                    }
                }
                continue;
            }
            if (sequence >= warmup)
            {
                roundTripsNs.recordValue(nowNs - sentNs);
            }
            sequence++;
            if (sequence == total)
            {
                free(answer);
                break;
            }
            wrapFrame(answer);
            addresses(sourceMac(), localMac);
            frame.putLong(SEQUENCE_OFFSET, sequence);
            sentNs = System.nanoTime();
            if (!transmitAll(store(answer), 1, deadlineNs))
            {
                return false;
            }
        }
        return true;
    }

    /** Frames the ponger sent back. */
    public long echoed()
    {
        return echoed;
    }

    /** Frames the pinger sent again because the first copy did not come back in time. */
    public long resent()
    {
        return resent;
    }

    /** Frames the pinger received and dropped: late copies of frames it sent again, or frames not its own. */
    public long foreign()
    {
        return foreign;
    }

    public EthDevice device()
    {
        return device;
    }

    /** Mbufs out of the pool (0 once both sides are done and the device is stopped). */
    public int mbufsInUse()
    {
        return pool.inUse();
    }

    /** Stops and closes the device; frees the pool when every mbuf came back. */
    @Override
    public void close()
    {
        device.stop();
        device.close();
        if (pool.inUse() == 0)
        {
            pool.close();
        }
    }

    /** {@code rnic dpdk-pingpong}. */
    public static int run(final String[] args, final PrintStream out, final PrintStream err)
    {
        String deviceName = null;
        List<String> eal = null;
        boolean server = false;
        int frameBytes = FRAME_BYTES_DEFAULT;
        long iterations = 100_000;
        long warmup = 20_000;
        int cpu = -1;
        long timeoutMs = 60_000;
        for (final GivenOption given : CommandLine.parse("dpdk-pingpong", args).optionsOnly())
        {
            switch (given.option())
            {
                case PINGPONG_SERVER -> server = true;
                case INTERFACE -> deviceName = given.text();
                case EAL -> eal = List.of(given.text().trim().split("\\s+"));
                case FRAME_BYTES -> frameBytes = given.intValue();
                case ITERS -> iterations = given.number();
                case WARMUP -> warmup = given.number();
                case CPU -> cpu = given.intValue();
                case TIMEOUT_MS -> timeoutMs = given.number();
                default -> throw given.notHandled("dpdk-pingpong");
            }
        }
        if (deviceName == null || eal == null)
        {
            throw new UsageException("-d DEVICE and --eal 'EAL ARGS' are needed (e.g. -d net_memif0 --eal " +
                "'--no-huge -m 512 --no-shconf --no-pci --vdev=net_memif0,role=server')");
        }
        Eal.init(eal);
        final long deadlineNs = System.nanoTime() + timeoutMs * 1_000_000L;
        final long total = warmup + iterations;
        final Histogram roundTripsNs = new Histogram(1, 60_000_000_000L, 3);
        final boolean[] done = new boolean[1];
        try (DpdkPingPong pingPong = open(EthDevice.byName(deviceName), frameBytes))
        {
            if (!pingPong.awaitLinkUp(timeoutMs))
            {
                err.println("dpdk-pingpong: " + deviceName + " link still down after " + timeoutMs + " ms");
                return 1;
            }
            final int pinTo = cpu;
            final boolean echo = server;
            final long warmupRoundTrips = warmup;
            final long measuredRoundTrips = iterations;
            final Thread poller = new Thread(() ->
            {
                Eal.registerCurrentThread();
                try
                {
                    if (pinTo >= 0)
                    {
                        ThreadAffinity.pinCurrentThread(pinTo);
                    }
                    done[0] = echo ? pingPong.echo(total - 1, deadlineNs) : pingPong.ping(warmupRoundTrips,
                        measuredRoundTrips, roundTripsNs, RESEND_NS_DEFAULT, deadlineNs);
                }
                finally
                {
                    Eal.unregisterCurrentThread();
                }
            }, "dpdk-pingpong");
            poller.start();
            poller.join(); // happens-before: done[0], the histogram and the counters are the poller's final values
            final String what = "dpdk-pingpong over " + deviceName + " (" + pingPong.device().info().driverName() +
                "), " + frameBytes + "-byte frames";
            if (server)
            {
                out.println(what + ": echoed " + pingPong.echoed() + " frames" + (done[0] ? "" : ", then timed out"));
            }
            else
            {
                out.println(what + ": " + roundTripsNs.getTotalCount() + " round trips after " + warmup +
                    " of warm-up, " + pingPong.resent() + " frames sent again, " + pingPong.foreign() +
                    " dropped" + (done[0] ? "" : "; timed out"));
                out.printf(" round trip [usec]: p50=%.2f p90=%.2f p99=%.2f p99.9=%.2f p99.99=%.2f max=%.2f%n",
                    roundTripsNs.getValueAtPercentile(50) / 1000.0, roundTripsNs.getValueAtPercentile(90) / 1000.0,
                    roundTripsNs.getValueAtPercentile(99) / 1000.0, roundTripsNs.getValueAtPercentile(99.9) / 1000.0,
                    roundTripsNs.getValueAtPercentile(99.99) / 1000.0, roundTripsNs.getMaxValue() / 1000.0);
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            err.println("dpdk-pingpong: interrupted");
            return 1;
        }
        return done[0] ? 0 : 1;
    }

    private long newFrame(final long sequence)
    {
        if (DpdkBindings.rte_pktmbuf_alloc_bulk(pool.address(), transmitted.addressOffset(), 1) != 0)
        {
            return 0;
        }
        final long address = transmitted.getLong(0);
        mbuf.wrap(address, (int)DpdkBindings.RTE_MBUF.byteSize());
        mbuf.putShort((int)DpdkBindings.MBUF_DATA_LEN, (short)frameBytes);
        mbuf.putInt((int)DpdkBindings.MBUF_PKT_LEN, frameBytes);
        wrapFrame(address);
        frame.setMemory(0, frameBytes, (byte)0);
        addresses(0xFFFF_FFFF_FFFFL, localMac); // the peer's address is the first answer's source
        frame.putShort(12, (short)ETHER_TYPE, ByteOrder.BIG_ENDIAN);
        frame.putLong(SEQUENCE_OFFSET, sequence);
        return address;
    }

    /** Writes the frame's destination and source MAC addresses (each in a long's low 48 bits). */
    private void addresses(final long destinationMac, final long sourceMac)
    {
        frame.putShort(0, (short)(destinationMac >>> 32), ByteOrder.BIG_ENDIAN);
        frame.putInt(2, (int)destinationMac, ByteOrder.BIG_ENDIAN);
        frame.putShort(6, (short)(sourceMac >>> 32), ByteOrder.BIG_ENDIAN);
        frame.putInt(8, (int)sourceMac, ByteOrder.BIG_ENDIAN);
    }

    private long sourceMac()
    {
        return (frame.getShort(6, ByteOrder.BIG_ENDIAN) & 0xFFFFL) << 32 |
            (frame.getInt(8, ByteOrder.BIG_ENDIAN) & 0xFFFF_FFFFL);
    }

    private boolean ours()
    {
        return frame.capacity() == frameBytes && (frame.getShort(12, ByteOrder.BIG_ENDIAN) & 0xFFFF) == ETHER_TYPE;
    }

    private void wrapFrame(final long mbufAddress)
    {
        mbuf.wrap(mbufAddress, (int)DpdkBindings.RTE_MBUF.byteSize());
        final long data = mbuf.getLong((int)DpdkBindings.MBUF_BUF_ADDR) +
            (mbuf.getShort((int)DpdkBindings.MBUF_DATA_OFF) & 0xFFFF);
        frame.wrap(data, mbuf.getShort((int)DpdkBindings.MBUF_DATA_LEN) & 0xFFFF);
    }

    private long store(final long mbufAddress)
    {
        transmitted.putLong(0, mbufAddress);
        return transmitted.addressOffset();
    }

    /** Offers {@code count} mbufs until the device took them all; frees what it did not take by the deadline. */
    private boolean transmitAll(final long mbufs, final int count, final long deadlineNs)
    {
        int sent = 0;
        while (sent < count)
        {
            sent += bursts.transmit(mbufs + 8L * sent, count - sent);
            if (sent < count && System.nanoTime() - deadlineNs > 0)
            {
                DpdkBindings.rte_pktmbuf_free_bulk(mbufs + 8L * sent, count - sent);
                return false;
            }
        }
        return true;
    }

    private void free(final long mbufAddress)
    {
        DpdkBindings.rte_pktmbuf_free_bulk(store(mbufAddress), 1);
    }

    private static void startRetrying(final EthDevice device)
    {
        final long deadlineNs = System.nanoTime() + START_RETRY_NS;
        while (true)
        {
            try
            {
                device.start();
                return;
            }
            catch (final DpdkException ex)
            {
                if (System.nanoTime() - deadlineNs > 0)
                {
                    throw ex;
                }
                try
                {
                    Thread.sleep(100);
                }
                catch (final InterruptedException interrupted)
                {
                    Thread.currentThread().interrupt();
                    throw ex;
                }
            }
        }
    }

    private static long restartDelayNs()
    {
        return 700_000_000L + ThreadLocalRandom.current().nextLong(600_000_000L);
    }
}
