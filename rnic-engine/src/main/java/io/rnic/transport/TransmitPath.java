package io.rnic.transport;

import io.rnic.wire.FrameSpec;
import io.rnic.wire.PacketBuilder;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Builds the engine's outgoing frames and hands them to the {@link PacketSink}. The requester and responder call
 * {@link #buffer} once per frame, put payload straight at {@link #payloadOffset} (copied from a memory region), then
 * call {@link #send}. When the sink lends its memory ({@link FrameBufferSink}: a DPDK mbuf) the frame is built
 * there and no copy follows; otherwise it is built in one aligned off-heap buffer and the sink copies it. Engine
 * thread only.
 */
final class TransmitPath
{
    static final int BUFFER_BYTES = 16 * 1024;

    private final PacketBuilder builder = new PacketBuilder();
    private final UnsafeBuffer buffer = new UnsafeBuffer(BufferUtil.allocateDirectAligned(BUFFER_BYTES, 64));
    private final TransportCounters counters;
    private PacketSink sink;
    private FrameBufferSink lender;
    private UnsafeBuffer claimed;
    private int lastFrameBytes;

    TransmitPath(final PacketSink sink, final TransportCounters counters)
    {
        this.counters = counters;
        sink(sink);
    }

    void sink(final PacketSink sink)
    {
        this.sink = sink;
        this.lender = sink instanceof FrameBufferSink frameBufferSink ? frameBufferSink : null;
        this.claimed = null;
    }

    /** Where the next frame is built: the sink's memory when it lends some, else the path's own buffer. */
    UnsafeBuffer buffer()
    {
        if (claimed == null && lender != null)
        {
            claimed = lender.claimFrame();
        }
        return claimed != null ? claimed : buffer;
    }

    int payloadOffset(final FrameSpec spec)
    {
        return PacketBuilder.payloadOffset(0, spec);
    }

    /** Builds the frame around the payload already at {@link #payloadOffset} and sends it. */
    void send(final FrameSpec spec, final int payloadLength)
    {
        if (payloadLength == 0)
        {
            buffer(); // a header-only frame (an ACK) needs no earlier call
        }
        final UnsafeBuffer frame = claimed;
        if (frame != null)
        {
            claimed = null;
            final int length = builder.buildAroundPayload(frame, 0, spec, payloadLength);
            count(length);
            lender.commitFrame(length);
        }
        else
        {
            final int length = builder.buildAroundPayload(buffer, 0, spec, payloadLength);
            count(length);
            sink.send(buffer, 0, length);
        }
    }

    /** Whether the sink has room for a frame now (a port's transmit queue may be full: then wait, do not drop). */
    boolean hasRoom()
    {
        return claimed != null || sink.hasRoom();
    }

    /** Times the sink pushed frames to the wire ({@link PacketSink#pushes}). */
    long pushes()
    {
        return sink.pushes();
    }

    /** Length of the last frame sent: what the congestion control's shaper charges. */
    int lastFrameBytes()
    {
        return lastFrameBytes;
    }

    private void count(final int length)
    {
        lastFrameBytes = length;
        counters.increment(TransportCounter.PACKETS_SENT);
        counters.add(TransportCounter.BYTES_SENT, length);
    }
}
