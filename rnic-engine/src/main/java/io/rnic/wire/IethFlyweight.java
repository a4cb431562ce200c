package io.rnic.wire;

import org.agrona.DirectBuffer;

/**
 * Invalidate Extended Transport Header, 4 bytes: the R_Key to invalidate, in SEND_*_WITH_INVALIDATE.
 */
public final class IethFlyweight extends HeaderFlyweight
{
    public static final int LENGTH = 4;
    public static final int RKEY_OFFSET = 0;

    public IethFlyweight wrapAt(final DirectBuffer buffer, final int offset)
    {
        wrapHeader(buffer, offset, LENGTH);
        return this;
    }

    public int headerLength()
    {
        return LENGTH;
    }

    public long rKey()
    {
        return u32(RKEY_OFFSET);
    }

    public IethFlyweight rKey(final long rKey)
    {
        putInt(RKEY_OFFSET, (int)rKey, NETWORK);
        return this;
    }
}
