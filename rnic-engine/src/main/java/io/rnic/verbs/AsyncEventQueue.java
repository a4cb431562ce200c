package io.rnic.verbs;

import org.agrona.BitUtil;
import org.agrona.BufferUtil;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.MessageHandler;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A device's asynchronous events ({@code ibv_get_async_event}, without blocking): the engine threads produce, the
 * application polls. The events go through an Agrona many-to-one ring buffer of fixed-size records, so that an
 * engine thread neither allocates nor locks to raise one; the SRQ an event names is looked up when the application
 * polls (SRQs register here when they are created). When the application does not poll and the ring fills, newer
 * events are dropped and counted ({@link #droppedEvents()}), as a kernel's event file would not block the device.
 */
public final class AsyncEventQueue
{
    /** Room for this many events before newer ones are dropped. */
    public static final int CAPACITY_BYTES = 64 * 1024;

    private static final int MSG_TYPE_EVENT = 1;
    private static final int EVENT_TYPE_OFFSET = 0;
    private static final int QP_NUM_OFFSET = 4;
    private static final int SRQ_HANDLE_OFFSET = 8;
    private static final int RECORD_LENGTH = 12;

    private final ManyToOneRingBuffer ring = new ManyToOneRingBuffer(
        new UnsafeBuffer(BufferUtil.allocateDirectAligned(
            CAPACITY_BYTES + RingBufferDescriptor.TRAILER_LENGTH, BitUtil.CACHE_LINE_LENGTH)));
    private final ConcurrentHashMap<Integer, SharedReceiveQueue> srqs = new ConcurrentHashMap<>();
    private final AtomicLong dropped = new AtomicLong();
    private AsyncEvent target;
    private final MessageHandler onRecord = (msgTypeId, buffer, index, length) ->
    {
        target.eventType = buffer.getInt(index + EVENT_TYPE_OFFSET);
        target.qpNum = buffer.getInt(index + QP_NUM_OFFSET);
        final int srqHandle = buffer.getInt(index + SRQ_HANDLE_OFFSET);
        target.srq = srqHandle == 0 ? null : srqs.get(srqHandle);
    };

    /** Raises an event about a QP. Engine thread (any producer); allocates nothing, takes no lock. */
    public void qpEvent(final int eventType, final int qpNum)
    {
        offer(eventType, qpNum, 0);
    }

    /** Raises an event about an SRQ. Engine thread (any producer); allocates nothing, takes no lock. */
    public void srqEvent(final int eventType, final SharedReceiveQueue srq)
    {
        offer(eventType, 0, srq.handle());
    }

    private void offer(final int eventType, final int qpNum, final int srqHandle)
    {
        final int index = ring.tryClaim(MSG_TYPE_EVENT, RECORD_LENGTH);
        if (index < 0)
        {
            dropped.incrementAndGet();
            return;
        }
        final AtomicBuffer buffer = ring.buffer();
        buffer.putInt(index + EVENT_TYPE_OFFSET, eventType);
        buffer.putInt(index + QP_NUM_OFFSET, qpNum);
        buffer.putInt(index + SRQ_HANDLE_OFFSET, srqHandle);
        ring.commit(index);
    }

    /**
     * Takes the oldest event into {@code event}: true if there was one. One application thread at a time (it is
     * the queue's single consumer); the caller acknowledges nothing ({@code ibv_ack_async_event} has no work here).
     */
    public synchronized boolean poll(final AsyncEvent event)
    {
        target = event;
        try
        {
            return ring.read(onRecord, 1) == 1;
        }
        finally
        {
            target = null;
        }
    }

    /** Events lost because nobody polled and the ring was full. */
    public long droppedEvents()
    {
        return dropped.get();
    }

    void register(final SharedReceiveQueue srq)
    {
        srqs.put(srq.handle(), srq);
    }

    void unregister(final SharedReceiveQueue srq)
    {
        srqs.remove(srq.handle());
    }
}
