package io.rnic.datapath.port;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * An Ethernet port as the engine thread sees it: bursts of received frames handed over in place, and frames to send
 * queued into the port's transmit memory and pushed to the wire in bursts by {@link #flush}.
 * <p>
 * Every method is called from the one engine thread that owns the port (ports are not thread safe), except
 * {@link #close}, which the owner calls after its thread has stopped polling. No method allocates once the port is
 * open, and none throws for a bad frame: frames the port cannot take are counted and dropped.
 */
public interface PacketPort extends AutoCloseable
{
    /**
     * Hands up to {@code limit} received frames to the handler, in arrival order, each valid only during its call.
     *
     * @return the number of frames handed over (0 when nothing arrived).
     */
    int receive(FrameHandler handler, int limit);

    /**
     * Queues a copy of one complete Ethernet frame (no FCS) for transmission; it reaches the wire at the latest on
     * the next {@link #flush}. A port may flush on its own when its queue fills.
     *
     * @return true when queued, false when the frame was dropped (too long for the port, or no transmit space even
     * after flushing) — counted in {@link #transmitDrops()}.
     */
    boolean transmit(DirectBuffer buffer, int offset, int length);

    /**
     * Whether a frame given to {@link #transmit} (or claimed) now would be queued rather than dropped for want of
     * transmit space: a NIC's send queue pushes back on the QPs instead of losing their packets. The engine asks
     * before each request packet and leaves the rest for a later duty cycle. No system call; may be conservative.
     */
    default boolean canTransmit()
    {
        return true;
    }

    /**
     * Lends the port's own transmit memory for the next frame (a DPDK mbuf), so it is built in place: a buffer
     * from index 0 of at least {@link #mtu()} + 18 bytes, the same one until {@link #commitFrame}. Null when the
     * port does not lend memory (the default) or has none free now: build elsewhere and {@link #transmit} a copy.
     */
    default UnsafeBuffer claimFrame()
    {
        return null;
    }

    /** Queues the frame built in the claimed buffer ({@code length} bytes from index 0), as {@link #transmit}. */
    default void commitFrame(final int length)
    {
        throw new IllegalStateException(name() + " lends no transmit memory");
    }

    /**
     * Whether the next claimed frame may carry payload sent from where it lies ({@link #attachPayload}): a DPDK port
     * whose device takes chained frames. The engine then builds only the headers in the claimed buffer.
     */
    default boolean attachesPayload()
    {
        return false;
    }

    /**
     * Appends {@code length} bytes of native memory at {@code address} (a registered memory region's) to the claimed
     * frame's payload, sent from there, not copied.
     *
     * @return false when the port cannot now: nothing appended ({@link #detachPayload}, then build with a copy).
     */
    default boolean attachPayload(final long address, final int length)
    {
        return false;
    }

    /** Gives back what was attached to the claimed frame, which stays claimed. */
    default void detachPayload()
    {
    }

    /**
     * Queues the claimed frame as {@link #commitFrame} does: its first {@code headerBytes}, the attached payload,
     * then the {@code trailerBytes} that follow the headers in the claimed buffer (pad and ICRC).
     */
    default void commitAttached(final int headerBytes, final int trailerBytes)
    {
        throw new IllegalStateException(name() + " sends no attached payload");
    }

    /** A mark after every attachment so far (engine thread; see {@link #payloadReleased}). */
    default long payloadFence()
    {
        return 0;
    }

    /**
     * Whether the port no longer holds anything attached before {@code fence}, so that the memory may be freed
     * (engine thread, or any thread once it stopped). A port that attaches nothing holds nothing.
     */
    default boolean payloadReleased(final long fence)
    {
        return true;
    }

    /**
     * Called once on the engine thread before its first receive (DPDK registers the thread with EAL here), and
     * {@link #onEngineThreadStop} once after its last flush.
     */
    default void onEngineThreadStart()
    {
    }

    default void onEngineThreadStop()
    {
    }

    /**
     * Pushes every queued frame to the wire.
     *
     * @return the number of frames handed to the wire by this call.
     */
    int flush();

    /**
     * How many times queued frames have been pushed to the wire (by {@link #flush} or on the port's own), so that
     * the engine knows what the peer may have seen. By default every frame transmitted counts as pushed at once, as
     * an in-memory ring does: never later than the truth. A port that holds frames until a flush may count its
     * flushes instead.
     */
    default long pushes()
    {
        return framesTransmitted();
    }

    /** The interface or device name, for messages. */
    String name();

    /** The port's MAC address in the low 48 bits. */
    long macAddress();

    /** The largest Ethernet payload the port carries (the interface MTU; 1500 on a default veth). */
    int mtu();

    /**
     * The 802.1Q VLAN the engine must tag its frames with itself (the PCP then carries each QP's service level), or -1
     * when frames leave untagged. An AF_PACKET port on a kernel VLAN device answers that device's VLAN id: it sends
     * on the parent interface, so that the tag is ours, not the device's egress map's.
     */
    default int vlanId()
    {
        return -1;
    }

    /**
     * The port's counters: written by the engine thread, read from any thread (an endpoint moves them into its own
     * counters manager).
     */
    PortCounters counters();

    /** Frames received and handed to a handler since the port opened. */
    default long framesReceived()
    {
        return counters().get(PortCounters.FRAMES_RECEIVED);
    }

    /** Frames handed to the wire since the port opened. */
    default long framesTransmitted()
    {
        return counters().get(PortCounters.FRAMES_TRANSMITTED);
    }

    /**
     * Frames the port dropped on receive (ring overrun reported by the kernel or the device, which a port samples on
     * its engine thread).
     */
    default long receiveDrops()
    {
        return counters().get(PortCounters.RECEIVE_DROPS);
    }

    /** Frames dropped on receive for being longer than the port takes (a ring slot, a DPDK frame of ours). */
    default long receiveTooLong()
    {
        return counters().get(PortCounters.RECEIVE_TOO_LONG);
    }

    /** The receive queue's state in one line for a failure dump (any thread), or empty where a port has none. */
    default String describeReceive()
    {
        return "";
    }

    /** Frames {@link #transmit} could not take. */
    default long transmitDrops()
    {
        return counters().get(PortCounters.TRANSMIT_DROPS);
    }

    /** Releases the port's memory and descriptors; idempotent. */
    @Override
    void close();
}
