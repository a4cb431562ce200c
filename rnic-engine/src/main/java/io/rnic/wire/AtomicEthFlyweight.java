package io.rnic.wire;

import org.agrona.DirectBuffer;

/**
 * Atomic Extended Transport Header, 28 bytes: in COMPARE SWAP and FETCH ADD.
 * <pre>
 *  +---------------------------------------------------------------+
 *  |               Virtual Address (64 bits, 8-byte aligned)       |
 *  +---------------------------------------------------------------+
 *  |                          R_Key (32 bits)                      |
 *  +---------------------------------------------------------------+
 *  |                  Swap (or Add) Data (64 bits)                 |
 *  +---------------------------------------------------------------+
 *  |                     Compare Data (64 bits)                    |
 *  +---------------------------------------------------------------+
 * </pre>
 */
public final class AtomicEthFlyweight extends HeaderFlyweight
{
    public static final int LENGTH = 28;
    public static final int VIRTUAL_ADDRESS_OFFSET = 0;
    public static final int RKEY_OFFSET = 8;
    public static final int SWAP_ADD_OFFSET = 12;
    public static final int COMPARE_OFFSET = 20;

    public AtomicEthFlyweight wrapAt(final DirectBuffer buffer, final int offset)
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

    public AtomicEthFlyweight virtualAddress(final long va)
    {
        putLong(VIRTUAL_ADDRESS_OFFSET, va, NETWORK);
        return this;
    }

    public long rKey()
    {
        return u32(RKEY_OFFSET);
    }

    public AtomicEthFlyweight rKey(final long rKey)
    {
        putInt(RKEY_OFFSET, (int)rKey, NETWORK);
        return this;
    }

    public long swapOrAdd()
    {
        return getLong(SWAP_ADD_OFFSET, NETWORK);
    }

    public AtomicEthFlyweight swapOrAdd(final long value)
    {
        putLong(SWAP_ADD_OFFSET, value, NETWORK);
        return this;
    }

    public long compare()
    {
        return getLong(COMPARE_OFFSET, NETWORK);
    }

    public AtomicEthFlyweight compare(final long value)
    {
        putLong(COMPARE_OFFSET, value, NETWORK);
        return this;
    }
}
