package io.rnic.wire;

import org.agrona.DirectBuffer;

/**
 * Ethernet II header, with or without one IEEE 802.1Q tag. The FCS is the NIC's and never in our buffers.
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                    Destination MAC (6 bytes)                  |
 *  +                               +-------------------------------+
 *  |                               |                               |
 *  +-------------------------------+                               +
 *  |                      Source MAC (6 bytes)                     |
 *  +-------------------------------+-------------------------------+
 *  |   EtherType or TPID 0x8100    | PCP |D|   VLAN ID (if tagged) |
 *  +-------------------------------+-------------------------------+
 *  |   EtherType (if tagged)       |
 *  +-------------------------------+
 * </pre>
 */
public final class EthernetFlyweight extends HeaderFlyweight
{
    public static final int LENGTH = 14;
    public static final int VLAN_TAG_LENGTH = 4;
    public static final int TAGGED_LENGTH = LENGTH + VLAN_TAG_LENGTH;
    /** Shortest Ethernet frame without FCS; shorter frames are padded with zeros by the sender. */
    public static final int MIN_FRAME_LENGTH = 60;

    public static final int ETHERTYPE_IPV4 = 0x0800;
    public static final int ETHERTYPE_IPV6 = 0x86DD;
    public static final int ETHERTYPE_ARP = 0x0806;
    public static final int TPID_8021Q = 0x8100;

    public static final int DESTINATION_OFFSET = 0;
    public static final int SOURCE_OFFSET = 6;
    public static final int TYPE_OFFSET = 12;
    public static final int TCI_OFFSET = 14;
    public static final int INNER_TYPE_OFFSET = 16;

    public EthernetFlyweight wrapAt(final DirectBuffer buffer, final int offset)
    {
        final int length = buffer.capacity() - offset >= TAGGED_LENGTH ? TAGGED_LENGTH : LENGTH;
        wrapHeader(buffer, offset, length);
        return this;
    }

    public int headerLength()
    {
        return hasVlan() ? TAGGED_LENGTH : LENGTH;
    }

    public long destinationMac()
    {
        return mac(DESTINATION_OFFSET);
    }

    public EthernetFlyweight destinationMac(final long mac)
    {
        putMac(DESTINATION_OFFSET, mac);
        return this;
    }

    public long sourceMac()
    {
        return mac(SOURCE_OFFSET);
    }

    public EthernetFlyweight sourceMac(final long mac)
    {
        putMac(SOURCE_OFFSET, mac);
        return this;
    }

    /** The type field right after the MACs: the EtherType, or the TPID of a VLAN tag. */
    public int outerType()
    {
        return u16(TYPE_OFFSET);
    }

    public boolean hasVlan()
    {
        return outerType() == TPID_8021Q;
    }

    /** EtherType of the payload, looking past one 802.1Q tag. */
    public int etherType()
    {
        return hasVlan() ? u16(INNER_TYPE_OFFSET) : outerType();
    }

    /** Writes an untagged header's EtherType. */
    public EthernetFlyweight etherType(final int etherType)
    {
        putU16(TYPE_OFFSET, etherType);
        return this;
    }

    /** Writes a tagged header: TPID 0x8100, the tag control information and the inner EtherType. */
    public EthernetFlyweight vlan(final int pcp, final int dei, final int vlanId, final int etherType)
    {
        putU16(TYPE_OFFSET, TPID_8021Q);
        putU16(TCI_OFFSET, ((pcp & 0x7) << 13) | ((dei & 0x1) << 12) | (vlanId & 0xFFF));
        putU16(INNER_TYPE_OFFSET, etherType);
        return this;
    }

    public int vlanTci()
    {
        return u16(TCI_OFFSET);
    }

    public int vlanPcp()
    {
        return vlanTci() >>> 13;
    }

    public int vlanDei()
    {
        return (vlanTci() >>> 12) & 0x1;
    }

    public int vlanId()
    {
        return vlanTci() & 0xFFF;
    }

    private long mac(final int index)
    {
        return ((long)u16(index) << 32) | u32(index + 2);
    }

    private void putMac(final int index, final long mac)
    {
        putU16(index, (int)(mac >>> 32));
        putInt(index + 2, (int)mac, NETWORK);
    }

    /** "aa:bb:cc:dd:ee:ff" for a 48-bit MAC held in a long. Control path only (allocates). */
    public static String macToString(final long mac)
    {
        final StringBuilder sb = new StringBuilder(17);
        for (int shift = 40; shift >= 0; shift -= 8)
        {
            final int b = (int)(mac >>> shift) & 0xFF;
            sb.append(Character.forDigit(b >>> 4, 16)).append(Character.forDigit(b & 0xF, 16));
            if (shift > 0)
            {
                sb.append(':');
            }
        }
        return sb.toString();
    }
}
