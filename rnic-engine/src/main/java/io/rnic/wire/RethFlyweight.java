package io.rnic.wire;

import org.agrona.DirectBuffer;

/**
 * RDMA Extended Transport Header, 16 bytes: in RDMA WRITE FIRST/ONLY and RDMA READ REQUEST.
 * <pre>
 *  +---------------------------------------------------------------+
 *  |                     Virtual Address (64 bits)                 |
 *  +---------------------------------------------------------------+
 *  |                          R_Key (32 bits)                      |
 *  +---------------------------------------------------------------+
 *  |                       DMA Length (32 bits)                    |
 *  +---------------------------------------------------------------+
 * </pre>
 */
public final class RethFlyweight extends HeaderFlyweight
{
    public static final int LENGTH = 16;
    public static final int VIRTUAL_ADDRESS_OFFSET = 0;
    public static final int RKEY_OFFSET = 8;
    public static final int DMA_LENGTH_OFFSET = 12;

    public RethFlyweight wrapAt(final DirectBuffer buffer, final int offset)
    {
        wrapHeader(buffer, offset, LENGTH);
        return this;
    }

    public int headerLength()
    {
        return LENGTH;
    }

    public long virtualAddress()
    {
        return getLong(VIRTUAL_ADDRESS_OFFSET, NETWORK);
    }

    public RethFlyweight virtualAddress(final long va)
    {
        putLong(VIRTUAL_ADDRESS_OFFSET, va, NETWORK);
        return this;
    }

    /** R_Key as an unsigned 32-bit value held in a long. */
    public long rKey()
    {
        return u32(RKEY_OFFSET);
    }

    public RethFlyweight rKey(final long rKey)
    {
        putInt(RKEY_OFFSET, (int)rKey, NETWORK);
        return this;
    }

    /** DMA length in bytes, unsigned 32-bit (up to 2^31 for RDMA). */
    public long dmaLength()
    {
        return u32(DMA_LENGTH_OFFSET);
    }

    public RethFlyweight dmaLength(final long length)
    {
        putInt(DMA_LENGTH_OFFSET, (int)length, NETWORK);
        return this;
    }
}
