package io.rnic.wire;

import org.agrona.DirectBuffer;

/**
 * ACK Extended Transport Header, 4 bytes: in ACKNOWLEDGE, ATOMIC ACKNOWLEDGE and READ RESPONSE FIRST/LAST/ONLY.
 * <pre>
 *  +-+---+---------+-----------------------------------------------+
 *  |0|Typ|  Value  |              Message Sequence Number          |
 *  +-+---+---------+-----------------------------------------------+
 * </pre>
 * Syndrome bit 7 is reserved (0); bits 6..5 are the type: 00 ACK (value = credit code, 31 = no credit
 * information), 01 RNR NAK (value = RNR timer code), 10 reserved, 11 NAK (value = NAK code).
 * So ACK = 0x00-0x1F, RNR NAK = 0x20-0x3F, NAK = 0x60-0x64.
 */
public final class AethFlyweight extends HeaderFlyweight
{
    public static final int LENGTH = 4;
    public static final int SYNDROME_OFFSET = 0;
    public static final int MSN_OFFSET = 1;

    public static final int TYPE_ACK = 0;
    public static final int TYPE_RNR_NAK = 1;
    public static final int TYPE_RESERVED = 2;
    public static final int TYPE_NAK = 3;

    public static final int NAK_PSN_SEQUENCE_ERROR = 0;
    public static final int NAK_INVALID_REQUEST = 1;
    public static final int NAK_REMOTE_ACCESS_ERROR = 2;
    public static final int NAK_REMOTE_OPERATIONAL_ERROR = 3;
    public static final int NAK_INVALID_RD_REQUEST = 4;

    /** Credit code meaning "no end-to-end flow-control information". */
    public static final int CREDITS_INVALID = 31;

    private static final String[] TYPE_NAMES = { "ACK", "RNR_NAK", "RESERVED", "NAK" };
    private static final String[] NAK_NAMES = {
        "PSN_SEQUENCE_ERROR", "INVALID_REQUEST", "REMOTE_ACCESS_ERROR", "REMOTE_OPERATIONAL_ERROR",
        "INVALID_RD_REQUEST" };

    public AethFlyweight wrapAt(final DirectBuffer buffer, final int offset)
    {
        wrapHeader(buffer, offset, LENGTH);
        return this;
    }

    public int headerLength()
    {
        return LENGTH;
    }

    public int syndrome()
    {
        return u8(SYNDROME_OFFSET);
    }

    public int msn()
    {
        return u24(MSN_OFFSET);
    }

    public AethFlyweight syndromeAndMsn(final int syndrome, final int msn)
    {
        putInt(SYNDROME_OFFSET, (syndrome << 24) | (msn & 0xFF_FFFF), NETWORK);
        return this;
    }

    public static int type(final int syndrome)
    {
        return (syndrome >>> 5) & 0x3;
    }

    /** Credit code, RNR timer code or NAK code, by type. */
    public static int value(final int syndrome)
    {
        return syndrome & 0x1F;
    }

    public static int ackSyndrome(final int creditCode)
    {
        return creditCode & 0x1F;
    }

    public static int rnrNakSyndrome(final int rnrTimerCode)
    {
        return 0x20 | (rnrTimerCode & 0x1F);
    }

    public static int nakSyndrome(final int nakCode)
    {
        return 0x60 | (nakCode & 0x1F);
    }

    public static String typeName(final int syndrome)
    {
        return TYPE_NAMES[type(syndrome)];
    }

    public static String nakName(final int nakCode)
    {
        return nakCode < NAK_NAMES.length ? NAK_NAMES[nakCode] : "RESERVED";
    }
}
