package io.rnic.wire;

import org.agrona.DirectBuffer;

/**
 * Where the parts of one validated RoCEv2 frame lie in its buffer: absolute offsets filled by
 * {@link InboundValidator}, reused for every packet. Extension headers are found through the {@link Opcode}
 * table, never by a constant offset: {@code headerOffset(Opcode.RETH)}.
 */
public final class RocePacket
{
    DirectBuffer buffer;
    int frameOffset;
    int frameLength;
    boolean hasVlan;
    int vlanTci;
    int ipOffset;
    int ipVersion;
    int ipTos;
    int udpOffset;
    int bthOffset;
    int opcode;
    int payloadOffset;
    int payloadLength;
    int padCount;
    int icrcOffset;

    void reset(final DirectBuffer buffer, final int frameOffset, final int frameLength)
    {
        this.buffer = buffer;
        this.frameOffset = frameOffset;
        this.frameLength = frameLength;
        hasVlan = false;
        vlanTci = 0;
        ipOffset = -1;
        ipVersion = 0;
        ipTos = 0;
        udpOffset = -1;
        bthOffset = -1;
        opcode = -1;
        payloadOffset = -1;
        payloadLength = 0;
        padCount = 0;
        icrcOffset = -1;
    }

    public DirectBuffer buffer()
    {
        return buffer;
    }

    public int frameOffset()
    {
        return frameOffset;
    }

    public int frameLength()
    {
        return frameLength;
    }

    public boolean hasVlan()
    {
        return hasVlan;
    }

    public int vlanTci()
    {
        return vlanTci;
    }

    public int ipOffset()
    {
        return ipOffset;
    }

    /** 4 or 6; 0 when the frame was dropped before the IP header was read. */
    public int ipVersion()
    {
        return ipVersion;
    }

    public boolean isIpv6()
    {
        return ipVersion == 6;
    }

    /** DSCP (6 bits) and ECN (2 bits) as one byte, from the IPv4 TOS or the IPv6 traffic class. */
    public int ipTrafficClass()
    {
        return ipTos;
    }

    public int ecn()
    {
        return ipTos & 0x3;
    }

    public int dscp()
    {
        return ipTos >>> 2;
    }

    public int udpOffset()
    {
        return udpOffset;
    }

    public int bthOffset()
    {
        return bthOffset;
    }

    public int opcode()
    {
        return opcode;
    }

    /** BTH PSN. */
    public int psn()
    {
        return BthFlyweight.psn(buffer, bthOffset);
    }

    /** BTH destination QP. */
    public int destinationQp()
    {
        return BthFlyweight.destinationQp(buffer, bthOffset);
    }

    public boolean ackRequest()
    {
        return (buffer.getByte(bthOffset + BthFlyweight.ACK_REQ_OFFSET) & 0x80) != 0;
    }

    public boolean solicitedEvent()
    {
        return (buffer.getByte(bthOffset + BthFlyweight.FLAGS_OFFSET) & 0x80) != 0;
    }

    public int partitionKey()
    {
        return buffer.getShort(bthOffset + BthFlyweight.PKEY_OFFSET, java.nio.ByteOrder.BIG_ENDIAN) & 0xFFFF;
    }

    /** Absolute offset of an extension header of this packet's opcode, or -1 when the opcode has none. */
    public int headerOffset(final int header)
    {
        final int relative = Opcode.offset(opcode, header);
        return relative < 0 ? -1 : bthOffset + relative;
    }

    public int payloadOffset()
    {
        return payloadOffset;
    }

    public int payloadLength()
    {
        return payloadLength;
    }

    public int padCount()
    {
        return padCount;
    }

    public int icrcOffset()
    {
        return icrcOffset;
    }

    /** End of the IP datagram (after the ICRC); Ethernet padding, if any, follows. */
    public int datagramEnd()
    {
        return icrcOffset + 4;
    }
}
