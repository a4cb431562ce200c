package io.rnic.cm;

/**
 * ConnectReject (REJ, IBTA 12.6.7).
 * <pre>
 *   24 Local Comm ID   28 Remote Comm ID   32 Message REJected (2) | reserved   33 Reject Info Length (7)
 *   34 Reason (16)   36..107 additional reject information   108..255 private data (148)
 * </pre>
 */
public final class CmRejFlyweight extends CmMadFlyweight
{
    public static final int MESSAGE_REQ = 0;
    public static final int MESSAGE_REP = 1;
    public static final int MESSAGE_OTHER = 2;
    /** "Invalid Service ID": no listener on the REQ's port. */
    public static final int REASON_INVALID_SERVICE_ID = 8;
    /** "Consumer Reject". */
    public static final int REASON_CONSUMER = 28;

    static final int MESSAGE_REJECTED_OFFSET = 32;
    static final int REASON_OFFSET = 34;

    public int messageRejected()
    {
        return bits(MESSAGE_REJECTED_OFFSET, 6, 2);
    }

    public CmRejFlyweight messageRejected(final int message)
    {
        putBits(MESSAGE_REJECTED_OFFSET, 6, 2, message);
        return this;
    }

    public int reason()
    {
        return u16(REASON_OFFSET);
    }

    public CmRejFlyweight reason(final int reason)
    {
        putU16(REASON_OFFSET, reason);
        return this;
    }
}
