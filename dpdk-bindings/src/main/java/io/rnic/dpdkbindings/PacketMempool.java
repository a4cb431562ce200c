package io.rnic.dpdkbindings;

import java.lang.foreign.Arena;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A pool of packet mbufs ({@code rte_pktmbuf_pool_create}). Its data room holds a whole frame plus DPDK's headroom,
 * so a frame is always one segment. Counts are read from the control path (they walk the per-lcore caches).
 */
public final class PacketMempool implements AutoCloseable
{
    /** Every live pool of the process: a thread leaving EAL empties its cache of each. */
    private static final CopyOnWriteArrayList<PacketMempool> LIVE = new CopyOnWriteArrayList<>();

    private final String name;
    private final long address;
    private final int size;
    private final int dataRoomBytes;
    private boolean freed;

    private PacketMempool(final String name, final long address, final int size, final int dataRoomBytes)
    {
        this.name = name;
        this.address = address;
        this.size = size;
        this.dataRoomBytes = dataRoomBytes;
    }

    /**
     * @param name          unique in the process (DPDK's memzone names are global).
     * @param count         mbufs in the pool (best 2^n − 1).
     * @param cacheSize     per-lcore cache (0..512); the EAL threads' allocations and frees go through it.
     * @param maxFrameBytes the largest frame an mbuf must hold; the data room adds DPDK's 128-byte headroom.
     * @param socketId      NUMA socket, or {@link DpdkBindings#SOCKET_ID_ANY}.
     */
    public static PacketMempool create(
        final String name, final int count, final int cacheSize, final int maxFrameBytes, final int socketId)
    {
        final int dataRoom = maxFrameBytes + DpdkBindings.RTE_PKTMBUF_HEADROOM;
        if (maxFrameBytes < 64 || dataRoom > 0xFFFF)
        {
            throw new IllegalArgumentException("mempool " + name + ": frame " + maxFrameBytes + " bytes (64.." +
                (0xFFFF - 128) + ")");
        }
        return make(name, count, cacheSize, (short)0, dataRoom, socketId);
    }

    /**
     * A pool of mbufs with no data room, each lent memory of the application's instead
     * ({@link DpdkBindings#rnic_dpdk_attach_extbuf}): their private area holds the attachment's shared info.
     */
    public static PacketMempool createForAttaching(final String name, final int count, final int cacheSize,
        final int socketId)
    {
        return make(name, count, cacheSize, (short)DpdkBindings.rnic_dpdk_extbuf_priv_size(), 0, socketId);
    }

    private static PacketMempool make(final String name, final int count, final int cacheSize, final short privSize,
        final int dataRoom, final int socketId)
    {
        if (count < 2 || cacheSize < 0 || cacheSize > 512)
        {
            throw new IllegalArgumentException("mempool " + name + ": count " + count + " (>= 2), cache " +
                cacheSize + " (0..512)");
        }
        final long address;
        try (Arena arena = Arena.ofConfined())
        {
            address = DpdkBindings.rte_pktmbuf_pool_create(arena.allocateFrom(name), count, cacheSize, privSize,
                (short)dataRoom, socketId);
        }
        if (address == 0)
        {
            final int errno = DpdkBindings.rte_errno();
            throw new DpdkException("rte_pktmbuf_pool_create " + name + " (" + count + " mbufs of " + dataRoom +
                " bytes) failed: " + DpdkBindings.rte_strerror(errno) + " (errno " + errno + ")" +
                (errno == DpdkBindings.ENOMEM ? ": give EAL more memory (-m MB) or hugepages" : ""));
        }
        final PacketMempool pool = new PacketMempool(name, address, count, dataRoom);
        LIVE.add(pool);
        return pool;
    }

    /**
     * Empties the calling thread's cache of every live pool back into its pool. An EAL thread that frees mbufs of a
     * pool keeps up to the cache size of them; once it gives its lcore id back they would be stranded.
     */
    public static void flushThreadCaches()
    {
        for (final PacketMempool pool : LIVE)
        {
            DpdkBindings.rte_mempool_cache_flush(pool.address);
        }
    }

    public String name()
    {
        return name;
    }

    /** The {@code struct rte_mempool *}. */
    public long address()
    {
        return address;
    }

    public int size()
    {
        return size;
    }

    /** Bytes after the headroom: the largest frame an mbuf holds. */
    public int frameCapacity()
    {
        return dataRoomBytes - DpdkBindings.RTE_PKTMBUF_HEADROOM;
    }

    /** Mbufs taken out of the pool (held by a device's rings, a port or an application). */
    public int inUse()
    {
        requireLive();
        return DpdkBindings.rte_mempool_in_use_count(address);
    }

    public int available()
    {
        requireLive();
        return DpdkBindings.rte_mempool_avail_count(address);
    }

    private void requireLive()
    {
        if (freed)
        {
            throw new IllegalStateException("mempool " + name + " was freed");
        }
    }

    /** Frees the pool; every mbuf must be back (close the devices that use it first). Idempotent. */
    @Override
    public void close()
    {
        if (!freed)
        {
            freed = true;
            LIVE.remove(this);
            DpdkBindings.rte_mempool_free(address);
        }
    }
}
