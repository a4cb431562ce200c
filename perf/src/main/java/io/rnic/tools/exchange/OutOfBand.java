package io.rnic.tools.exchange;

import io.rnic.tools.LocalQp;
import io.rnic.tools.RemoteQp;
import java.io.IOException;
import java.util.function.Consumer;

/**
 * The TCP conversation beside the RDMA traffic, as the real tools have it: exchange each QP's number, first PSN,
 * R_Key, buffer address and GID, then meet at barriers (both sides ready before the first packet; the client done
 * before the server tears down or checks its memory).
 */
public interface OutOfBand extends AutoCloseable
{
    /**
     * Sends ours and returns the peer's, QP by QP. {@code connect} brings our QPs to RTS with the peer's values; it
     * runs before the server answers (so a client may send as soon as it has the answer, as with rdma-core's
     * pingpongs) and on the client before it tells the server it is ready.
     */
    RemoteQp[] exchange(LocalQp[] local, long gidHigh, long gidLow, Consumer<RemoteQp[]> connect)
        throws IOException;

    /** Before the test: returns once the peer is connected and its receives are posted. */
    void sync() throws IOException;

    /**
     * One more of perftest's {@code ctx_hand_shake} barriers: -a's between sizes (ib_send_lat meets before each size,
     * once its receives are posted; ib_send_bw before and after each). rdma-core's pingpongs have none.
     */
    default void barrier() throws IOException
    {
        throw new UnsupportedOperationException("this exchange has no barriers between tests");
    }

    /**
     * After the test: returns once the peer finished too. {@code mine} is this side's bandwidth result (null when it
     * measured none); returns the peer's when the exchange carries it (perftest's WRITE/READ/atomic bandwidth
     * tests), else null.
     */
    BandwidthReport finish(BandwidthReport mine) throws IOException;

    /**
     * Whether {@link #finish} waits for the peer to be done with the QPs. Without that barrier (rdma-core's
     * pingpongs, perftest's ib_write_lat) the side that received last may leave while the peer still waits for the
     * ACK of its last message.
     */
    default boolean hasClosingBarrier()
    {
        return true;
    }

    /** Whether the peer is another rnic tool (it then runs the same warm-up); false for the real tools. */
    default boolean peerIsRnic()
    {
        return false;
    }

    /** The IB path MTU both sides use, in bytes: ours, or less when the peer announced less (perftest). */
    default int pathMtu(final int ours)
    {
        return ours;
    }

    /**
     * Whether the exchange itself brought the QPs to RTS (the RDMA CM, perftest's {@code -R}): {@code connect} then
     * only learns the peer's keys, and the tool must not modify the QPs again.
     */
    default boolean connectsQps()
    {
        return false;
    }

    /**
     * Once the QPs are connected: a wait for the peer that times out while {@code activity} shows its packets
     * arriving waits on (the peer is running the test), one that meets the engine's failure ends at once.
     */
    default void watchPeer(final PeerActivity activity)
    {
    }

    @Override
    void close();

    /** perftest's {@code struct bw_report_data} as it crosses the wire: MB/s (2^20 bytes) and millions of msgs/s. */
    record BandwidthReport(long size, long iterations, double peakMBps, double averageMBps, double messageRateMpps)
    {
        static final BandwidthReport NONE = new BandwidthReport(0, 0, 0, 0, 0);
    }
}
