package io.rnic.wire;

import org.agrona.DirectBuffer;

/**
 * IPv6 fixed header. RoCEv2 carries no extension headers: next header is UDP (CA17-16).
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-------+---------------+---------------------------------------+
 *  |Version| Traffic Class |              Flow Label               |
 *  +-------+---------------+-------+---------------+---------------+
 *  |         Payload Length        |  Next Header  |   Hop Limit   |
 *  +-------------------------------+---------------+---------------+
 *  |                   Source Address (16 bytes)                   |
 *  +---------------------------------------------------------------+
 *  |                Destination Address (16 bytes)                 |
 *  +---------------------------------------------------------------+
 * </pre>
 * Traffic class, flow label and hop limit are the variant fields masked by the ICRC.
 * Addresses are read as two big-endian longs (high, low) so that nothing is allocated.
 */
public final class Ipv6Flyweight extends HeaderFlyweight
{
    public static final int LENGTH = 40;
    public static final int NEXT_HEADER_UDP = 17;
    public static final int NEXT_HEADER_ICMPV6 = 58;

    public static final int VERSION_CLASS_FLOW_OFFSET = 0;
    public static final int PAYLOAD_LENGTH_OFFSET = 4;
    public static final int NEXT_HEADER_OFFSET = 6;
    public static final int HOP_LIMIT_OFFSET = 7;
    public static final int SOURCE_OFFSET = 8;
    public static final int DESTINATION_OFFSET = 24;

    public Ipv6Flyweight wrapAt(final DirectBuffer buffer, final int offset)
    {
        wrapHeader(buffer, offset, LENGTH);
        return this;
    }

    public int headerLength()
    {
        return LENGTH;
    }

    private int firstWord()
    {
        return getInt(VERSION_CLASS_FLOW_OFFSET, NETWORK);
    }

    public int version()
    {
        return firstWord() >>> 28;
    }

    public int trafficClass()
    {
        return (firstWord() >>> 20) & 0xFF;
    }

    public int dscp()
    {
        return trafficClass() >>> 2;
    }

    public int ecn()
    {
        return trafficClass() & 0x3;
    }

    public int flowLabel()
    {
        return firstWord() & 0xFFFFF;
    }

    public Ipv6Flyweight versionClassFlow(final int version, final int dscp, final int ecn, final int flowLabel)
    {
        final int trafficClass = ((dscp & 0x3F) << 2) | (ecn & 0x3);
        putInt(VERSION_CLASS_FLOW_OFFSET, (version << 28) | (trafficClass << 20) | (flowLabel & 0xFFFFF), NETWORK);
        return this;
    }

    public int payloadLength()
    {
        return u16(PAYLOAD_LENGTH_OFFSET);
    }

    public Ipv6Flyweight payloadLength(final int length)
    {
        putU16(PAYLOAD_LENGTH_OFFSET, length);
        return this;
    }

    public int nextHeader()
    {
        return u8(NEXT_HEADER_OFFSET);
    }

    public Ipv6Flyweight nextHeader(final int nextHeader)
    {
        putU8(NEXT_HEADER_OFFSET, nextHeader);
        return this;
    }

    public int hopLimit()
    {
        return u8(HOP_LIMIT_OFFSET);
    }

    public Ipv6Flyweight hopLimit(final int hopLimit)
    {
        putU8(HOP_LIMIT_OFFSET, hopLimit);
        return this;
    }

    public long sourceHigh()
    {
        return getLong(SOURCE_OFFSET, NETWORK);
    }

    public long sourceLow()
    {
        return getLong(SOURCE_OFFSET + 8, NETWORK);
    }

    public long destinationHigh()
    {
        return getLong(DESTINATION_OFFSET, NETWORK);
    }

    public long destinationLow()
    {
        return getLong(DESTINATION_OFFSET + 8, NETWORK);
    }

    public Ipv6Flyweight source(final long high, final long low)
    {
        putLong(SOURCE_OFFSET, high, NETWORK);
        putLong(SOURCE_OFFSET + 8, low, NETWORK);
        return this;
    }

    public Ipv6Flyweight destination(final long high, final long low)
    {
        putLong(DESTINATION_OFFSET, high, NETWORK);
        putLong(DESTINATION_OFFSET + 8, low, NETWORK);
        return this;
    }
}
