package io.rnic.datapath.port;

import io.rnic.device.JvmFlags;
import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.MessageHandler;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RecordDescriptor;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

/**
 * A port joined to one peer port through shared memory: two single-producer single-consumer ring buffers (Agrona's
 * {@link OneToOneRingBuffer}), one per direction. The two ends may be driven by two engine threads, with no lock.
 * Used by tests and by the in-memory topology of the tools; frames are copied once into the ring and handed to the
 * receiver in place.
 */
public final class InMemoryPort implements PacketPort
{
    private static final int MESSAGE_TYPE = 1;

    private final String name;
    private final long mac;
    private final int mtu;
    private final OneToOneRingBuffer outbound;
    private final OneToOneRingBuffer inbound;
    private final MessageHandler receiveAdapter = this::onMessage;
    private FrameHandler handler;
    private final PortCounters counters = new PortCounters();

    private InMemoryPort(
        final String name, final long mac, final int mtu, final OneToOneRingBuffer outbound,
        final OneToOneRingBuffer inbound)
    {
        this.name = name;
        this.mac = mac;
        this.mtu = mtu;
        this.outbound = outbound;
        this.inbound = inbound;
    }

    /**
     * Two ports joined back to back.
     *
     * @param ringBytes capacity of each direction's ring, a power of two (frames beyond it are dropped, as by a
     *                  full NIC queue).
     */
    public static InMemoryPort[] pair(final long macA, final long macB, final int mtu, final int ringBytes)
    {
        JvmFlags.check(); // an embedder's first call: before the rings' Agrona buffers
        if (Integer.bitCount(ringBytes) != 1 || ringBytes < 4096)
        {
            throw new IllegalArgumentException("ring size " + ringBytes + " must be a power of two ≥ 4096");
        }
        final OneToOneRingBuffer aToB = ring(ringBytes);
        final OneToOneRingBuffer bToA = ring(ringBytes);
        return new InMemoryPort[]{
            new InMemoryPort("mem-a", macA, mtu, aToB, bToA),
            new InMemoryPort("mem-b", macB, mtu, bToA, aToB)};
    }

    private static OneToOneRingBuffer ring(final int bytes)
    {
        return new OneToOneRingBuffer(new UnsafeBuffer(
            BufferUtil.allocateDirectAligned(bytes + RingBufferDescriptor.TRAILER_LENGTH, 64)));
    }

    @Override
    public int receive(final FrameHandler handler, final int limit)
    {
        this.handler = handler;
        final int n = inbound.read(receiveAdapter, limit);
        if (n > 0)
        {
            counters.addFramesReceived(n);
        }
        return n;
    }

    private void onMessage(final int type, final MutableDirectBuffer buffer, final int index, final int length)
    {
        handler.onFrame(buffer, index, length);
    }

    @Override
    public boolean transmit(final DirectBuffer buffer, final int offset, final int length)
    {
        if (length > mtu + 18 || length <= 0 || !outbound.write(MESSAGE_TYPE, buffer, offset, length))
        {
            counters.addTransmitDrops(1);
            return false;
        }
        counters.addFramesTransmitted(1);
        return true;
    }

    /** Room in the ring for one more frame of the largest size. */
    @Override
    public boolean canTransmit()
    {
        return outbound.capacity() - outbound.size() >= mtu + 18 + 2 * RecordDescriptor.HEADER_LENGTH;
    }

    @Override
    public int flush()
    {
        return 0; // a write is visible to the peer at once
    }

    @Override
    public String name()
    {
        return name;
    }

    @Override
    public long macAddress()
    {
        return mac;
    }

    @Override
    public int mtu()
    {
        return mtu;
    }

    @Override
    public PortCounters counters()
    {
        return counters;
    }

    @Override
    public void close()
    {
    }
}
