package io.rnic.cnc.command;

import org.agrona.MutableDirectBuffer;

/**
 * MODIFY_SRQ: arms the SRQ's limit (ibv_modify_srq). Mirrored by {@code struct rnic_modify_srq} of {@code
 * driver_protocol.h} (docs/driver-protocol.md); little-endian, {@link #LENGTH} bytes.
 */
public final class ModifySrqFlyweight extends CorrelatedMessageFlyweight
{
    /** int32: the SRQ */
    public static final int SRQ_HANDLE_OFFSET = 16;
    /** int32: RNIC_SRQ_MASK_* (enum ibv_srq_attr_mask) */
    public static final int ATTR_MASK_OFFSET = 20;
    /** int32: the new limit */
    public static final int SRQ_LIMIT_OFFSET = 24;
    /** Bytes of the message: every command of its type is exactly this long. */
    public static final int LENGTH = 32;

    public ModifySrqFlyweight wrap(final MutableDirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    public int srqHandle()
    {
        return buffer.getInt(offset + SRQ_HANDLE_OFFSET);
    }

    public ModifySrqFlyweight srqHandle(final int srqHandle)
    {
        buffer.putInt(offset + SRQ_HANDLE_OFFSET, srqHandle);
        return this;
    }

    public int attrMask()
    {
        return buffer.getInt(offset + ATTR_MASK_OFFSET);
    }

    public ModifySrqFlyweight attrMask(final int attrMask)
    {
        buffer.putInt(offset + ATTR_MASK_OFFSET, attrMask);
        return this;
    }

    public int srqLimit()
    {
        return buffer.getInt(offset + SRQ_LIMIT_OFFSET);
    }

    public ModifySrqFlyweight srqLimit(final int srqLimit)
    {
        buffer.putInt(offset + SRQ_LIMIT_OFFSET, srqLimit);
        return this;
    }
}
