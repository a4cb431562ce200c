package io.rnic.transport;

import io.rnic.verbs.MemoryRegion;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.ScatterGatherList;
import io.rnic.wire.FrameSpec;
import io.rnic.wire.PacketBuilder;
import io.rnic.wire.PayloadPieces;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Builds the engine's outgoing frames and hands them to the {@link PacketSink}. The requester and responder call
 * {@link #buffer} once per frame, put payload straight at {@link #payloadOffset} (copied from a memory region), then
 * call {@link #send}. When the sink lends its memory ({@link FrameBufferSink}: a DPDK mbuf) the frame is built
 * there and no copy follows; otherwise it is built in one aligned off-heap buffer and the sink copies it.
 * <p>
 * Payload from registered memory ({@link #sendFrom}, {@link #sendFromRegion}) is not copied at all when the sink
 * can send it from where it lies ({@link PayloadAttachingSink}) and it is long enough for that to pay
 * ({@link #ATTACH_MIN_BYTES}): the frame then holds the headers, the sink chains the payload after them. Engine
 * thread only.
 */
final class TransmitPath
{
    static final int BUFFER_BYTES = 16 * 1024;
    /**
     * The shortest payload sent from where it lies rather than copied: below it, copying the bytes into the frame
     * costs less than the segments that carry them (an external mbuf per piece and one more for the pad and ICRC,
     * the attach downcall, the PMD walking and freeing the chain, the free callback counting the release).
     * {@code DpdkZeroCopyBenchmark} (net_null, the payload in cache; 2-vCPU EPYC shared with other builds, 2026-11-27):
     * copy 25 / 31 / 37 / 47 / 56 / 102 ns a frame at 64 / 256 / 512 / 1024 / 1536 / 4096 bytes, attach 64-68 ns
     * whatever the size: they cross at about 2 KiB. A payload out of the cache makes the copy dearer (and the
     * crossing lower); measure end to end before lowering this.
     */
    static final int ATTACH_MIN_BYTES = 2048;

    private final PacketBuilder builder = new PacketBuilder();
    private final UnsafeBuffer buffer = new UnsafeBuffer(BufferUtil.allocateDirectAligned(BUFFER_BYTES, 64));
    private final TransportCounters counters;
    private PacketSink sink;
    private FrameBufferSink lender;
    private PayloadAttachingSink attacher;
    private final PayloadPieces pieces = new PayloadPieces();
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
        this.attacher = sink instanceof PayloadAttachingSink attaching ? attaching : null;
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

    /**
     * Sends a frame whose payload is {@code payload} bytes of the list's memory from {@code offset}: from where it
     * lies when the sink can, else copied into the frame.
     *
     * @return false on a protection error (nothing sent).
     */
    boolean sendFrom(
        final FrameSpec spec,
        final LocalMemory memory,
        final ScatterGatherList sgl,
        final ProtectionDomain pd,
        final long offset,
        final int payload)
    {
        if (attaches(spec, payload))
        {
            if (!memory.locate(sgl, pd, offset, payload, pieces))
            {
                return false;
            }
            if (sendAttached(spec))
            {
                return true;
            }
        }
        if (!memory.gather(sgl, pd, offset, buffer(), payloadOffset(spec), payload))
        {
            return false;
        }
        send(spec, payload);
        return true;
    }

    /** Sends a frame whose payload is {@code payload} bytes from {@code index} of {@code region} (checked). */
    void sendFromRegion(final FrameSpec spec, final MemoryRegion region, final int index, final int payload)
    {
        if (attaches(spec, payload))
        {
            pieces.clear();
            pieces.add(region.buffer().addressOffset() + index, payload);
            if (sendAttached(spec))
            {
                return;
            }
        }
        buffer().putBytes(payloadOffset(spec), region.buffer(), index, payload);
        send(spec, payload);
    }

    private boolean attaches(final FrameSpec spec, final int payload)
    {
        return attacher != null && payload >= ATTACH_MIN_BYTES && PacketBuilder.buildsAroundPayloadElsewhere(spec,
            payload) && attacher.attachesPayload();
    }

    /** The headers into a claimed frame, {@link #pieces} attached after them; false (nothing sent) if it cannot. */
    private boolean sendAttached(final FrameSpec spec)
    {
        buffer();
        final UnsafeBuffer frame = claimed;
        if (frame == null)
        {
            return false;
        }
        for (int i = 0; i < pieces.count(); i++)
        {
            if (!attacher.attachPayload(pieces.address(i), pieces.length(i)))
            {
                attacher.detachPayload();
                return false;
            }
        }
        final int headerBytes = PacketBuilder.headersLength(spec);
        final int written = builder.buildAroundPayloadElsewhere(frame, 0, spec, pieces);
        claimed = null;
        count(written + pieces.totalLength());
        attacher.commitAttached(headerBytes, written - headerBytes);
        return true;
    }

    /** A mark after every payload attached so far ({@link PayloadAttachingSink#payloadFence}). */
    long payloadFence()
    {
        return attacher != null ? attacher.payloadFence() : 0;
    }

    /** Whether the sink holds nothing attached before {@code fence}: the memory may then be freed. */
    boolean payloadReleased(final long fence)
    {
        return attacher == null || attacher.payloadReleased(fence);
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
