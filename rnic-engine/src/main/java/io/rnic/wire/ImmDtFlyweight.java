package io.rnic.wire;

import org.agrona.DirectBuffer;

/**
 * Immediate Data Extended Transport Header, 4 bytes, opaque to the transport: in *_WITH_IMMEDIATE packets.
 */
public final class ImmDtFlyweight extends HeaderFlyweight
{
    public static final int LENGTH = 4;
    public static final int IMMEDIATE_OFFSET = 0;

    public ImmDtFlyweight wrapAt(final DirectBuffer buffer, final int offset)
    {
        wrapHeader(buffer, offset, LENGTH);
        return this;
    }

    public int headerLength()
    {
        return LENGTH;
    }

    /** The 32 bits as they stand on the wire, read big-endian. */
    public int immediate()
    {
        return getInt(IMMEDIATE_OFFSET, NETWORK);
    }

    public ImmDtFlyweight immediate(final int value)
    {
        putInt(IMMEDIATE_OFFSET, value, NETWORK);
        return this;
    }
}
