package io.rnic.wire;

import org.agrona.DirectBuffer;

/**
 * Atomic Acknowledge Extended Transport Header, 8 bytes: the original remote data, in ATOMIC ACKNOWLEDGE.
 */
public final class AtomicAckEthFlyweight extends HeaderFlyweight
{
    public static final int LENGTH = 8;
    public static final int ORIGINAL_DATA_OFFSET = 0;

    public AtomicAckEthFlyweight wrapAt(final DirectBuffer buffer, final int offset)
    {
        wrapHeader(buffer, offset, LENGTH);
        return this;
    }

    public int headerLength()
    {
        return LENGTH;
    }

    public long originalRemoteData()
    {
        return getLong(ORIGINAL_DATA_OFFSET, NETWORK);
    }

    public AtomicAckEthFlyweight originalRemoteData(final long value)
    {
        putLong(ORIGINAL_DATA_OFFSET, value, NETWORK);
        return this;
    }
}
