package io.rnic.cnc.command;

import org.agrona.MutableDirectBuffer;

/**
 * CQ_CREATED: CREATE_CQ's answer; the CQ is formatted in the file. Mirrored by {@code struct rnic_cq_created} of
 * {@code driver_protocol.h} (docs/driver-protocol.md); little-endian, {@link #LENGTH} bytes.
 */
public final class CqCreatedFlyweight extends CorrelatedMessageFlyweight
{
    /** int32: the CQ */
    public static final int CQ_HANDLE_OFFSET = 16;
    /** int32: entries the CQ holds: a power of two, at least 2 and at least the entries asked */
    public static final int CAPACITY_OFFSET = 20;
    /** Bytes of the message: every answer of its type is exactly this long. */
    public static final int LENGTH = 24;

    public CqCreatedFlyweight wrap(final MutableDirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    public int cqHandle()
    {
        return buffer.getInt(offset + CQ_HANDLE_OFFSET);
    }

    public CqCreatedFlyweight cqHandle(final int cqHandle)
    {
        buffer.putInt(offset + CQ_HANDLE_OFFSET, cqHandle);
        return this;
    }

    public int capacity()
    {
        return buffer.getInt(offset + CAPACITY_OFFSET);
    }

    public CqCreatedFlyweight capacity(final int capacity)
    {
        buffer.putInt(offset + CAPACITY_OFFSET, capacity);
        return this;
    }
}
