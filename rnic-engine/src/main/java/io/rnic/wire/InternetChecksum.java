package io.rnic.wire;

import org.agrona.DirectBuffer;

import java.nio.ByteOrder;

/** The one's-complement Internet checksum (RFC 1071) and the UDP pseudo-header sums for IPv4 and IPv6. */
public final class InternetChecksum
{
    private InternetChecksum()
    {
    }

    /** Adds the 16-bit big-endian words of a byte range to {@code sum} (an odd last byte is padded with zero). */
    public static long add(final DirectBuffer buffer, final int offset, final int length, final long sum)
    {
        long s = sum;
        int i = 0;
        for (; i + 4 <= length; i += 4)
        {
            s += buffer.getInt(offset + i, ByteOrder.BIG_ENDIAN) & 0xFFFF_FFFFL;
        }
        for (; i + 2 <= length; i += 2)
        {
            s += buffer.getShort(offset + i, ByteOrder.BIG_ENDIAN) & 0xFFFF;
        }
        if (i < length)
        {
            s += (buffer.getByte(offset + i) & 0xFF) << 8;
        }
        return s;
    }

    /** Folds a sum to 16 bits and complements it. */
    public static int finish(final long sum)
    {
        long s = sum;
        while ((s >>> 16) != 0)
        {
            s = (s & 0xFFFF) + (s >>> 16);
        }
        return (int)(~s & 0xFFFF);
    }

    /**
     * UDP checksum of the datagram at {@code udpOffset} (checksum field taken as zero) with the pseudo-header of
     * the IP header at {@code ipOffset}. A computed 0 is sent as 0xFFFF (RFC 768).
     */
    public static int udp(final DirectBuffer buffer, final int ipOffset, final boolean ipv6, final int udpOffset,
        final int udpLength)
    {
        long sum;
        if (ipv6)
        {
            sum = add(buffer, ipOffset + Ipv6Flyweight.SOURCE_OFFSET, 32, 0);
            sum += udpLength;
            sum += Ipv6Flyweight.NEXT_HEADER_UDP;
        }
        else
        {
            sum = add(buffer, ipOffset + Ipv4Flyweight.SOURCE_OFFSET, 8, 0);
            sum += Ipv4Flyweight.PROTOCOL_UDP;
            sum += udpLength;
        }
        sum = add(buffer, udpOffset, UdpFlyweight.CHECKSUM_OFFSET, sum);
        sum = add(buffer, udpOffset + UdpFlyweight.LENGTH, udpLength - UdpFlyweight.LENGTH, sum);
        final int checksum = finish(sum);
        return checksum == 0 ? 0xFFFF : checksum;
    }
}
