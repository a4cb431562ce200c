package io.rnic.verbs;

/**
 * The attributes of {@code modifyQp} ({@code struct ibv_qp_attr}); which of them a call sets is the attribute mask
 * ({@link QpAttrMask}). Ranges are checked with messages that name the field, before anything changes.
 */
public final class QpAttributes
{
    public QpState state = QpState.RESET;
    public QpState currentState;
    public PathMtu pathMtu = PathMtu.MTU_1024;
    public int qkey;
    public int rqPsn;
    public int sqPsn;
    public int destQpNumber;
    public int accessFlags;
    public int pkeyIndex;
    public int portNumber = 1;
    public int timeout;
    public int retryCount;
    public int rnrRetry;
    public int minRnrTimer;
    public int maxReadAtomic;
    public int maxDestReadAtomic;
    public final AddressVector addressVector = new AddressVector();

    /** The device's limit on outstanding RDMA READ/atomic operations per QP, either direction. */
    public static final int MAX_READ_ATOMIC = 16;

    /**
     * Checks the fields named in {@code mask}.
     *
     * @return null when they are all in range, otherwise a message naming the first bad one.
     */
    public String validate(final int mask)
    {
        if ((mask & QpAttrMask.PATH_MTU) != 0 && pathMtu == null)
        {
            return "path MTU not set (256, 512, 1024, 2048 or 4096)";
        }
        if ((mask & QpAttrMask.RQ_PSN) != 0 && (rqPsn & ~0xFF_FFFF) != 0)
        {
            return "RQ PSN 0x" + Integer.toHexString(rqPsn) + " is wider than 24 bits";
        }
        if ((mask & QpAttrMask.SQ_PSN) != 0 && (sqPsn & ~0xFF_FFFF) != 0)
        {
            return "SQ PSN 0x" + Integer.toHexString(sqPsn) + " is wider than 24 bits";
        }
        if ((mask & QpAttrMask.DEST_QPN) != 0 && (destQpNumber <= 0 || (destQpNumber & ~0xFF_FFFF) != 0))
        {
            return "destination QPN " + destQpNumber + " out of range 1..0xffffff";
        }
        final int qpAccess = AccessFlags.ALL | AccessFlags.FLUSH_GLOBAL | AccessFlags.FLUSH_PERSISTENT;
        if ((mask & QpAttrMask.ACCESS_FLAGS) != 0 && (accessFlags & ~qpAccess) != 0)
        {
            return "unknown access flags 0x" + Integer.toHexString(accessFlags & ~qpAccess);
        }
        if ((mask & QpAttrMask.PKEY_INDEX) != 0 && pkeyIndex != 0)
        {
            return "P_Key index " + pkeyIndex + " out of range: the P_Key table has one entry (0xffff)";
        }
        if ((mask & QpAttrMask.PORT) != 0 && portNumber != 1)
        {
            return "port " + portNumber + " does not exist: the device has port 1";
        }
        if ((mask & QpAttrMask.TIMEOUT) != 0 && (timeout < 0 || timeout > 31))
        {
            return "timeout " + timeout + " out of range 0..31 (4.096 us x 2^timeout, 0 = infinite)";
        }
        if ((mask & QpAttrMask.RETRY_CNT) != 0 && (retryCount < 0 || retryCount > 7))
        {
            return "retry count " + retryCount + " out of range 0..7";
        }
        if ((mask & QpAttrMask.RNR_RETRY) != 0 && (rnrRetry < 0 || rnrRetry > 7))
        {
            return "RNR retry " + rnrRetry + " out of range 0..7 (7 = infinite)";
        }
        if ((mask & QpAttrMask.MIN_RNR_TIMER) != 0 && (minRnrTimer < 0 || minRnrTimer > 31))
        {
            return "min RNR timer " + minRnrTimer + " out of range 0..31";
        }
        if ((mask & QpAttrMask.MAX_QP_RD_ATOMIC) != 0 && (maxReadAtomic < 0 || maxReadAtomic > MAX_READ_ATOMIC))
        {
            return "max_rd_atomic " + maxReadAtomic + " out of range 0.." + MAX_READ_ATOMIC;
        }
        if ((mask & QpAttrMask.MAX_DEST_RD_ATOMIC) != 0 &&
            (maxDestReadAtomic < 0 || maxDestReadAtomic > MAX_READ_ATOMIC))
        {
            return "max_dest_rd_atomic " + maxDestReadAtomic + " out of range 0.." + MAX_READ_ATOMIC;
        }
        if ((mask & QpAttrMask.AV) != 0)
        {
            final String problem = addressVector.validate();
            if (problem != null)
            {
                return "address vector: " + problem;
            }
        }
        if ((mask & (QpAttrMask.ALT_PATH | QpAttrMask.PATH_MIG_STATE)) != 0)
        {
            return "alternate paths (APM) are not supported on this device";
        }
        if ((mask & QpAttrMask.CAP) != 0)
        {
            return "changing QP capabilities after creation is not supported";
        }
        return null;
    }
}
