package io.rnic.pcap;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** Writes pcapng blocks by hand, in either byte order, so the reader's tests never depend on tshark. */
final class PcapngBuilder
{
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private ByteOrder order;

    PcapngBuilder(final ByteOrder order)
    {
        this.order = order;
    }

    /** A section header (version 1.0, unknown section length) with a comment option. */
    PcapngBuilder section()
    {
        final ByteBuffer b = body(16 + 12);
        b.putInt(PcapFormat.BYTE_ORDER_MAGIC).putShort((short)1).putShort((short)0).putLong(-1L);
        b.putShort((short)1).putShort((short)5).put("hello".getBytes()).put(new byte[3]); // opt_comment
        b.putShort((short)0).putShort((short)0);
        return block(PcapFormat.BLOCK_SECTION_HEADER, b);
    }

    /** A section header in another byte order: later blocks follow it. */
    PcapngBuilder section(final ByteOrder newOrder)
    {
        order = newOrder;
        return section();
    }

    PcapngBuilder iface(final int linkType, final int snaplen, final Integer tsresol, final Long tsoffset)
    {
        final ByteBuffer b = body(8 + 12 + 8 + 12 + 4);
        b.putShort((short)linkType).putShort((short)0).putInt(snaplen);
        b.putShort((short)2).putShort((short)4).put("eth0".getBytes()); // if_name
        if (tsresol != null)
        {
            b.putShort((short)PcapFormat.OPTION_IF_TSRESOL).putShort((short)1).put(tsresol.byteValue()).put(new byte[3]);
        }
        if (tsoffset != null)
        {
            b.putShort((short)PcapFormat.OPTION_IF_TSOFFSET).putShort((short)8).putLong(tsoffset);
        }
        b.putShort((short)0).putShort((short)0);
        return block(PcapFormat.BLOCK_INTERFACE_DESCRIPTION, b);
    }

    PcapngBuilder enhanced(final int iface, final long timestamp, final byte[] data, final int originalLength)
    {
        final ByteBuffer b = body(20 + data.length + 3 + 16);
        b.putInt(iface).putInt((int)(timestamp >>> 32)).putInt((int)timestamp).putInt(data.length).putInt(originalLength);
        b.put(data).put(new byte[pad(data.length)]);
        b.putShort((short)2).putShort((short)4).putInt(0x1); // epb_flags: inbound
        b.putShort((short)0).putShort((short)0);
        return block(PcapFormat.BLOCK_ENHANCED_PACKET, b);
    }

    PcapngBuilder simple(final byte[] data, final int originalLength)
    {
        final ByteBuffer b = body(4 + data.length + 3);
        b.putInt(originalLength).put(data).put(new byte[pad(data.length)]);
        return block(PcapFormat.BLOCK_SIMPLE_PACKET, b);
    }

    PcapngBuilder other(final int type, final int bodyLength)
    {
        final ByteBuffer b = body(bodyLength);
        b.position(bodyLength);
        return block(type, b);
    }

    byte[] bytes()
    {
        return out.toByteArray();
    }

    private ByteBuffer body(final int capacity)
    {
        return ByteBuffer.allocate(capacity + 64).order(order); // the block is its position, not its capacity
    }

    private PcapngBuilder block(final int type, final ByteBuffer body)
    {
        final int bodyLength = body.position();
        final int total = 12 + bodyLength;
        final ByteBuffer b = ByteBuffer.allocate(total).order(order);
        b.putInt(type).putInt(total).put(body.array(), 0, bodyLength).putInt(total);
        out.writeBytes(b.array());
        return this;
    }

    private static int pad(final int length)
    {
        return (4 - (length & 3)) & 3;
    }
}
