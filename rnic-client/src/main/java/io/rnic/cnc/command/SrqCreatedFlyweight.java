package io.rnic.cnc.command;

import org.agrona.MutableDirectBuffer;

/**
 * SRQ_CREATED: CREATE_SRQ's answer; the ring is formatted in the file. Mirrored by {@code struct rnic_srq_created}
 * of {@code driver_protocol.h} (docs/driver-protocol.md); little-endian, {@link #LENGTH} bytes.
 */
public final class SrqCreatedFlyweight extends CorrelatedMessageFlyweight
{
    /** int32: the SRQ */
    public static final int SRQ_HANDLE_OFFSET = 16;
    /** int32: max WR as the ring holds it (a power of two) */
    public static final int MAX_WR_OFFSET = 20;
    /** Bytes of the message: every answer of its type is exactly this long. */
    public static final int LENGTH = 24;

    public SrqCreatedFlyweight wrap(final MutableDirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    public int srqHandle()
    {
        return buffer.getInt(offset + SRQ_HANDLE_OFFSET);
    }

    public SrqCreatedFlyweight srqHandle(final int srqHandle)
    {
        buffer.putInt(offset + SRQ_HANDLE_OFFSET, srqHandle);
        return this;
    }

    public int maxWr()
    {
        return buffer.getInt(offset + MAX_WR_OFFSET);
    }

    public SrqCreatedFlyweight maxWr(final int maxWr)
    {
        buffer.putInt(offset + MAX_WR_OFFSET, maxWr);
        return this;
    }
}
