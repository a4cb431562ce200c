package io.rnic.wire;

import org.agrona.DirectBuffer;

/**
 * The 16 reserved bytes that follow the BTH of a Congestion Notification Packet (opcode 0x81, annex A17.9.3,
 * figure 6). The CNP's BTH carries the QP to throttle, PSN 0, SE 0, M 0, BECN 1 and the P_Key of the marked
 * packet; these bytes are zero on send and ignored on receive.
 */
public final class CnpFlyweight extends HeaderFlyweight
{
    public static final int RESERVED_LENGTH = 16;

    public CnpFlyweight wrapAt(final DirectBuffer buffer, final int offset)
    {
        wrapHeader(buffer, offset, RESERVED_LENGTH);
        return this;
    }

    public int headerLength()
    {
        return RESERVED_LENGTH;
    }

    public boolean isReservedZero()
    {
        return getLong(0) == 0 && getLong(8) == 0;
    }

    public CnpFlyweight clearReserved()
    {
        putLong(0, 0L);
        putLong(8, 0L);
        return this;
    }
}
