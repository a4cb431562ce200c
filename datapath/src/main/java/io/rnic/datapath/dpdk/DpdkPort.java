package io.rnic.datapath.dpdk;

import io.rnic.datapath.port.FrameHandler;
import io.rnic.datapath.port.PacketPort;
import io.rnic.datapath.port.PortCounters;
import io.rnic.datapath.port.PortException;
import io.rnic.device.JvmFlags;
import io.rnic.dpdkbindings.BurstFunctions;
import io.rnic.dpdkbindings.DpdkBindings;
import io.rnic.dpdkbindings.DpdkException;
import io.rnic.dpdkbindings.Eal;
import io.rnic.dpdkbindings.EthDevice;
import io.rnic.dpdkbindings.PacketMempool;
import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

import static io.rnic.dpdkbindings.DpdkBindings.MBUF_BUF_ADDR;
import static io.rnic.dpdkbindings.DpdkBindings.MBUF_DATA_LEN;
import static io.rnic.dpdkbindings.DpdkBindings.MBUF_DATA_OFF;
import static io.rnic.dpdkbindings.DpdkBindings.MBUF_NB_SEGS;
import static io.rnic.dpdkbindings.DpdkBindings.MBUF_NEXT;
import static io.rnic.dpdkbindings.DpdkBindings.MBUF_PKT_LEN;

/**
 * One queue pair of a DPDK ethdev as a {@link PacketPort}. Receive: a burst of mbufs, each frame handed to the
 * engine in place (an Agrona buffer over the mbuf's data, no copy), the burst freed in bulk after. Transmit: the
 * engine builds frames straight into mbufs ({@link #claimFrame}); copies of other frames ({@link #transmit}) go into
 * mbufs too; {@link #flush} offers the queued mbufs to the device, and what it does not take yet stays queued, in
 * order, for the next flush. Every mbuf goes back to the pool on every path: {@link PacketMempool#inUse} returns to
 * its start once the ports are closed.
 * <p>
 * Zero-copy transmit, where the device takes chained frames ({@link SharedEthDevice#attachPool}): a frame's payload
 * from a memory region is not copied into its mbuf but lent to mbufs chained after the headers
 * ({@link #attachPayload}, {@link AttachedPayloads}), and the pad and ICRC follow in a third mbuf. Deregistration and
 * {@link #close} wait until the driver has released every mbuf lent a region's memory.
 * <p>
 * The engine thread registers itself with EAL ({@link #onEngineThreadStart}), as DPDK requires of a thread that
 * polls queues and allocates mbufs. The ports of one device share it and its pool; the last one closed stops it.
 */
public final class DpdkPort implements PacketPort
{
    private static final int RX_BURST_MAX = 256;
    private static final int TX_BACKLOG = 512;
    private static final int STASH = 64;
    /** How long {@link #close} waits for the driver to release the memory it was lent, before stopping the device. */
    private static final long CLOSE_RELEASE_WAIT_NS = 1_000_000_000L;
    /** Accounts of closed ports whose driver kept lent mbufs: kept reachable, their release counters in use. */
    private static final Queue<AttachedPayloads> STRANDED = new ConcurrentLinkedQueue<>();

    private final SharedEthDevice device;
    private final int queue;
    private final boolean fpOps;
    private BurstFunctions bursts;
    private final int frameCapacity;
    private final int mtu;
    private final long rxMbufs;
    private final long txMbufs;
    private final long stash;
    /** Where a frame that arrives in several segments is joined ({@link #joinSegments}). */
    private final long rxJoined;
    private final UnsafeBuffer rxFrame = new UnsafeBuffer(0, 0);
    private final UnsafeBuffer txFrame = new UnsafeBuffer(0, 0);
    private int txCount;
    private int stashCount;
    private long claimedMbuf;
    private final PortCounters counters = new PortCounters();
    /** Null when the device does not send payload from where it lies. */
    private final AttachedPayloads attached;
    /** Bursts handed to the device: the moments queued frames may leave ({@link #pushes}). */
    private long pushes;
    private boolean closed;

    private DpdkPort(final SharedEthDevice device, final int queue, final boolean fpOps)
    {
        this.device = device;
        this.queue = queue;
        this.fpOps = fpOps;
        this.bursts = fpOps ? BurstFunctions.fpOps(device.eth(), queue) : BurstFunctions.shim(device.eth(), queue);
        this.frameCapacity = device.pool().frameCapacity();
        this.mtu = device.mtu();
        // the mbuf pointer arrays live off-heap: DPDK writes and reads them
        final UnsafeBuffer arrays = new UnsafeBuffer(BufferUtil.allocateDirectAligned(
            8 * (RX_BURST_MAX + TX_BACKLOG + STASH + 1) + frameCapacity, 64)); // + 1: free()'s scratch slot
        this.rxMbufs = arrays.addressOffset();
        this.txMbufs = rxMbufs + 8L * RX_BURST_MAX;
        this.stash = txMbufs + 8L * TX_BACKLOG;
        this.rxJoined = stash + 8L * (STASH + 1);
        device.holdArrays(queue, arrays);
        this.attached = device.attachPool() != null ? new AttachedPayloads(device.attachPool()) : null;
    }

    /**
     * Initialises EAL (first time in the process), configures the device with {@code config.queues()} queue pairs
     * and starts it: one port per queue, for one engine thread each.
     *
     * @throws PortException naming the problem (DPDK missing, a wrong EAL argument, no such device, no memory), with
     *         DPDK's {@link DpdkException} as its cause: an embedder catches rnic's failures as one type.
     */
    public static DpdkPort[] open(final DpdkConfig config)
    {
        JvmFlags.check(); // an embedder's first call: before the rings' Agrona buffers
        final SharedEthDevice device;
        try
        {
            Eal.init(config.ealArgs());
            device = new SharedEthDevice(config);
        }
        catch (final DpdkException ex)
        {
            throw new PortException(ex.getMessage(), ex);
        }
        final DpdkPort[] ports = new DpdkPort[config.queues()];
        for (int q = 0; q < ports.length; q++)
        {
            ports[q] = new DpdkPort(device, q, config.fpOpsBursts());
        }
        return ports;
    }

    @Override
    public void onEngineThreadStart()
    {
        if (Thread.currentThread().isVirtual())
        {
            // a virtual thread hops between carriers: DPDK's per-lcore state would follow the wrong one
            throw new IllegalStateException("a DPDK port is polled from a platform thread, not a virtual one");
        }
        Eal.registerCurrentThread();
    }

    @Override
    public void onEngineThreadStop()
    {
        returnHeldMbufs(); // into this thread's mempool cache, before the thread gives its lcore id back
        Eal.unregisterCurrentThread();
    }

    @Override
    public int receive(final FrameHandler handler, final int limit)
    {
        final int received = bursts.receive(rxMbufs, Math.min(limit, RX_BURST_MAX));
        for (int i = 0; i < received; i++)
        {
            final long mbuf = UnsafeApi.getLong(rxMbufs + 8L * i);
            if (UnsafeApi.getShort(mbuf + MBUF_NB_SEGS) == 1)
            {
                final int length = UnsafeApi.getShort(mbuf + MBUF_DATA_LEN) & 0xFFFF;
                rxFrame.wrap(dataAddress(mbuf), length);
                handler.onFrame(rxFrame, 0, length);
            }
            else if (joinSegments(mbuf))
            {
                handler.onFrame(rxFrame, 0, rxFrame.capacity());
            }
            else
            {
                counters.addReceiveTooLong(1); // longer than any frame of ours
            }
        }
        if (received > 0)
        {
            counters.addFramesReceived(received);
            DpdkBindings.rte_pktmbuf_free_bulk(rxMbufs, received);
        }
        return received;
    }

    @Override
    public boolean transmit(final DirectBuffer buffer, final int offset, final int length)
    {
        if (length < 14 || length > frameCapacity)
        {
            counters.addTransmitDrops(1);
            return false;
        }
        final long mbuf = takeMbuf();
        if (mbuf == 0)
        {
            return false;
        }
        buffer.getBytes(offset, dataView(mbuf), 0, length);
        return enqueue(mbuf, length);
    }

    /** Room in the ordered backlog (mbufs themselves run out only when every one is in a ring or a backlog). */
    @Override
    public boolean canTransmit()
    {
        return txCount < TX_BACKLOG;
    }

    @Override
    public UnsafeBuffer claimFrame()
    {
        if (claimedMbuf == 0)
        {
            claimedMbuf = takeMbuf();
            if (claimedMbuf == 0)
            {
                return null;
            }
            dataView(claimedMbuf);
        }
        return txFrame;
    }

    @Override
    public void commitFrame(final int length)
    {
        final long mbuf = claimedMbuf;
        claimedMbuf = 0;
        if (length < 14 || length > frameCapacity)
        {
            counters.addTransmitDrops(1);
            free(mbuf);
            return;
        }
        enqueue(mbuf, length);
    }

    @Override
    public boolean attachesPayload()
    {
        return attached != null;
    }

    @Override
    public boolean attachPayload(final long address, final int length)
    {
        return claimedMbuf != 0 && attached != null && attached.attach(address, length);
    }

    @Override
    public void detachPayload()
    {
        if (attached != null)
        {
            attached.detach();
        }
    }

    /** The headers stay in the claimed mbuf; the trailer (pad and ICRC) moves into an mbuf of its own, last. */
    @Override
    public void commitAttached(final int headerBytes, final int trailerBytes)
    {
        final long head = claimedMbuf;
        claimedMbuf = 0;
        final long trailer = takeMbuf();
        if (trailer == 0)
        {
            attached.detach();
            free(head);
            return; // counted by takeMbuf
        }
        UnsafeApi.copyMemory(dataAddress(head) + headerBytes, dataAddress(trailer), trailerBytes);
        final int segments = attached.pendingCount();
        attached.chain(head, headerBytes, trailer, trailerBytes);
        if (queue(head))
        {
            counters.addZeroCopySegments(segments);
        }
    }

    @Override
    public long payloadFence()
    {
        return attached != null ? attached.fence() : 0;
    }

    /** Asks the driver to free what it has finished sending first (a NIC frees lazily, when its ring needs room). */
    @Override
    public boolean payloadReleased(final long fence)
    {
        if (attached == null)
        {
            return true;
        }
        if (!closed)
        {
            DpdkBindings.rte_eth_tx_done_cleanup(device.eth().portId(), (short)queue, 0);
        }
        return attached.released(fence);
    }

    /** Frames wait in the backlog until a burst hands them to the device: only bursts count. */
    @Override
    public long pushes()
    {
        return pushes;
    }

    @Override
    public int flush()
    {
        if (txCount == 0)
        {
            return 0;
        }
        pushes++;
        final int sent = bursts.transmit(txMbufs, txCount);
        if (sent < txCount)
        {
            // the device's ring is full: the rest stays queued, in order, for the next flush
            UnsafeApi.copyMemory(txMbufs + 8L * sent, txMbufs, 8L * (txCount - sent));
        }
        txCount -= sent;
        if (sent > 0)
        {
            counters.addFramesTransmitted(sent);
        }
        return sent;
    }

    @Override
    public String name()
    {
        return device.eth().name() + (device.queues() > 1 ? "/" + queue : "");
    }

    @Override
    public long macAddress()
    {
        return device.mac();
    }

    @Override
    public int mtu()
    {
        return mtu;
    }

    @Override
    public PortCounters counters()
    {
        return counters;
    }

    /**
     * The device's missed and no-mbuf counts (all queues), read from the device by the calling thread (DPDK lets a
     * control thread read a device's statistics while its queues are polled).
     */
    @Override
    public long receiveDrops()
    {
        if (closed)
        {
            return counters.get(PortCounters.RECEIVE_DROPS);
        }
        final EthDevice.Stats stats = device.eth().stats();
        return stats.rxMissed() + stats.rxNoMbuf() + counters.get(PortCounters.RECEIVE_DROPS);
    }

    /** The device's pool, for accounting ({@link PacketMempool#inUse}). */
    public PacketMempool pool()
    {
        return device.pool();
    }

    /**
     * Mbufs still out of the pool when the device's last port closed (0: every one came back and the pool was freed),
     * or -1 while a port of the device is open.
     */
    public int mbufsInUseAtClose()
    {
        return device.inUseAtClose();
    }

    /**
     * Waits until the device reports its link up (a memif pair once both ends connected), at most {@code timeoutMs};
     * restarts the device while it stays down. Before the engine thread starts only.
     *
     * @return true when up.
     */
    public boolean awaitLinkUp(final long timeoutMs) throws InterruptedException
    {
        final long deadlineNs = System.nanoTime() + timeoutMs * 1_000_000L;
        long restartNs = System.nanoTime() + restartDelayNs();
        while (!device.eth().link().up())
        {
            final long nowNs = System.nanoTime();
            if (nowNs > deadlineNs)
            {
                return false;
            }
            if (nowNs > restartNs)
            {
                // a memif connection refused during the peer's own start-up is not retried by DPDK: restart to
                // connect again (at a jittered pace, so two ends restarting do not keep meeting each other's restart)
                device.restart();
                bursts = fpOps ? BurstFunctions.fpOps(device.eth(), queue) : BurstFunctions.shim(device.eth(), queue);
                restartNs = System.nanoTime() + restartDelayNs();
            }
            Thread.sleep(5);
        }
        return true;
    }

    private static long restartDelayNs()
    {
        return 700_000_000L + java.util.concurrent.ThreadLocalRandom.current().nextLong(600_000_000L);
    }

    public EthDevice device()
    {
        return device.eth();
    }

    /**
     * Frees what the port holds (queued frames, the stash, a claimed mbuf); the last port of the device stops and
     * closes it and frees its pool. Call after the engine thread stopped. Idempotent.
     */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        returnHeldMbufs();
        awaitPayloadReleased();
        closed = true;
        device.release();
        if (attached != null && attached.held() != 0)
        {
            // their free callbacks will still count into the account's memory: it must never be freed
            STRANDED.add(attached);
            System.err.println("rnic: DPDK port " + name() + " closed while its driver still holds " +
                attached.held() + " mbufs lent memory regions' memory: keep that memory allocated");
        }
    }

    /**
     * Before the device stops: the queue's frames still reading memory regions, freed as the driver completes them
     * (stopping the device then frees the rest). The engine thread has stopped: this thread may clean the queue.
     */
    private void awaitPayloadReleased()
    {
        if (attached == null)
        {
            return;
        }
        final long fence = attached.fence();
        final long startNs = System.nanoTime();
        while (!payloadReleased(fence) && System.nanoTime() - startNs < CLOSE_RELEASE_WAIT_NS)
        {
            Thread.onSpinWait();
        }
    }

    private void returnHeldMbufs()
    {
        if (txCount > 0)
        {
            counters.addTransmitDrops(txCount);
            DpdkBindings.rte_pktmbuf_free_bulk(txMbufs, txCount);
            txCount = 0;
        }
        if (stashCount > 0)
        {
            DpdkBindings.rte_pktmbuf_free_bulk(stash, stashCount);
            stashCount = 0;
        }
        if (claimedMbuf != 0)
        {
            free(claimedMbuf);
            claimedMbuf = 0;
        }
        if (attached != null)
        {
            attached.returnHeld();
        }
    }

    private long takeMbuf()
    {
        if (stashCount == 0)
        {
            if (DpdkBindings.rte_pktmbuf_alloc_bulk(device.pool().address(), stash, STASH) != 0)
            {
                counters.addTransmitDrops(1); // the pool is empty: everything is in rings or backlogs
                return 0;
            }
            stashCount = STASH;
        }
        return UnsafeApi.getLong(stash + 8L * --stashCount);
    }

    /**
     * A frame chained over several mbufs (a peer's zero-copy frame over net_ring, which hands over the sender's
     * mbufs themselves), copied into one piece, {@link #rxFrame} over it: the engine parses a frame in one piece.
     */
    private boolean joinSegments(final long head)
    {
        final int length = UnsafeApi.getInt(head + MBUF_PKT_LEN);
        if (length > frameCapacity)
        {
            return false;
        }
        int joined = 0;
        for (long mbuf = head; mbuf != 0 && joined < length; mbuf = UnsafeApi.getLong(mbuf + MBUF_NEXT))
        {
            final int n = Math.min(UnsafeApi.getShort(mbuf + MBUF_DATA_LEN) & 0xFFFF, length - joined);
            UnsafeApi.copyMemory(dataAddress(mbuf), rxJoined + joined, n);
            joined += n;
        }
        rxFrame.wrap(rxJoined, joined);
        return true;
    }

    private static long dataAddress(final long mbuf)
    {
        return UnsafeApi.getLong(mbuf + MBUF_BUF_ADDR) + (UnsafeApi.getShort(mbuf + MBUF_DATA_OFF) & 0xFFFF);
    }

    private UnsafeBuffer dataView(final long mbuf)
    {
        final long data = dataAddress(mbuf);
        txFrame.wrap(data, frameCapacity);
        return txFrame;
    }

    private boolean enqueue(final long mbuf, final int length)
    {
        UnsafeApi.putShort(mbuf + MBUF_DATA_LEN, (short)length);
        UnsafeApi.putInt(mbuf + MBUF_PKT_LEN, length);
        return queue(mbuf);
    }

    /** Into the backlog, in order (a chained frame by its head). */
    private boolean queue(final long mbuf)
    {
        if (txCount == TX_BACKLOG)
        {
            flush();
            if (txCount == TX_BACKLOG)
            {
                counters.addTransmitDrops(1); // the device has taken nothing for a whole backlog
                free(mbuf);
                return false;
            }
        }
        UnsafeApi.putLong(txMbufs + 8L * txCount++, mbuf);
        return true;
    }

    private void free(final long mbuf)
    {
        // one pointer through the bulk call: the stash's free slot is scratch space here
        final long slot = stash + 8L * stashCount;
        UnsafeApi.putLong(slot, mbuf);
        DpdkBindings.rte_pktmbuf_free_bulk(slot, 1);
    }
}
