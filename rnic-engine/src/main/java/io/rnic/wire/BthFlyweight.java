package io.rnic.wire;

import org.agrona.DirectBuffer;

/**
 * Base Transport Header (IBTA 9.2), 12 bytes.
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------+-+-+---+-------+-------------------------------+
 *  |    OpCode     |S|M|Pad| TVer  |         Partition Key         |
 *  +-+-+-----------+-+-+---+-------+-------------------------------+
 *  |F|B| reserved  |              Destination QP                   |
 *  +-+-------------+-----------------------------------------------+
 *  |A|  reserved   |           Packet Sequence Number              |
 *  +-+-------------+-----------------------------------------------+
 * </pre>
 * S = solicited event, M = migration request, Pad = pad count, TVer must be 0, F/B = FECN/BECN (byte 4 is the
 * variant byte masked by the ICRC), A = acknowledge request. PSNs are 24-bit and modular.
 */
public final class BthFlyweight extends HeaderFlyweight
{
    public static final int LENGTH = 12;
    public static final int DEFAULT_PKEY = 0xFFFF;
    public static final int PSN_MASK = 0xFF_FFFF;
    public static final int QPN_MASK = 0xFF_FFFF;

    public static final int OPCODE_OFFSET = 0;
    public static final int FLAGS_OFFSET = 1;
    public static final int PKEY_OFFSET = 2;
    public static final int FECN_BECN_OFFSET = 4;
    public static final int DEST_QP_OFFSET = 5;
    public static final int ACK_REQ_OFFSET = 8;
    public static final int PSN_OFFSET = 9;

    public BthFlyweight wrapAt(final DirectBuffer buffer, final int offset)
    {
        wrapHeader(buffer, offset, LENGTH);
        return this;
    }

    public int headerLength()
    {
        return LENGTH;
    }

    public int opcode()
    {
        return u8(OPCODE_OFFSET);
    }

    public BthFlyweight opcode(final int opcode)
    {
        putU8(OPCODE_OFFSET, opcode);
        return this;
    }

    public boolean solicitedEvent()
    {
        return (u8(FLAGS_OFFSET) & 0x80) != 0;
    }

    public boolean migrationRequest()
    {
        return (u8(FLAGS_OFFSET) & 0x40) != 0;
    }

    public int padCount()
    {
        return (u8(FLAGS_OFFSET) >>> 4) & 0x3;
    }

    public int transportVersion()
    {
        return u8(FLAGS_OFFSET) & 0xF;
    }

    public BthFlyweight flags(
        final boolean solicitedEvent, final boolean migrationRequest, final int padCount, final int transportVersion)
    {
        putU8(FLAGS_OFFSET, (solicitedEvent ? 0x80 : 0) | (migrationRequest ? 0x40 : 0) |
            ((padCount & 0x3) << 4) | (transportVersion & 0xF));
        return this;
    }

    public int partitionKey()
    {
        return u16(PKEY_OFFSET);
    }

    public BthFlyweight partitionKey(final int pkey)
    {
        putU16(PKEY_OFFSET, pkey);
        return this;
    }

    public boolean fecn()
    {
        return (u8(FECN_BECN_OFFSET) & 0x80) != 0;
    }

    public boolean becn()
    {
        return (u8(FECN_BECN_OFFSET) & 0x40) != 0;
    }

    /** Writes byte 4: FECN, BECN and six reserved zero bits. */
    public BthFlyweight fecnBecn(final boolean fecn, final boolean becn)
    {
        putU8(FECN_BECN_OFFSET, (fecn ? 0x80 : 0) | (becn ? 0x40 : 0));
        return this;
    }

    public int destinationQp()
    {
        return u24(DEST_QP_OFFSET);
    }

    public BthFlyweight destinationQp(final int qpn)
    {
        putU24(DEST_QP_OFFSET, qpn);
        return this;
    }

    public boolean ackRequest()
    {
        return (u8(ACK_REQ_OFFSET) & 0x80) != 0;
    }

    public int psn()
    {
        return u24(PSN_OFFSET);
    }

    /** Writes the AckReq bit (with seven reserved zero bits) and the PSN. */
    public BthFlyweight ackRequestAndPsn(final boolean ackRequest, final int psn)
    {
        putInt(ACK_REQ_OFFSET, (ackRequest ? 0x8000_0000 : 0) | (psn & PSN_MASK), NETWORK);
        return this;
    }

    public static int opcode(final DirectBuffer buffer, final int bthOffset)
    {
        return buffer.getByte(bthOffset + OPCODE_OFFSET) & 0xFF;
    }

    public static int destinationQp(final DirectBuffer buffer, final int bthOffset)
    {
        return buffer.getInt(bthOffset + FECN_BECN_OFFSET, NETWORK) & QPN_MASK;
    }

    public static int psn(final DirectBuffer buffer, final int bthOffset)
    {
        return buffer.getInt(bthOffset + ACK_REQ_OFFSET, NETWORK) & PSN_MASK;
    }
}
