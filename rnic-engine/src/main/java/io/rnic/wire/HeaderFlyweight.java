package io.rnic.wire;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteOrder;

/**
 * Base of the wire-header flyweights, as Aeron's {@code HeaderFlyweight}: an {@link UnsafeBuffer} re-wrapped
 * over one header of a frame, with field offsets relative to the header's start. Built once, re-wrapped per
 * packet, so reading a header allocates nothing. All multi-byte fields are big-endian (network order).
 * The parser checks that a header lies inside the frame before any flyweight is wrapped over it.
 */
public abstract class HeaderFlyweight extends UnsafeBuffer
{
    protected static final ByteOrder NETWORK = ByteOrder.BIG_ENDIAN;

    protected HeaderFlyweight()
    {
        super(0L, 0);
    }

    /** Number of bytes of this header on the wire (for Ethernet: with or without the 802.1Q tag). */
    public abstract int headerLength();

    protected final void wrapHeader(final DirectBuffer buffer, final int offset, final int length)
    {
        wrap(buffer, offset, length);
    }

    protected final int u8(final int index)
    {
        return getByte(index) & 0xFF;
    }

    protected final int u16(final int index)
    {
        return getShort(index, NETWORK) & 0xFFFF;
    }

    protected final int u24(final int index)
    {
        return (u8(index) << 16) | u16(index + 1);
    }

    protected final long u32(final int index)
    {
        return getInt(index, NETWORK) & 0xFFFF_FFFFL;
    }

    protected final void putU8(final int index, final int value)
    {
        putByte(index, (byte)value);
    }

    protected final void putU16(final int index, final int value)
    {
        putShort(index, (short)value, NETWORK);
    }

    protected final void putU24(final int index, final int value)
    {
        putByte(index, (byte)(value >>> 16));
        putShort(index + 1, (short)value, NETWORK);
    }
}
