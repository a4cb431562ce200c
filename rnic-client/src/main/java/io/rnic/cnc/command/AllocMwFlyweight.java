package io.rnic.cnc.command;

import org.agrona.MutableDirectBuffer;

/**
 * ALLOC_MW: a memory window. Mirrored by {@code struct rnic_alloc_mw} of {@code driver_protocol.h} (docs/driver-
 * protocol.md); little-endian, {@link #LENGTH} bytes.
 */
public final class AllocMwFlyweight extends CorrelatedMessageFlyweight
{
    /** int32: the PD */
    public static final int PD_HANDLE_OFFSET = 16;
    /** int32: IBV_MW_TYPE_1 (1) or IBV_MW_TYPE_2 (2) */
    public static final int MW_TYPE_OFFSET = 20;
    /** Bytes of the message: every command of its type is exactly this long. */
    public static final int LENGTH = 24;

    public AllocMwFlyweight wrap(final MutableDirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    public int pdHandle()
    {
        return buffer.getInt(offset + PD_HANDLE_OFFSET);
    }

    public AllocMwFlyweight pdHandle(final int pdHandle)
    {
        buffer.putInt(offset + PD_HANDLE_OFFSET, pdHandle);
        return this;
    }

    public int mwType()
    {
        return buffer.getInt(offset + MW_TYPE_OFFSET);
    }

    public AllocMwFlyweight mwType(final int mwType)
    {
        buffer.putInt(offset + MW_TYPE_OFFSET, mwType);
        return this;
    }
}
