package io.rnic.dpdkbindings;

import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The fast path of one queue pair of a started port: receive and transmit bursts of mbuf pointers. DPDK's
 * {@code rte_eth_rx_burst}/{@code rte_eth_tx_burst} are {@code static inline}; two ways reach them from Java:
 * <ul>
 * <li>{@link #shim}: the C shim's exported wrappers, bound as {@code static final} critical downcalls;</li>
 * <li>{@link #fpOps}: what the inline functions do themselves — read the driver's burst function and the queue's
 * data from the exported {@code rte_eth_fp_ops} table, and call the function pointer (a downcall handle per
 * port, made when the port starts).</li>
 * </ul>
 * {@code BENCHMARKS.md} has both measured side by side ({@code DpdkBurstBenchmark}); the port uses the shim.
 * Engine thread only; nothing here allocates.
 */
public abstract sealed class BurstFunctions permits BurstFunctions.Shim, BurstFunctions.FpOps
{
    protected final short portId;
    protected final short queue;

    BurstFunctions(final EthDevice device, final int queue)
    {
        this.portId = device.portId();
        this.queue = (short)queue;
    }

    public static BurstFunctions shim(final EthDevice device, final int queue)
    {
        return new Shim(device, queue);
    }

    /** Reads the table: call after the port started (starting fills it), and make a new one after a restart. */
    public static BurstFunctions fpOps(final EthDevice device, final int queue)
    {
        return new FpOps(device, queue);
    }

    /** Receives up to {@code count} frames; their mbuf pointers go to the array at {@code mbufs}. */
    public abstract int receive(long mbufs, int count);

    /** Offers {@code count} mbufs; returns how many the device took (the rest stay the caller's). */
    public abstract int transmit(long mbufs, int count);

    static final class Shim extends BurstFunctions
    {
        Shim(final EthDevice device, final int queue)
        {
            super(device, queue);
        }

        @Override
        public int receive(final long mbufs, final int count)
        {
            return DpdkBindings.rnic_dpdk_rx_burst(portId, queue, mbufs, (short)count) & 0xFFFF;
        }

        @Override
        public int transmit(final long mbufs, final int count)
        {
            return DpdkBindings.rnic_dpdk_tx_burst(portId, queue, mbufs, (short)count) & 0xFFFF;
        }
    }

    static final class FpOps extends BurstFunctions
    {
        private final MethodHandle rxBurst;
        private final MethodHandle txBurst;
        private final long rxQueue;
        private final long txQueue;

        FpOps(final EthDevice device, final int queue)
        {
            super(device, queue);
            final MemorySegment ops = DpdkBindings.fpOps()
                .asSlice(DpdkBindings.RTE_ETH_FP_OPS.byteSize() * portId, DpdkBindings.RTE_ETH_FP_OPS.byteSize());
            final Linker linker = Linker.nativeLinker();
            final Linker.Option critical = Linker.Option.critical(false);
            rxBurst = linker.downcallHandle(MemorySegment.ofAddress(ops.get(JAVA_LONG, DpdkBindings.FP_RX_PKT_BURST)),
                DpdkBindings.BURST_FUNCTION, critical);
            txBurst = linker.downcallHandle(MemorySegment.ofAddress(ops.get(JAVA_LONG, DpdkBindings.FP_TX_PKT_BURST)),
                DpdkBindings.BURST_FUNCTION, critical);
            rxQueue = queuePointer(ops.get(JAVA_LONG, DpdkBindings.FP_RXQ_DATA), queue);
            txQueue = queuePointer(ops.get(JAVA_LONG, DpdkBindings.FP_TXQ_DATA), queue);
        }

        private static long queuePointer(final long data, final int queue)
        {
            if (data == 0)
            {
                throw new DpdkException("rte_eth_fp_ops has no queue data: the port is not started");
            }
            return MemorySegment.ofAddress(data).reinterpret(8L * (queue + 1)).getAtIndex(JAVA_LONG, queue);
        }

        @Override
        public int receive(final long mbufs, final int count)
        {
            try
            {
                return (short)rxBurst.invokeExact(rxQueue, mbufs, (short)count) & 0xFFFF;
            }
            catch (final Throwable ex)
            {
                throw new IllegalStateException("rx burst downcall", ex);
            }
        }

        @Override
        public int transmit(final long mbufs, final int count)
        {
            try
            {
                return (short)txBurst.invokeExact(txQueue, mbufs, (short)count) & 0xFFFF;
            }
            catch (final Throwable ex)
            {
                throw new IllegalStateException("tx burst downcall", ex);
            }
        }
    }
}
