package io.rnic.transport;

import org.agrona.concurrent.UnsafeBuffer;

/**
 * A sink that lends its own transmit memory (a DPDK mbuf), so the engine builds each frame in place: the payload
 * is copied once, from the memory region into the frame, and never again. Engine thread only.
 */
public interface FrameBufferSink extends PacketSink
{
    /**
     * Memory for the next frame, from index 0 and at least as long as the largest frame the engine builds; the same
     * buffer until {@link #commitFrame}. Null when the sink has none free now: the engine then builds in its own
     * buffer and hands the frame to {@link #send}, which copies it.
     */
    UnsafeBuffer claimFrame();

    /** Queues the claimed frame, {@code length} bytes from index 0, for transmission. */
    void commitFrame(int length);
}
