/*
 * The DPDK fast-path functions rnic needs are `static inline` in DPDK's headers (rte_eth_rx_burst,
 * rte_eth_tx_burst, rte_pktmbuf_alloc_bulk, the per-lcore rte_errno): this shim gives each an exported symbol
 * for the JVM's FFM linker. Nothing else lives here: every other DPDK call is bound directly (DpdkBindings.java).
 * rnic_dpdk_layout() reports the sizes and offsets the Java side declares, so it can refuse a DPDK whose ABI
 * differs from the one it was written against instead of corrupting memory.
 */
#include <stdint.h>
#include <stddef.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

uint16_t rnic_dpdk_rx_burst(uint16_t port, uint16_t queue, struct rte_mbuf **mbufs, uint16_t n)
{
    return rte_eth_rx_burst(port, queue, mbufs, n);
}

uint16_t rnic_dpdk_tx_burst(uint16_t port, uint16_t queue, struct rte_mbuf **mbufs, uint16_t n)
{
    return rte_eth_tx_burst(port, queue, mbufs, n);
}

/* 0, or -ENOENT (nothing allocated) when the pool has fewer than n free mbufs. Each mbuf is reset. */
int rnic_dpdk_pktmbuf_alloc_bulk(struct rte_mempool *pool, struct rte_mbuf **mbufs, unsigned n)
{
    return rte_pktmbuf_alloc_bulk(pool, mbufs, n);
}

/* Empties the calling lcore's cache of the pool into the pool (before the thread gives its lcore id back: the
 * cache of a released lcore is no longer counted as available, and its mbufs are stranded until the id is reused). */
void rnic_dpdk_mempool_cache_flush(struct rte_mempool *pool)
{
    struct rte_mempool_cache *cache = rte_mempool_default_cache(pool, rte_lcore_id());
    if (cache != NULL)
    {
        rte_mempool_cache_flush(cache, pool);
    }
}

int rnic_dpdk_errno(void)
{
    return rte_errno;
}

#define RNIC_LAYOUT_ENTRIES 24
/* Fills out[0..RNIC_LAYOUT_ENTRIES) in the order DpdkBindings.LAYOUT_NAMES lists; returns the count. */
int rnic_dpdk_layout(int64_t *out)
{
    int i = 0;
    out[i++] = sizeof(struct rte_mbuf);
    out[i++] = offsetof(struct rte_mbuf, buf_addr);
    out[i++] = offsetof(struct rte_mbuf, data_off);
    out[i++] = offsetof(struct rte_mbuf, nb_segs);
    out[i++] = offsetof(struct rte_mbuf, pkt_len);
    out[i++] = offsetof(struct rte_mbuf, data_len);
    out[i++] = offsetof(struct rte_mbuf, buf_len);
    out[i++] = offsetof(struct rte_mbuf, next);
    out[i++] = sizeof(struct rte_eth_conf);
    out[i++] = offsetof(struct rte_eth_conf, rxmode.mq_mode);
    out[i++] = offsetof(struct rte_eth_conf, rxmode.mtu);
    out[i++] = offsetof(struct rte_eth_conf, rx_adv_conf.rss_conf.rss_hf);
    out[i++] = sizeof(struct rte_eth_dev_info);
    out[i++] = offsetof(struct rte_eth_dev_info, driver_name);
    out[i++] = offsetof(struct rte_eth_dev_info, max_mtu);
    out[i++] = offsetof(struct rte_eth_dev_info, max_rx_queues);
    out[i++] = offsetof(struct rte_eth_dev_info, max_tx_queues);
    out[i++] = offsetof(struct rte_eth_dev_info, flow_type_rss_offloads);
    out[i++] = sizeof(struct rte_eth_stats);
    out[i++] = offsetof(struct rte_eth_stats, imissed);
    out[i++] = sizeof(struct rte_eth_link);
    out[i++] = sizeof(struct rte_eth_fp_ops);
    out[i++] = offsetof(struct rte_eth_fp_ops, txq);
    out[i++] = RTE_PKTMBUF_HEADROOM;
    out[i++] = offsetof(struct rte_eth_dev_info, max_rx_pktlen);
    return i;
}
