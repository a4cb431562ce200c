package io.rnic.cm;

import io.rnic.wire.HeaderFlyweight;
import org.agrona.DirectBuffer;

/**
 * A communication management MAD (IBTA 12.6 over the MAD header of 13.4.3): 256 bytes carried as the payload of a
 * UD SEND from QP1 to QP1 with Q_Key {@code 0x80010000}. Subclasses add the fields of each CM message; every CM
 * message but the REQ starts with the two communication IDs.
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------+---------------+---------------+---------------+
 *  | BaseVersion 1 | MgmtClass 07  | ClassVersion 2| Method (Send) |
 *  +---------------+---------------+---------------+---------------+
 *  |            Status             |        Class specific         |
 *  +---------------+---------------+---------------+---------------+
 *  |                 Transaction ID (64 bits)                      |
 *  +---------------+---------------+---------------+---------------+
 *  |         Attribute ID          |           reserved            |
 *  +---------------+---------------+---------------+---------------+
 *  |                     Attribute modifier                        |
 *  +---------------+---------------+---------------+---------------+
 *  |  24: Local Communication ID   | 28: Remote Communication ID   |  (REQ: 28 is reserved)
 *  +---------------------------------------------------------------+
 * </pre>
 */
public class CmMadFlyweight extends HeaderFlyweight
{
    public static final int LENGTH = 256;
    public static final int BASE_VERSION = 1;
    public static final int MGMT_CLASS_CM = 0x07;
    public static final int CLASS_VERSION = 2;
    public static final int METHOD_SEND = 0x03;

    public static final int ATTR_REQ = 0x0010;
    public static final int ATTR_MRA = 0x0011;
    public static final int ATTR_REJ = 0x0012;
    public static final int ATTR_REP = 0x0013;
    public static final int ATTR_RTU = 0x0014;
    public static final int ATTR_DREQ = 0x0015;
    public static final int ATTR_DREP = 0x0016;

    static final int BASE_VERSION_OFFSET = 0;
    static final int MGMT_CLASS_OFFSET = 1;
    static final int CLASS_VERSION_OFFSET = 2;
    static final int METHOD_OFFSET = 3;
    static final int STATUS_OFFSET = 4;
    static final int TRANSACTION_ID_OFFSET = 8;
    static final int ATTRIBUTE_ID_OFFSET = 16;
    static final int ATTRIBUTE_MODIFIER_OFFSET = 20;
    static final int LOCAL_COMM_ID_OFFSET = 24;
    static final int REMOTE_COMM_ID_OFFSET = 28;

    @Override
    public int headerLength()
    {
        return LENGTH;
    }

    /** Wraps the 256 bytes of a MAD at {@code offset}; the caller checked they are there. */
    public CmMadFlyweight wrapAt(final DirectBuffer buffer, final int offset)
    {
        wrapHeader(buffer, offset, LENGTH);
        return this;
    }

    /** Zeroes the MAD and writes the common header of a CM Send with this attribute and transaction ID. */
    public CmMadFlyweight initialise(final int attributeId, final long transactionId)
    {
        setMemory(0, LENGTH, (byte)0);
        putU8(BASE_VERSION_OFFSET, BASE_VERSION);
        putU8(MGMT_CLASS_OFFSET, MGMT_CLASS_CM);
        putU8(CLASS_VERSION_OFFSET, CLASS_VERSION);
        putU8(METHOD_OFFSET, METHOD_SEND);
        putLong(TRANSACTION_ID_OFFSET, transactionId, NETWORK);
        putU16(ATTRIBUTE_ID_OFFSET, attributeId);
        return this;
    }

    public int baseVersion()
    {
        return u8(BASE_VERSION_OFFSET);
    }

    public int managementClass()
    {
        return u8(MGMT_CLASS_OFFSET);
    }

    public int classVersion()
    {
        return u8(CLASS_VERSION_OFFSET);
    }

    public int method()
    {
        return u8(METHOD_OFFSET);
    }

    public int status()
    {
        return u16(STATUS_OFFSET);
    }

    public long transactionId()
    {
        return getLong(TRANSACTION_ID_OFFSET, NETWORK);
    }

    public int attributeId()
    {
        return u16(ATTRIBUTE_ID_OFFSET);
    }

    public long attributeModifier()
    {
        return u32(ATTRIBUTE_MODIFIER_OFFSET);
    }

    public int localCommId()
    {
        return getInt(LOCAL_COMM_ID_OFFSET, NETWORK);
    }

    public CmMadFlyweight localCommId(final int id)
    {
        putInt(LOCAL_COMM_ID_OFFSET, id, NETWORK);
        return this;
    }

    /** Not in a REQ (reserved there). */
    public int remoteCommId()
    {
        return getInt(REMOTE_COMM_ID_OFFSET, NETWORK);
    }

    public CmMadFlyweight remoteCommId(final int id)
    {
        putInt(REMOTE_COMM_ID_OFFSET, id, NETWORK);
        return this;
    }

    /** Whether the common header is a CM Send of version 1/2 (what we answer); other MADs are dropped. */
    public boolean isCmSend()
    {
        return baseVersion() == BASE_VERSION && managementClass() == MGMT_CLASS_CM && classVersion() == CLASS_VERSION &&
            method() == METHOD_SEND;
    }

    protected final int bits(final int index, final int shift, final int width)
    {
        return (u8(index) >>> shift) & ((1 << width) - 1);
    }

    protected final void putBits(final int index, final int shift, final int width, final int value)
    {
        final int mask = ((1 << width) - 1) << shift;
        putU8(index, (u8(index) & ~mask) | ((value << shift) & mask));
    }

    protected final long u64(final int index)
    {
        return getLong(index, NETWORK);
    }

    protected final void putU64(final int index, final long value)
    {
        putLong(index, value, NETWORK);
    }

    protected final void putU32(final int index, final long value)
    {
        putInt(index, (int)value, NETWORK);
    }
}
