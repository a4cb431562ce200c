package io.rnic.datapath.dpdk;

import io.rnic.dpdkbindings.DpdkException;
import io.rnic.dpdkbindings.EthDevice;
import io.rnic.dpdkbindings.PacketMempool;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A configured and started DPDK ethdev with the mbuf pool its RX queues fill, shared by the {@link DpdkPort}s of its
 * queues (one per engine thread). It exists apart from the ports because its life is not theirs: it is set up once
 * for all queues before any port exists, and stopped, closed and its pool freed only when the last of its ports
 * closes, each port closing from its own thread.
 */
final class SharedEthDevice
{
    private static final long START_RETRY_NS = 15_000_000_000L;
    private static final String MEMIF = "net_memif";
    private static final int MEMIF_BUFFER_BYTES_DEFAULT = 2048;
    /** What a frame adds to its MTU: the Ethernet header and a VLAN tag. */
    private static final int FRAME_OVERHEAD = 18;
    /** Drivers that copy a frame's segments with the CPU: the IOVA of memory they are lent does not matter. */
    private static final Set<String> CPU_COPYING_DRIVERS = Set.of(MEMIF, "net_af_packet", "net_null");

    private final EthDevice eth;
    private final PacketMempool pool;
    /** Mbufs lent memory regions' memory for zero-copy transmit, or null when the device does not get any. */
    private final PacketMempool attachPool;
    private final int queues;
    private final int mtu;
    private final long mac;
    private final UnsafeBuffer[] arrays;
    private final AtomicInteger open;
    private volatile int inUseAtClose = -1;

    /**
     * Creates the pool, configures the device with {@code config.queues()} queue pairs and starts it (EAL already
     * initialised); on failure closes what it opened.
     */
    SharedEthDevice(final DpdkConfig config)
    {
        eth = EthDevice.byName(config.device());
        queues = config.queues();
        final EthDevice.Info info = eth.info();
        final boolean memif = MEMIF.equals(info.driverName());
        final int largestMtu = memif ? memifBufferBytes(eth.virtualDeviceArgs()) - FRAME_OVERHEAD : info.largestMtu();
        if (memif && config.mtu() > largestMtu)
        {
            throw new DpdkException(config.device() + " carries a frame in one of its buffers of " + (largestMtu +
                FRAME_OVERHEAD) + " bytes (MTU " + largestMtu + "): for MTU " + config.mtu() + " give its --vdev " +
                "bsize=" + Integer.highestOneBit((config.mtu() + FRAME_OVERHEAD) * 2 - 1) + ", at both ends");
        }
        final int mtuBytes = config.mtu() != 0 ? config.mtu() :
            largestMtu >= DpdkConfig.JUMBO_MTU_DEFAULT ? DpdkConfig.JUMBO_MTU_DEFAULT : Math.max(1500, eth.mtu());
        // a whole frame in one mbuf: MTU + Ethernet header + VLAN tag, rounded up
        final int frameBytes = (mtuBytes + 18 + 63) & ~63;
        pool = PacketMempool.create("rnic_" + eth.portId() + "_" + System.nanoTime() % 1_000_000,
            config.poolSize(), 256, Math.max(2048, frameBytes), eth.socketId());
        PacketMempool attaching = null;
        try
        {
            if (sendsFromRegions(config.zeroCopy(), info))
            {
                attaching = PacketMempool.createForAttaching("rnic_x" + eth.portId() + "_" + System.nanoTime() %
                    1_000_000, config.poolSize(), 256, eth.socketId());
            }
            eth.configure(queues, memif ? 0 : mtuBytes); // memif's ethdev refuses any MTU over 1500 (see above)
            for (int q = 0; q < queues; q++)
            {
                eth.setupRxQueue(q, config.descriptors(), pool);
                eth.setupTxQueue(q, config.descriptors());
            }
            startRetrying(eth);
            eth.promiscuous(); // peers reach us by the MAC we advertise; some vdevs have a random one
        }
        catch (final RuntimeException ex)
        {
            try
            {
                eth.close();
            }
            catch (final DpdkException ignored)
            {
                // the original failure is the one to report
            }
            pool.close();
            if (attaching != null)
            {
                attaching.close();
            }
            throw ex;
        }
        attachPool = attaching;
        mtu = mtuBytes;
        mac = addressOf(eth);
        arrays = new UnsafeBuffer[queues];
        open = new AtomicInteger(queues);
    }

    private static boolean sendsFromRegions(final DpdkConfig.ZeroCopy mode, final EthDevice.Info info)
    {
        return switch (mode)
        {
            case OFF -> false;
            case ON -> true;
            case AUTO -> info.sendsChainedFrames() && CPU_COPYING_DRIVERS.contains(info.driverName());
        };
    }

    /**
     * memif's buffer size: {@code bsize} of its device arguments, else the PMD's default. A frame must fit one buffer:
     * DPDK 22.11's memif receive path mishandles a frame chained over several buffers under load (the PMD crashed
     * in a test of 10 000-byte WRITEs at MTU 4200 over the default 2048-byte buffers, and ran clean with
     * {@code bsize=8192}), and its ethdev declares 1518-byte frames whatever the buffers, so ethdev's MTU is left
     * alone and the buffers decide.
     */
    static int memifBufferBytes(final String deviceArgs)
    {
        for (final String arg : deviceArgs.split(","))
        {
            if (arg.startsWith("bsize="))
            {
                try
                {
                    return Integer.parseInt(arg.substring("bsize=".length()).trim());
                }
                catch (final NumberFormatException ex)
                {
                    return MEMIF_BUFFER_BYTES_DEFAULT; // the PMD refuses the device itself before this
                }
            }
        }
        return MEMIF_BUFFER_BYTES_DEFAULT;
    }

    EthDevice eth()
    {
        return eth;
    }

    PacketMempool pool()
    {
        return pool;
    }

    /** The pool of mbufs lent memory regions' memory ({@link AttachedPayloads}), or null: no zero-copy. */
    PacketMempool attachPool()
    {
        return attachPool;
    }

    int queues()
    {
        return queues;
    }

    int mtu()
    {
        return mtu;
    }

    long mac()
    {
        return mac;
    }

    /**
     * Mbufs still out of the pool when the last port closed (0: every one came back and the pool was freed), or -1
     * while a port is open.
     */
    int inUseAtClose()
    {
        return inUseAtClose;
    }

    /** Keeps a queue's off-heap mbuf pointer arrays reachable as long as the device. */
    void holdArrays(final int queue, final UnsafeBuffer queueArrays)
    {
        arrays[queue] = queueArrays;
    }

    /** Stops the device and starts it again (retrying as at start-up): how a memif client connects once more. */
    void restart()
    {
        eth.stop();
        startRetrying(eth);
    }

    /** One port closed; the last one stops and closes the device and frees the pool if every mbuf came back. */
    void release()
    {
        if (open.decrementAndGet() == 0)
        {
            eth.stop();
            eth.close();
            final int leaked = freeIfAllBack(pool) + (attachPool != null ? freeIfAllBack(attachPool) : 0);
            inUseAtClose = leaked;
        }
    }

    /** Frees the pool if every mbuf came back; a pool with mbufs out must not be freed under them: reported, kept. */
    private int freeIfAllBack(final PacketMempool mempool)
    {
        final int leaked = mempool.inUse();
        if (leaked == 0)
        {
            mempool.close();
        }
        else
        {
            System.err.println("rnic: DPDK pool " + mempool.name() + " still has " + leaked +
                " mbufs in use after closing " + eth.name() + "; not freed");
        }
        return leaked;
    }

    /**
     * Starts the device, retrying for a while: a device that connects to a peer when it starts (a memif client
     * whose server is not listening yet) fails to start until the peer is there.
     */
    private static void startRetrying(final EthDevice eth)
    {
        final long deadlineNs = System.nanoTime() + START_RETRY_NS;
        while (true)
        {
            try
            {
                eth.start();
                return;
            }
            catch (final DpdkException ex)
            {
                if (System.nanoTime() > deadlineNs)
                {
                    throw new DpdkException(ex.getMessage() + " (retried for " + START_RETRY_NS / 1_000_000_000L +
                        " s; a memif client needs its server listening)");
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

    /**
     * The device's MAC, or a locally administered one made from the port id and the process id when it has none
     * (net_ring starts with 00:00:00:00:00:00, which no neighbour table can hold).
     */
    private static long addressOf(final EthDevice eth)
    {
        final long mac = eth.macAddress();
        if (mac != 0)
        {
            return mac;
        }
        final long made = 0x02_52_00_00_00_00L | (ProcessHandle.current().pid() & 0xFF_FFFF) << 8 |
            (eth.portId() & 0xFF);
        try
        {
            eth.macAddress(made);
        }
        catch (final DpdkException unsupported)
        {
            // net_ring cannot set one: it filters nothing, and the port is promiscuous anyway
        }
        return made;
    }
}
