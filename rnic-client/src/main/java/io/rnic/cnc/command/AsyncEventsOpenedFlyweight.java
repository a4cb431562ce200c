package io.rnic.cnc.command;

import org.agrona.MutableDirectBuffer;

/**
 * ASYNC_EVENTS_OPENED: OPEN_ASYNC_EVENTS's answer; the ring is formatted in the file. Mirrored by {@code struct
 * rnic_async_events_opened} of {@code driver_protocol.h} (docs/driver-protocol.md); little-endian, {@link #LENGTH}
 * bytes.
 */
public final class AsyncEventsOpenedFlyweight extends CorrelatedMessageFlyweight
{
    /** int32: events the ring holds */
    public static final int CAPACITY_OFFSET = 16;
    /** Bytes of the message: every answer of its type is exactly this long. */
    public static final int LENGTH = 24;

    public AsyncEventsOpenedFlyweight wrap(final MutableDirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    public int capacity()
    {
        return buffer.getInt(offset + CAPACITY_OFFSET);
    }

    public AsyncEventsOpenedFlyweight capacity(final int capacity)
    {
        buffer.putInt(offset + CAPACITY_OFFSET, capacity);
        return this;
    }
}
