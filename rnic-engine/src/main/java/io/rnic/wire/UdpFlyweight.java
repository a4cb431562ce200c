package io.rnic.wire;

import org.agrona.DirectBuffer;

/**
 * UDP header. RoCEv2: destination port 4791 (CA17-20), length from the UDP header up to and including the
 * ICRC (CA17-21), checksum "should be 0" (masked by the ICRC; receivers accept 0 and non-zero).
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-------------------------------+-------------------------------+
 *  |          Source Port          |       Destination Port        |
 *  +-------------------------------+-------------------------------+
 *  |             Length            |            Checksum           |
 *  +-------------------------------+-------------------------------+
 * </pre>
 */
public final class UdpFlyweight extends HeaderFlyweight
{
    public static final int LENGTH = 8;
    public static final int ROCEV2_PORT = 4791;

    public static final int SOURCE_PORT_OFFSET = 0;
    public static final int DESTINATION_PORT_OFFSET = 2;
    public static final int LENGTH_OFFSET = 4;
    public static final int CHECKSUM_OFFSET = 6;

    public UdpFlyweight wrapAt(final DirectBuffer buffer, final int offset)
    {
        wrapHeader(buffer, offset, LENGTH);
        return this;
    }

    public int headerLength()
    {
        return LENGTH;
    }

    public int sourcePort()
    {
        return u16(SOURCE_PORT_OFFSET);
    }

    public UdpFlyweight sourcePort(final int port)
    {
        putU16(SOURCE_PORT_OFFSET, port);
        return this;
    }

    public int destinationPort()
    {
        return u16(DESTINATION_PORT_OFFSET);
    }

    public UdpFlyweight destinationPort(final int port)
    {
        putU16(DESTINATION_PORT_OFFSET, port);
        return this;
    }

    public int length()
    {
        return u16(LENGTH_OFFSET);
    }

    public UdpFlyweight length(final int length)
    {
        putU16(LENGTH_OFFSET, length);
        return this;
    }

    public int checksum()
    {
        return u16(CHECKSUM_OFFSET);
    }

    public UdpFlyweight checksum(final int checksum)
    {
        putU16(CHECKSUM_OFFSET, checksum);
        return this;
    }
}
