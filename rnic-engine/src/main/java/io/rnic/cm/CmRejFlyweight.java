package io.rnic.cm;

/**
 * ConnectReject (REJ, IBTA 12.6.7).
 * <pre>
 *   24 Local Comm ID   28 Remote Comm ID   32 Message REJected (2) | reserved   33 Reject Info Length (7) | reserved
 *   34 Reason (16)   36..107 additional reject information   108..255 private data (148)
 * </pre>
 * The reasons are IBTA's table 107 under the names of Linux's {@code enum ib_cm_rej_reason}: librdmacm hands them to
 * the application as the status of {@code RDMA_CM_EVENT_REJECTED}, and {@link #reasonName} says them as the kernel's
 * {@code ibcm_reject_msg} does.
 */
public final class CmRejFlyweight extends CmMadFlyweight
{
    public static final int MESSAGE_REQ = 0;
    public static final int MESSAGE_REP = 1;
    public static final int MESSAGE_OTHER = 2;

    public static final int REASON_NO_QP = 1;
    public static final int REASON_NO_EEC = 2;
    public static final int REASON_NO_RESOURCES = 3;
    /** "Timeout": the active side gave up its REQ; the additional information is its CA GUID. */
    public static final int REASON_TIMEOUT = 4;
    public static final int REASON_UNSUPPORTED = 5;
    public static final int REASON_INVALID_COMM_ID = 6;
    public static final int REASON_INVALID_COMM_INSTANCE = 7;
    /** "Invalid Service ID": no listener on the REQ's port. */
    public static final int REASON_INVALID_SERVICE_ID = 8;
    public static final int REASON_INVALID_TRANSPORT_TYPE = 9;
    /** "Stale Connection": the REQ names a connection (its comm ID or QPN) we still hold in its timewait. */
    public static final int REASON_STALE_CONNECTION = 10;
    public static final int REASON_INVALID_GID = 12;
    public static final int REASON_INVALID_MTU = 26;
    public static final int REASON_INSUFFICIENT_RESPONDER_RESOURCES = 27;
    /** "Consumer Reject": the application refused the REQ ({@code rdma_reject}). */
    public static final int REASON_CONSUMER = 28;

    /** The private data a REJ carries. */
    public static final int PRIVATE_DATA_LENGTH = 148;

    static final int MESSAGE_REJECTED_OFFSET = 32;
    static final int REJECT_INFO_LENGTH_OFFSET = 33;
    static final int REASON_OFFSET = 34;
    static final int REJECT_INFO_OFFSET = 36;
    static final int PRIVATE_DATA_OFFSET = 108;

    private static final String[] REASON_NAMES =
    {
        null, "no QP", "no EEC", "no resources", "timeout", "unsupported", "invalid comm ID",
        "invalid comm instance", "invalid service ID", "invalid transport type", "stale conn", "RDC not exist",
        "invalid GID", "invalid LID", "invalid SL", "invalid traffic class", "invalid hop limit",
        "invalid packet rate", "invalid alt GID", "invalid alt LID", "invalid alt SL", "invalid alt traffic class",
        "invalid alt hop limit", "invalid alt packet rate", "port CM redirect", "port redirect", "invalid MTU",
        "insufficient resp resources", "consumer defined", "invalid RNR retry", "duplicate local comm ID",
        "invalid class version", "invalid flow label", "invalid alt flow label", null,
        "vendor option is not supported"
    };

    /** A reason's name as Linux's CM says it ({@code ibcm_reject_msg}); "unrecognized reason" for the others. */
    public static String reasonName(final int reason)
    {
        final String name = reason > 0 && reason < REASON_NAMES.length ? REASON_NAMES[reason] : null;
        return name != null ? name : "unrecognized reason";
    }

    public int messageRejected()
    {
        return bits(MESSAGE_REJECTED_OFFSET, 6, 2);
    }

    public CmRejFlyweight messageRejected(final int message)
    {
        putBits(MESSAGE_REJECTED_OFFSET, 6, 2, message);
        return this;
    }

    /** The length of the additional reject information in bytes (0..72). */
    public int rejectInfoLength()
    {
        return bits(REJECT_INFO_LENGTH_OFFSET, 1, 7);
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

    /** The additional reject information as a CA GUID (a {@link #REASON_TIMEOUT}'s), if it is 8 bytes; else 0. */
    public long rejectInfoGuid()
    {
        return rejectInfoLength() >= Long.BYTES ? u64(REJECT_INFO_OFFSET) : 0;
    }

    /** Sets the additional reject information to a CA GUID, as a {@link #REASON_TIMEOUT} carries it. */
    public CmRejFlyweight rejectInfoGuid(final long guid)
    {
        putBits(REJECT_INFO_LENGTH_OFFSET, 1, 7, Long.BYTES);
        putU64(REJECT_INFO_OFFSET, guid);
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
    public CmRejFlyweight privateData(final byte[] data)
    {
        putBytes(PRIVATE_DATA_OFFSET, data);
        return this;
    }
}
