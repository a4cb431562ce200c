package io.rnic.cnc.command;

import org.agrona.MutableDirectBuffer;

/**
 * MW_ALLOCATED: ALLOC_MW's answer. Mirrored by {@code struct rnic_mw_allocated} of {@code driver_protocol.h}
 * (docs/driver-protocol.md); little-endian, {@link #LENGTH} bytes.
 */
public final class MwAllocatedFlyweight extends CorrelatedMessageFlyweight
{
    /** int32: the MW */
    public static final int MW_HANDLE_OFFSET = 16;
    /** uint32: its R_Key */
    public static final int R_KEY_OFFSET = 20;
    /** Bytes of the message: every answer of its type is exactly this long. */
    public static final int LENGTH = 24;

    public MwAllocatedFlyweight wrap(final MutableDirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    public int mwHandle()
    {
        return buffer.getInt(offset + MW_HANDLE_OFFSET);
    }

    public MwAllocatedFlyweight mwHandle(final int mwHandle)
    {
        buffer.putInt(offset + MW_HANDLE_OFFSET, mwHandle);
        return this;
    }

    public int rKey()
    {
        return buffer.getInt(offset + R_KEY_OFFSET);
    }

    public MwAllocatedFlyweight rKey(final int rKey)
    {
        buffer.putInt(offset + R_KEY_OFFSET, rKey);
        return this;
    }
}
