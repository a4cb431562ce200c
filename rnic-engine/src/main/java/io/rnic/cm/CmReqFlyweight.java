package io.rnic.cm;

/**
 * ConnectRequest (REQ, IBTA 12.6.5): the active side's QP, PSN, path and timers; its private data starts with
 * the RDMA CM's IP header ({@code cma_hdr}) for the RDMA_PS_TCP port space. Offsets from the MAD's start:
 * <pre>
 *   24 Local Comm ID        32 Service ID (8)        40 Local CA GUID (8)      52 Local Q_Key
 *   56 Local QPN (24) | Responder Resources (8)      60 Local EECN (24) | Initiator Depth (8)
 *   64 Remote EECN (24) | Remote CM Response Timeout (5) Transport Service Type (2) E2E Flow Control (1)
 *   68 Starting PSN (24) | Local CM Response Timeout (5) Retry Count (3)
 *   72 P_Key (16) | Path MTU (4) RDC (1) RNR Retry (3) | Max CM Retries (4) SRQ (1) Extended Transport (3)
 *   76 Primary Local LID  78 Primary Remote LID  80 Primary Local GID (16)  96 Primary Remote GID (16)
 *  112 Flow Label (20) reserved (6) Packet Rate (6) 116 Traffic Class 117 Hop Limit 118 SL (4) Subnet Local (1)
 *  119 Local ACK Timeout (5)   120..163 alternate path (unused)   164..255 private data (92)
 * </pre>
 */
public final class CmReqFlyweight extends CmMadFlyweight
{
    public static final int PRIVATE_DATA_OFFSET = 164;
    public static final int PRIVATE_DATA_LENGTH = 92;

    static final int SERVICE_ID_OFFSET = 32;
    static final int LOCAL_CA_GUID_OFFSET = 40;
    static final int LOCAL_QKEY_OFFSET = 52;
    static final int LOCAL_QPN_OFFSET = 56;
    static final int RESPONDER_RESOURCES_OFFSET = 59;
    static final int INITIATOR_DEPTH_OFFSET = 63;
    static final int REMOTE_CM_RESPONSE_TIMEOUT_OFFSET = 67;
    static final int STARTING_PSN_OFFSET = 68;
    static final int LOCAL_CM_RESPONSE_TIMEOUT_OFFSET = 71;
    static final int PKEY_OFFSET = 72;
    static final int PATH_MTU_OFFSET = 74;
    static final int MAX_CM_RETRIES_OFFSET = 75;
    static final int PRIMARY_LOCAL_LID_OFFSET = 76;
    static final int PRIMARY_REMOTE_LID_OFFSET = 78;
    static final int PRIMARY_LOCAL_GID_OFFSET = 80;
    static final int PRIMARY_REMOTE_GID_OFFSET = 96;
    static final int FLOW_LABEL_OFFSET = 112;
    static final int TRAFFIC_CLASS_OFFSET = 116;
    static final int HOP_LIMIT_OFFSET = 117;
    static final int SL_OFFSET = 118;
    static final int LOCAL_ACK_TIMEOUT_OFFSET = 119;

    public long serviceId()
    {
        return u64(SERVICE_ID_OFFSET);
    }

    public CmReqFlyweight serviceId(final long id)
    {
        putU64(SERVICE_ID_OFFSET, id);
        return this;
    }

    public long localCaGuid()
    {
        return u64(LOCAL_CA_GUID_OFFSET);
    }

    public CmReqFlyweight localCaGuid(final long guid)
    {
        putU64(LOCAL_CA_GUID_OFFSET, guid);
        return this;
    }

    public long localQkey()
    {
        return u32(LOCAL_QKEY_OFFSET);
    }

    public int localQpn()
    {
        return u24(LOCAL_QPN_OFFSET);
    }

    public CmReqFlyweight localQpn(final int qpn)
    {
        putU24(LOCAL_QPN_OFFSET, qpn);
        return this;
    }

    public int responderResources()
    {
        return u8(RESPONDER_RESOURCES_OFFSET);
    }

    public CmReqFlyweight responderResources(final int value)
    {
        putU8(RESPONDER_RESOURCES_OFFSET, value);
        return this;
    }

    public int initiatorDepth()
    {
        return u8(INITIATOR_DEPTH_OFFSET);
    }

    public CmReqFlyweight initiatorDepth(final int value)
    {
        putU8(INITIATOR_DEPTH_OFFSET, value);
        return this;
    }

    public int remoteCmResponseTimeout()
    {
        return bits(REMOTE_CM_RESPONSE_TIMEOUT_OFFSET, 3, 5);
    }

    public CmReqFlyweight remoteCmResponseTimeout(final int value)
    {
        putBits(REMOTE_CM_RESPONSE_TIMEOUT_OFFSET, 3, 5, value);
        return this;
    }

    /** 0 = RC, 1 = UC, 3 = RD. */
    public int transportServiceType()
    {
        return bits(REMOTE_CM_RESPONSE_TIMEOUT_OFFSET, 1, 2);
    }

    public int startingPsn()
    {
        return u24(STARTING_PSN_OFFSET);
    }

    public CmReqFlyweight startingPsn(final int psn)
    {
        putU24(STARTING_PSN_OFFSET, psn);
        return this;
    }

    public int localCmResponseTimeout()
    {
        return bits(LOCAL_CM_RESPONSE_TIMEOUT_OFFSET, 3, 5);
    }

    public CmReqFlyweight localCmResponseTimeout(final int value)
    {
        putBits(LOCAL_CM_RESPONSE_TIMEOUT_OFFSET, 3, 5, value);
        return this;
    }

    public int retryCount()
    {
        return bits(LOCAL_CM_RESPONSE_TIMEOUT_OFFSET, 0, 3);
    }

    public CmReqFlyweight retryCount(final int value)
    {
        putBits(LOCAL_CM_RESPONSE_TIMEOUT_OFFSET, 0, 3, value);
        return this;
    }

    public int partitionKey()
    {
        return u16(PKEY_OFFSET);
    }

    public CmReqFlyweight partitionKey(final int pkey)
    {
        putU16(PKEY_OFFSET, pkey);
        return this;
    }

    /** IBTA's MTU code: 1 = 256 … 5 = 4096. */
    public int pathMtu()
    {
        return bits(PATH_MTU_OFFSET, 4, 4);
    }

    public CmReqFlyweight pathMtu(final int code)
    {
        putBits(PATH_MTU_OFFSET, 4, 4, code);
        return this;
    }

    public int rnrRetryCount()
    {
        return bits(PATH_MTU_OFFSET, 0, 3);
    }

    public CmReqFlyweight rnrRetryCount(final int value)
    {
        putBits(PATH_MTU_OFFSET, 0, 3, value);
        return this;
    }

    public int maxCmRetries()
    {
        return bits(MAX_CM_RETRIES_OFFSET, 4, 4);
    }

    public CmReqFlyweight maxCmRetries(final int value)
    {
        putBits(MAX_CM_RETRIES_OFFSET, 4, 4, value);
        return this;
    }

    public boolean srq()
    {
        return bits(MAX_CM_RETRIES_OFFSET, 3, 1) != 0;
    }

    public CmReqFlyweight primaryLids(final int local, final int remote)
    {
        putU16(PRIMARY_LOCAL_LID_OFFSET, local);
        putU16(PRIMARY_REMOTE_LID_OFFSET, remote);
        return this;
    }

    public int primaryLocalLid()
    {
        return u16(PRIMARY_LOCAL_LID_OFFSET);
    }

    public long primaryLocalGidHigh()
    {
        return u64(PRIMARY_LOCAL_GID_OFFSET);
    }

    public long primaryLocalGidLow()
    {
        return u64(PRIMARY_LOCAL_GID_OFFSET + 8);
    }

    public CmReqFlyweight primaryLocalGid(final long high, final long low)
    {
        putU64(PRIMARY_LOCAL_GID_OFFSET, high);
        putU64(PRIMARY_LOCAL_GID_OFFSET + 8, low);
        return this;
    }

    public long primaryRemoteGidHigh()
    {
        return u64(PRIMARY_REMOTE_GID_OFFSET);
    }

    public long primaryRemoteGidLow()
    {
        return u64(PRIMARY_REMOTE_GID_OFFSET + 8);
    }

    public CmReqFlyweight primaryRemoteGid(final long high, final long low)
    {
        putU64(PRIMARY_REMOTE_GID_OFFSET, high);
        putU64(PRIMARY_REMOTE_GID_OFFSET + 8, low);
        return this;
    }

    public int primaryFlowLabel()
    {
        return (int)(u32(FLOW_LABEL_OFFSET) >>> 12);
    }

    public int primaryPacketRate()
    {
        return u8(FLOW_LABEL_OFFSET + 3) & 0x3F;
    }

    /** Flow label (20 bits), then 6 reserved bits, then the packet rate (6 bits). */
    public CmReqFlyweight primaryFlowLabelAndRate(final int flowLabel, final int packetRate)
    {
        putU32(FLOW_LABEL_OFFSET, ((long)(flowLabel & 0xF_FFFF) << 12) | (packetRate & 0x3F));
        return this;
    }

    public int primaryTrafficClass()
    {
        return u8(TRAFFIC_CLASS_OFFSET);
    }

    public int primaryHopLimit()
    {
        return u8(HOP_LIMIT_OFFSET);
    }

    public CmReqFlyweight primaryTrafficClassAndHopLimit(final int trafficClass, final int hopLimit)
    {
        putU8(TRAFFIC_CLASS_OFFSET, trafficClass);
        putU8(HOP_LIMIT_OFFSET, hopLimit);
        return this;
    }

    public int primaryServiceLevel()
    {
        return bits(SL_OFFSET, 4, 4);
    }

    public int primaryLocalAckTimeout()
    {
        return bits(LOCAL_ACK_TIMEOUT_OFFSET, 3, 5);
    }

    public CmReqFlyweight primaryLocalAckTimeout(final int value)
    {
        putBits(LOCAL_ACK_TIMEOUT_OFFSET, 3, 5, value);
        return this;
    }

    // ------------------------------------------------------------------- RDMA CM private data (struct cma_hdr)

    /** Offset of the RDMA CM header in the REQ: version (8), IP version (4) + 4 reserved, source port (16), ... */
    public static final int CMA_HEADER_OFFSET = PRIVATE_DATA_OFFSET;
    /** version, IP version, port, then the source and destination addresses, 16 bytes each. */
    public static final int CMA_HEADER_LENGTH = 36;
    static final int CMA_VERSION_OFFSET = CMA_HEADER_OFFSET;
    static final int CMA_IP_VERSION_OFFSET = CMA_HEADER_OFFSET + 1;
    static final int CMA_PORT_OFFSET = CMA_HEADER_OFFSET + 2;
    static final int CMA_SOURCE_OFFSET = CMA_HEADER_OFFSET + 4;
    static final int CMA_DESTINATION_OFFSET = CMA_HEADER_OFFSET + 20;

    public int cmaVersion()
    {
        return u8(CMA_VERSION_OFFSET);
    }

    /** 4 or 6. */
    public int cmaIpVersion()
    {
        return bits(CMA_IP_VERSION_OFFSET, 4, 4);
    }

    /** The active side's port (the destination port is in the service ID). */
    public int cmaSourcePort()
    {
        return u16(CMA_PORT_OFFSET);
    }

    /** IPv4 addresses sit in the last 4 of their 16 bytes (the first 12 are zero). */
    public int cmaSourceIpv4()
    {
        return getInt(CMA_SOURCE_OFFSET + 12, NETWORK);
    }

    public int cmaDestinationIpv4()
    {
        return getInt(CMA_DESTINATION_OFFSET + 12, NETWORK);
    }

    public long cmaSourceIpv6High()
    {
        return u64(CMA_SOURCE_OFFSET);
    }

    public long cmaSourceIpv6Low()
    {
        return u64(CMA_SOURCE_OFFSET + 8);
    }

    public long cmaDestinationIpv6High()
    {
        return u64(CMA_DESTINATION_OFFSET);
    }

    public long cmaDestinationIpv6Low()
    {
        return u64(CMA_DESTINATION_OFFSET + 8);
    }

    public CmReqFlyweight cmaHeaderIpv4(final int sourcePort, final int sourceIp, final int destinationIp)
    {
        putU8(CMA_VERSION_OFFSET, 0);
        putU8(CMA_IP_VERSION_OFFSET, 4 << 4);
        putU16(CMA_PORT_OFFSET, sourcePort);
        putInt(CMA_SOURCE_OFFSET + 12, sourceIp, NETWORK);
        putInt(CMA_DESTINATION_OFFSET + 12, destinationIp, NETWORK);
        return this;
    }

    public CmReqFlyweight cmaHeaderIpv6(
        final int sourcePort, final long sourceHigh, final long sourceLow, final long destinationHigh,
        final long destinationLow)
    {
        putU8(CMA_VERSION_OFFSET, 0);
        putU8(CMA_IP_VERSION_OFFSET, 6 << 4);
        putU16(CMA_PORT_OFFSET, sourcePort);
        putU64(CMA_SOURCE_OFFSET, sourceHigh);
        putU64(CMA_SOURCE_OFFSET + 8, sourceLow);
        putU64(CMA_DESTINATION_OFFSET, destinationHigh);
        putU64(CMA_DESTINATION_OFFSET + 8, destinationLow);
        return this;
    }

    /** The consumer's private data follows the RDMA CM header: 92 - 36 bytes, librdmacm's limit for a connect. */
    public static final int CONSUMER_PRIVATE_DATA_OFFSET = CMA_HEADER_OFFSET + CMA_HEADER_LENGTH;
    public static final int CONSUMER_PRIVATE_DATA_LENGTH = PRIVATE_DATA_LENGTH - CMA_HEADER_LENGTH;

    /** Copies the consumer's private data, the whole field (zero-padded, as librdmacm hands it over). */
    public byte[] consumerPrivateData()
    {
        final byte[] data = new byte[CONSUMER_PRIVATE_DATA_LENGTH];
        getBytes(CONSUMER_PRIVATE_DATA_OFFSET, data);
        return data;
    }

    /** At most {@link #CONSUMER_PRIVATE_DATA_LENGTH} bytes (the manager checks); the rest of the field stays zero. */
    public CmReqFlyweight consumerPrivateData(final byte[] data)
    {
        putBytes(CONSUMER_PRIVATE_DATA_OFFSET, data);
        return this;
    }

    /** The RDMA CM's service ID of a port in the RDMA_PS_TCP space: {@code 0x0000000001060000 | port}. */
    public static long tcpServiceId(final int port)
    {
        return 0x0000_0000_0106_0000L | (port & 0xFFFF);
    }

    /** The port of an RDMA_PS_TCP service ID, or -1 for another service. */
    public static int tcpPortOf(final long serviceId)
    {
        return (serviceId & ~0xFFFFL) == 0x0000_0000_0106_0000L ? (int)(serviceId & 0xFFFF) : -1;
    }
}
