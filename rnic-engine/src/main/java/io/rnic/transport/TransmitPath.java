package io.rnic.transport;

import io.rnic.wire.FrameSpec;
import io.rnic.wire.PacketBuilder;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Builds the engine's outgoing frames in one aligned off-heap buffer and hands them to the {@link PacketSink}.
 * The requester and responder put payload straight at {@link #payloadOffset} (copied from a memory region), then
 * call {@link #send}: one copy from application memory to the frame, none after. Engine thread only.
 */
final class TransmitPath
{
    static final int BUFFER_BYTES = 16 * 1024;

    private final PacketBuilder builder = new PacketBuilder();
    private final UnsafeBuffer buffer = new UnsafeBuffer(BufferUtil.allocateDirectAligned(BUFFER_BYTES, 64));
    private final TransportCounters counters;
    private PacketSink sink;

    TransmitPath(final PacketSink sink, final TransportCounters counters)
    {
        this.sink = sink;
        this.counters = counters;
    }

    void sink(final PacketSink sink)
    {
        this.sink = sink;
    }

    UnsafeBuffer buffer()
    {
        return buffer;
    }

    int payloadOffset(final FrameSpec spec)
    {
        return PacketBuilder.payloadOffset(0, spec);
    }

    /** Builds the frame around the payload already at {@link #payloadOffset} and sends it. */
    void send(final FrameSpec spec, final int payloadLength)
    {
        final int length = builder.buildAroundPayload(buffer, 0, spec, payloadLength);
        counters.increment(TransportCounter.PACKETS_SENT);
        counters.add(TransportCounter.BYTES_SENT, length);
        sink.send(buffer, 0, length);
    }
}
