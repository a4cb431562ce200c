/*
 * The DPDK fast-path functions rnic needs are `static inline` in DPDK's headers (rte_eth_rx_burst,
 * rte_eth_tx_burst, rte_pktmbuf_alloc_bulk, the per-lcore rte_errno): this shim gives each an exported symbol
 * for the JVM's FFM linker, and the attachment of an external buffer (rnic_dpdk_attach_extbuf: inline too, with a
 * free callback that must be a C function). Every other DPDK call is bound directly (DpdkBindings.java).
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

/*
 * The free callback of an external buffer rnic attaches: the memory is a registered memory region's, which the
 * application owns and frees, so nothing is freed here; the release is counted (+1 at the 64-bit counter the
 * attachment named), so that the Java side knows when the PMD no longer holds the memory. The mbuf is freed by
 * whichever thread the PMD frees it on (the engine thread in tx_burst or tx_done_cleanup, a peer's thread for a
 * ring, a closing thread at device stop): hence an atomic add.
 */
static void rnic_dpdk_count_release(void *addr, void *released)
{
    (void)addr;
    __atomic_fetch_add((uint64_t *)released, 1, __ATOMIC_RELEASE);
}

/*
 * Attaches [addr, addr + len) as the external buffer of m, a fresh mbuf of a pool made with
 * rnic_dpdk_extbuf_priv_size() bytes of private area: its shared info lives there (one per attachment, refcnt 1),
 * so it lives exactly as long as the attachment. The data is the whole buffer: data_off 0, data_len len. When the
 * mbuf is freed, *released is incremented. The IOVA is the virtual address: right for devices that copy with the
 * CPU (memif, af_packet, null); a NIC's DMA would need the memory registered with DPDK first.
 */
void rnic_dpdk_attach_extbuf(struct rte_mbuf *m, void *addr, uint16_t len, uint64_t *released)
{
    struct rte_mbuf_ext_shared_info *shinfo = rte_mbuf_to_priv(m);
    shinfo->free_cb = rnic_dpdk_count_release;
    shinfo->fcb_opaque = released;
    rte_mbuf_ext_refcnt_set(shinfo, 1);
    rte_pktmbuf_attach_extbuf(m, addr, (rte_iova_t)(uintptr_t)addr, len, shinfo);
    m->data_len = len;
    m->pkt_len = len;
}

/* The private area an attachment pool's mbufs need for their shared info (RTE_MBUF_PRIV_ALIGN-aligned). */
int rnic_dpdk_extbuf_priv_size(void)
{
    return RTE_ALIGN_CEIL(sizeof(struct rte_mbuf_ext_shared_info), RTE_MBUF_PRIV_ALIGN);
}

int rnic_dpdk_errno(void)
{
    return rte_errno;
}

#define RNIC_LAYOUT_ENTRIES 26
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
    out[i++] = offsetof(struct rte_eth_dev_info, tx_offload_capa);
    out[i++] = RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
    return i;
}
