package io.rnic.cm;

/**
 * ConnectReply (REP, IBTA 12.6.8): the passive side's QP and PSN and the RDMA read resources it grants.
 * <pre>
 *   24 Local Comm ID   28 Remote Comm ID   32 Local Q_Key   36 Local QPN (24)   40 Local EECN (24)
 *   44 Starting PSN (24)   48 Responder Resources   49 Initiator Depth
 *   50 Target ACK Delay (5) Failover Accepted (2) E2E Flow Control (1)   51 RNR Retry Count (3) SRQ (1)
 *   52 Local CA GUID (8)   60..255 private data (196)
 * </pre>
 */
public final class CmRepFlyweight extends CmMadFlyweight
{
    static final int LOCAL_QKEY_OFFSET = 32;
    static final int LOCAL_QPN_OFFSET = 36;
    static final int STARTING_PSN_OFFSET = 44;
    static final int RESPONDER_RESOURCES_OFFSET = 48;
    static final int INITIATOR_DEPTH_OFFSET = 49;
    static final int TARGET_ACK_DELAY_OFFSET = 50;
    static final int RNR_RETRY_OFFSET = 51;
    static final int LOCAL_CA_GUID_OFFSET = 52;
    public static final int PRIVATE_DATA_OFFSET = 60;
    public static final int PRIVATE_DATA_LENGTH = 196;

    public long localQkey()
    {
        return u32(LOCAL_QKEY_OFFSET);
    }

    public int localQpn()
    {
        return u24(LOCAL_QPN_OFFSET);
    }

    public CmRepFlyweight localQpn(final int qpn)
    {
        putU24(LOCAL_QPN_OFFSET, qpn);
        return this;
    }

    public int startingPsn()
    {
        return u24(STARTING_PSN_OFFSET);
    }

    public CmRepFlyweight startingPsn(final int psn)
    {
        putU24(STARTING_PSN_OFFSET, psn);
        return this;
    }

    public int responderResources()
    {
        return u8(RESPONDER_RESOURCES_OFFSET);
    }

    public CmRepFlyweight responderResources(final int value)
    {
        putU8(RESPONDER_RESOURCES_OFFSET, value);
        return this;
    }

    public int initiatorDepth()
    {
        return u8(INITIATOR_DEPTH_OFFSET);
    }

    public CmRepFlyweight initiatorDepth(final int value)
    {
        putU8(INITIATOR_DEPTH_OFFSET, value);
        return this;
    }

    public int targetAckDelay()
    {
        return bits(TARGET_ACK_DELAY_OFFSET, 3, 5);
    }

    public CmRepFlyweight targetAckDelay(final int value)
    {
        putBits(TARGET_ACK_DELAY_OFFSET, 3, 5, value);
        return this;
    }

    public int rnrRetryCount()
    {
        return bits(RNR_RETRY_OFFSET, 5, 3);
    }

    public CmRepFlyweight rnrRetryCount(final int value)
    {
        putBits(RNR_RETRY_OFFSET, 5, 3, value);
        return this;
    }

    public long localCaGuid()
    {
        return u64(LOCAL_CA_GUID_OFFSET);
    }

    public CmRepFlyweight localCaGuid(final long guid)
    {
        putU64(LOCAL_CA_GUID_OFFSET, guid);
        return this;
    }

    /** Copies the private data, the whole field (zero-padded, as librdmacm hands it over). */
    public byte[] privateData()
    {
        final byte[] data = new byte[PRIVATE_DATA_LENGTH];
        getBytes(PRIVATE_DATA_OFFSET, data);
        return data;
    }

    /** At most {@link #PRIVATE_DATA_LENGTH} bytes (the manager checks); the rest of the field stays zero. */
    public CmRepFlyweight privateData(final byte[] data)
    {
        putBytes(PRIVATE_DATA_OFFSET, data);
        return this;
    }
}
