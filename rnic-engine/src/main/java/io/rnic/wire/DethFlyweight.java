package io.rnic.wire;

import org.agrona.DirectBuffer;

/**
 * Datagram Extended Transport Header, 8 bytes: in every UD packet.
 * <pre>
 *  +---------------------------------------------------------------+
 *  |                         Q_Key (32 bits)                       |
 *  +---------------+-----------------------------------------------+
 *  |   reserved    |                Source QP (24 bits)            |
 *  +---------------+-----------------------------------------------+
 * </pre>
 * A Q_Key with bit 31 set is a controlled Q_Key.
 */
public final class DethFlyweight extends HeaderFlyweight
{
    public static final int LENGTH = 8;
    public static final int QKEY_OFFSET = 0;
    public static final int SOURCE_QP_OFFSET = 4;

    public DethFlyweight wrapAt(final DirectBuffer buffer, final int offset)
    {
        wrapHeader(buffer, offset, LENGTH);
        return this;
    }

    public int headerLength()
    {
        return LENGTH;
    }

    public long qKey()
    {
        return u32(QKEY_OFFSET);
    }

    public DethFlyweight qKey(final long qKey)
    {
        putInt(QKEY_OFFSET, (int)qKey, NETWORK);
        return this;
    }

    public int sourceQp()
    {
        return getInt(SOURCE_QP_OFFSET, NETWORK) & BthFlyweight.QPN_MASK;
    }

    /** Writes the reserved byte as zero and the 24-bit source QPN. */
    public DethFlyweight sourceQp(final int qpn)
    {
        putInt(SOURCE_QP_OFFSET, qpn & BthFlyweight.QPN_MASK, NETWORK);
        return this;
    }
}
