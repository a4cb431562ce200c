package io.rnic.transport;

/**
 * A sink that sends a frame's payload from where it lies in registered memory instead of a copy (a DPDK port: an
 * external mbuf over the memory region for each piece, chained after the headers' mbuf). The engine builds the
 * headers in the claimed frame ({@link #claimFrame}), attaches the payload's pieces, writes the pad and the ICRC
 * right after the headers, and commits; the sink sends the pad and the ICRC after the payload.
 * <p>
 * Because the port reads the memory after the engine has moved on (a NIC at its DMA, long after the burst), the
 * sink accounts for its attachments: a deregistration takes a {@link #payloadFence} on the engine thread and waits
 * until {@link #payloadReleased} says the port no longer holds anything attached before it, so that memory the
 * application frees is never read again. Engine thread only.
 */
public interface PayloadAttachingSink extends FrameBufferSink
{
    /** Whether the next frame may carry attached payload (else the engine copies, as for any sink). */
    boolean attachesPayload();

    /**
     * Appends {@code length} bytes of native memory at {@code address} to the claimed frame's payload.
     *
     * @return false when the sink cannot now (no segment left): nothing was appended; {@link #detachPayload} and copy.
     */
    boolean attachPayload(long address, int length);

    /** Gives back what was attached to the claimed frame, which stays claimed (for a copy). */
    void detachPayload();

    /**
     * Queues the claimed frame: its first {@code headerBytes} from index 0, then the attached payload, then the
     * {@code trailerBytes} that follow the headers in the claimed buffer (the pad and the ICRC).
     */
    void commitAttached(int headerBytes, int trailerBytes);

    /** A mark after every attachment made so far. */
    long payloadFence();

    /**
     * Whether the port has released everything attached before {@code fence} (may free what the port holds that it
     * has finished sending, on the way).
     */
    boolean payloadReleased(long fence);
}
