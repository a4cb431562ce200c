package io.rnic.datapath.dpdk;

import java.util.List;

/**
 * How to open a DPDK port.
 *
 * @param device        the ethdev's name: a virtual device named in {@code ealArgs} ({@code net_memif0}) or a
 *                      probed one.
 * @param ealArgs       EAL arguments (EAL initialises once per process: every port of the process shares them).
 * @param queues        queue pairs, one per engine thread (RSS spreads flows over them where the driver can).
 * @param mtu           the largest Ethernet payload to carry; 0: {@link #JUMBO_MTU_DEFAULT} where the device carries
 *                      it (a memif whose buffers hold its frames: {@code bsize=8192}), else the device's MTU.
 * @param descriptors   receive and transmit descriptors per queue.
 * @param poolSize      mbufs in the device's pool (rings, in-flight bursts and each queue's transmit backlog).
 * @param fpOpsBursts   call the drivers' burst functions through {@code rte_eth_fp_ops} instead of the C shim.
 * @param zeroCopy      whether payload from memory regions is sent from where it lies ({@link ZeroCopy}).
 */
public record DpdkConfig(
    String device, List<String> ealArgs, int queues, int mtu, int descriptors, int poolSize, boolean fpOpsBursts,
    ZeroCopy zeroCopy)
{
    /** Zero-copy transmit: payload from a memory region lent to mbufs chained after the headers, not copied. */
    public enum ZeroCopy
    {
        /**
         * Where the device declares chained frames ({@code RTE_ETH_TX_OFFLOAD_MULTI_SEGS}) and its driver copies
         * them with the CPU (memif, af_packet, null): a NIC's DMA would need the regions' memory mapped for the
         * device first ({@code rte_extmem_register}, {@code rte_dev_dma_map}), which is not done yet.
         */
        AUTO,
        OFF,
        /** Whatever the device declares (tests: net_ring, whose peer then receives the chains). */
        ON
    }

    public static final int DESCRIPTORS_DEFAULT = 1024;
    public static final int POOL_SIZE_DEFAULT = 8191;
    /**
     * The Ethernet MTU of a port whose device carries it, when none is asked for: the smallest that fits IB MTU 4096
     * (4096 + IPv6 40 + UDP 8 + BTH 12 + RETH 16 + ICRC 4 = 4176), rounded up as ConnectX set-ups for RoCE do.
     */
    public static final int JUMBO_MTU_DEFAULT = 4200;
    /** EAL's arguments when none are given: no hugepages needed, nothing shared with other DPDK processes. */
    public static final List<String> EAL_DEFAULT = List.of("--no-huge", "-m", "512", "--no-shconf", "--no-pci");

    public DpdkConfig
    {
        if (device == null || device.isEmpty())
        {
            throw new IllegalArgumentException("a DPDK port needs a device name (-d net_memif0, ...)");
        }
        if (queues < 1 || queues > 64)
        {
            throw new IllegalArgumentException("queues " + queues + " out of range 1..64");
        }
        if (mtu != 0 && (mtu < 576 || mtu > 9600))
        {
            throw new IllegalArgumentException("mtu " + mtu + " out of range 576..9600 (0: the default)");
        }
        if (descriptors < 64 || descriptors > 4096 || Integer.bitCount(descriptors) != 1)
        {
            throw new IllegalArgumentException("descriptors " + descriptors + ": a power of two in 64..4096");
        }
        ealArgs = List.copyOf(ealArgs);
        if (zeroCopy == null)
        {
            throw new IllegalArgumentException("zeroCopy: AUTO, OFF or ON");
        }
    }

    public static DpdkConfig of(final String device, final List<String> ealArgs)
    {
        return new DpdkConfig(device, ealArgs, 1, 0, DESCRIPTORS_DEFAULT, POOL_SIZE_DEFAULT, false, ZeroCopy.AUTO);
    }

    public DpdkConfig withQueues(final int count)
    {
        return new DpdkConfig(device, ealArgs, count, mtu, descriptors, poolSize, fpOpsBursts, zeroCopy);
    }

    public DpdkConfig withMtu(final int bytes)
    {
        return new DpdkConfig(device, ealArgs, queues, bytes, descriptors, poolSize, fpOpsBursts, zeroCopy);
    }

    public DpdkConfig withFpOpsBursts(final boolean fpOps)
    {
        return new DpdkConfig(device, ealArgs, queues, mtu, descriptors, poolSize, fpOps, zeroCopy);
    }

    public DpdkConfig withZeroCopy(final ZeroCopy mode)
    {
        return new DpdkConfig(device, ealArgs, queues, mtu, descriptors, poolSize, fpOpsBursts, mode);
    }
}
