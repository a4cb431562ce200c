package io.rnic.cnc.command;

import org.agrona.MutableDirectBuffer;

/**
 * SRQ_ATTRIBUTES: QUERY_SRQ's answer. Mirrored by {@code struct rnic_srq_attributes} of {@code driver_protocol.h}
 * (docs/driver-protocol.md); little-endian, {@link #LENGTH} bytes.
 */
public final class SrqAttributesFlyweight extends CorrelatedMessageFlyweight
{
    /** int32 */
    public static final int MAX_WR_OFFSET = 16;
    /** int32 */
    public static final int MAX_SGE_OFFSET = 20;
    /** int32: 0 once the limit event has fired */
    public static final int SRQ_LIMIT_OFFSET = 24;
    /** Bytes of the message: every answer of its type is exactly this long. */
    public static final int LENGTH = 32;

    public SrqAttributesFlyweight wrap(final MutableDirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    public int maxWr()
    {
        return buffer.getInt(offset + MAX_WR_OFFSET);
    }

    public SrqAttributesFlyweight maxWr(final int maxWr)
    {
        buffer.putInt(offset + MAX_WR_OFFSET, maxWr);
        return this;
    }

    public int maxSge()
    {
        return buffer.getInt(offset + MAX_SGE_OFFSET);
    }

    public SrqAttributesFlyweight maxSge(final int maxSge)
    {
        buffer.putInt(offset + MAX_SGE_OFFSET, maxSge);
        return this;
    }

    public int srqLimit()
    {
        return buffer.getInt(offset + SRQ_LIMIT_OFFSET);
    }

    public SrqAttributesFlyweight srqLimit(final int srqLimit)
    {
        buffer.putInt(offset + SRQ_LIMIT_OFFSET, srqLimit);
        return this;
    }
}
