package io.rnic.cm;

/**
 * MessageReceiptAcknowledgement (MRA, IBTA 12.6.6): "your REQ (or REP) arrived; answering will take longer than
 * you allow". Its sender needs {@link #serviceTimeout} more before it answers, and the receiver waits that long
 * (plus the packet lifetime) before it sends the MAD again or gives up.
 * <pre>
 *   24 Local Comm ID   28 Remote Comm ID   32 Message MRAed (2) | reserved   33 Service Timeout (5) | reserved
 *   34..255 private data (222)
 * </pre>
 */
public final class CmMraFlyweight extends CmMadFlyweight
{
    public static final int MESSAGE_REQ = 0;
    public static final int MESSAGE_REP = 1;
    public static final int MESSAGE_LAP = 2;

    static final int MESSAGE_MRAED_OFFSET = 32;
    static final int SERVICE_TIMEOUT_OFFSET = 33;

    public int messageMraed()
    {
        return bits(MESSAGE_MRAED_OFFSET, 6, 2);
    }

    public CmMraFlyweight messageMraed(final int message)
    {
        putBits(MESSAGE_MRAED_OFFSET, 6, 2, message);
        return this;
    }

    /** The time the sender needs before it answers, IBTA's 4.096 µs × 2^value. */
    public int serviceTimeout()
    {
        return bits(SERVICE_TIMEOUT_OFFSET, 3, 5);
    }

    public CmMraFlyweight serviceTimeout(final int timeout)
    {
        putBits(SERVICE_TIMEOUT_OFFSET, 3, 5, timeout);
        return this;
    }
}
