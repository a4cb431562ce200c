package io.rnic.sim;

import io.rnic.wire.Ecn;
import io.rnic.wire.Ipv4Flyweight;
import org.agrona.MutableDirectBuffer;

/**
 * What a switch does to the IP header of a frame it marks: ECN set to CE (11) when the frame is ECN-capable
 * (ECT(0) or ECT(1)), the IPv4 header checksum recomputed (the ICRC masks the ECN bits, so it stays valid).
 * Frames that are not ECN-capable are left alone: a switch drops those rather than mark them. No allocation.
 */
public final class EcnMarking
{
    private static final int ETHERTYPE_OFFSET = 12;
    private static final int ETHERTYPE_VLAN = 0x8100;
    private static final int ETHERTYPE_IPV4 = 0x0800;
    private static final int ETHERTYPE_IPV6 = 0x86DD;

    private final Ipv4Flyweight ipv4 = new Ipv4Flyweight();

    /** The ECN bits of an IPv4 or IPv6 frame, or -1 for anything else. */
    public static int ecn(final MutableDirectBuffer frame, final int offset, final int length)
    {
        final int ip = ipOffset(frame, offset, length);
        if (ip < 0)
        {
            return -1;
        }
        if (isIpv6(frame, offset, ip))
        {
            return (frame.getByte(ip + 1) >>> 4) & 0x3; // traffic class = low nibble of byte 0, high of byte 1
        }
        return frame.getByte(ip + 1) & 0x3;
    }

    /** Marks the frame CE if it is ECN-capable; true if it was (a frame already CE counts as marked). */
    public boolean markCongestionExperienced(final MutableDirectBuffer frame, final int offset, final int length)
    {
        final int ip = ipOffset(frame, offset, length);
        if (ip < 0)
        {
            return false;
        }
        if (isIpv6(frame, offset, ip))
        {
            final int b1 = frame.getByte(ip + 1) & 0xFF;
            if (((b1 >>> 4) & 0x3) == Ecn.NOT_ECT)
            {
                return false;
            }
            frame.putByte(ip + 1, (byte)(b1 | (Ecn.CE << 4)));
            return true;
        }
        final int tos = frame.getByte(ip + 1) & 0xFF;
        if ((tos & 0x3) == Ecn.NOT_ECT)
        {
            return false;
        }
        frame.putByte(ip + 1, (byte)(tos | Ecn.CE));
        ipv4.wrapAt(frame, ip);
        ipv4.checksum(ipv4.computeChecksum());
        return true;
    }

    private static boolean isIpv6(final MutableDirectBuffer frame, final int offset, final int ip)
    {
        return (frame.getShort(ip - 2, java.nio.ByteOrder.BIG_ENDIAN) & 0xFFFF) == ETHERTYPE_IPV6;
    }

    private static int ipOffset(final MutableDirectBuffer frame, final int offset, final int length)
    {
        if (length < ETHERTYPE_OFFSET + 2 + 20)
        {
            return -1;
        }
        int typeOffset = offset + ETHERTYPE_OFFSET;
        int type = frame.getShort(typeOffset, java.nio.ByteOrder.BIG_ENDIAN) & 0xFFFF;
        if (type == ETHERTYPE_VLAN)
        {
            typeOffset += 4;
            type = frame.getShort(typeOffset, java.nio.ByteOrder.BIG_ENDIAN) & 0xFFFF;
        }
        return type == ETHERTYPE_IPV4 || type == ETHERTYPE_IPV6 ? typeOffset + 2 : -1;
    }
}
