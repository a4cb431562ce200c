package io.rnic.cnc.command;

import org.agrona.MutableDirectBuffer;

/**
 * MR_REGISTERED: REG_MR's answer. Mirrored by {@code struct rnic_mr_registered} of {@code driver_protocol.h}
 * (docs/driver-protocol.md); little-endian, {@link #LENGTH} bytes.
 */
public final class MrRegisteredFlyweight extends CorrelatedMessageFlyweight
{
    /** int32: the MR */
    public static final int MR_HANDLE_OFFSET = 16;
    /** uint32: its L_Key */
    public static final int L_KEY_OFFSET = 20;
    /** uint32: its R_Key */
    public static final int R_KEY_OFFSET = 24;
    /** Bytes of the message: every answer of its type is exactly this long. */
    public static final int LENGTH = 32;

    public MrRegisteredFlyweight wrap(final MutableDirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    public int mrHandle()
    {
        return buffer.getInt(offset + MR_HANDLE_OFFSET);
    }

    public MrRegisteredFlyweight mrHandle(final int mrHandle)
    {
        buffer.putInt(offset + MR_HANDLE_OFFSET, mrHandle);
        return this;
    }

    public int lKey()
    {
        return buffer.getInt(offset + L_KEY_OFFSET);
    }

    public MrRegisteredFlyweight lKey(final int lKey)
    {
        buffer.putInt(offset + L_KEY_OFFSET, lKey);
        return this;
    }

    public int rKey()
    {
        return buffer.getInt(offset + R_KEY_OFFSET);
    }

    public MrRegisteredFlyweight rKey(final int rKey)
    {
        buffer.putInt(offset + R_KEY_OFFSET, rKey);
        return this;
    }
}
