package io.rnic.cnc.command;

import org.agrona.MutableDirectBuffer;

/**
 * MODIFY_QP: every attribute travels whatever the mask; the mask says which the driver applies (ibv_modify_qp).
 * Mirrored by {@code struct rnic_modify_qp} of {@code driver_protocol.h} (docs/driver-protocol.md); little-endian,
 * {@link #LENGTH} bytes.
 */
public final class ModifyQpFlyweight extends CorrelatedMessageFlyweight
{
    /** int32: the QP */
    public static final int QP_HANDLE_OFFSET = 16;
    /** int32: RNIC_QP_MASK_* (enum ibv_qp_attr_mask) */
    public static final int ATTR_MASK_OFFSET = 20;
    /** int32: RNIC_QP_STATE_* (enum ibv_qp_state), -1: none */
    public static final int QP_STATE_OFFSET = 24;
    /** int32: RNIC_QP_STATE_*, -1: none */
    public static final int CUR_QP_STATE_OFFSET = 28;
    /** int32: RNIC_PATH_MTU_* (enum ibv_mtu: 1 = 256 .. 5 = 4096), 0: none */
    public static final int PATH_MTU_OFFSET = 32;
    /** uint32: Q_Key */
    public static final int QKEY_OFFSET = 36;
    /** uint32: 24 bits */
    public static final int RQ_PSN_OFFSET = 40;
    /** uint32: 24 bits */
    public static final int SQ_PSN_OFFSET = 44;
    /** uint32: 24 bits */
    public static final int DEST_QP_NUM_OFFSET = 48;
    /** int32: RNIC_ACCESS_* */
    public static final int QP_ACCESS_FLAGS_OFFSET = 52;
    /** int32 */
    public static final int PKEY_INDEX_OFFSET = 56;
    /** int32: 1 */
    public static final int PORT_NUM_OFFSET = 60;
    /** int32: local ACK timeout, 4.096 us * 2^timeout */
    public static final int TIMEOUT_OFFSET = 64;
    /** int32 */
    public static final int RETRY_CNT_OFFSET = 68;
    /** int32 */
    public static final int RNR_RETRY_OFFSET = 72;
    /** int32 */
    public static final int MIN_RNR_TIMER_OFFSET = 76;
    /** int32 */
    public static final int MAX_RD_ATOMIC_OFFSET = 80;
    /** int32 */
    public static final int MAX_DEST_RD_ATOMIC_OFFSET = 84;
    /** int64: ah_attr.grh.dgid bytes 0..7 as a big-endian number */
    public static final int DGID_HIGH_OFFSET = 88;
    /** int64: ah_attr.grh.dgid bytes 8..15 */
    public static final int DGID_LOW_OFFSET = 96;
    /** int64: the destination MAC, its first octet the most significant (resolve it first: RESOLVE_MAC) */
    public static final int DEST_MAC_OFFSET = 104;
    /** int32: ah_attr.grh.sgid_index */
    public static final int SGID_INDEX_OFFSET = 112;
    /** int32: ah_attr.grh.hop_limit */
    public static final int HOP_LIMIT_OFFSET = 116;
    /** int32: ah_attr.grh.traffic_class */
    public static final int TRAFFIC_CLASS_OFFSET = 120;
    /** int32: ah_attr.grh.flow_label */
    public static final int FLOW_LABEL_OFFSET = 124;
    /** int32: ah_attr.sl */
    public static final int SERVICE_LEVEL_OFFSET = 128;
    /** Bytes of the message: every command of its type is exactly this long. */
    public static final int LENGTH = 136;

    public ModifyQpFlyweight wrap(final MutableDirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    public int qpHandle()
    {
        return buffer.getInt(offset + QP_HANDLE_OFFSET);
    }

    public ModifyQpFlyweight qpHandle(final int qpHandle)
    {
        buffer.putInt(offset + QP_HANDLE_OFFSET, qpHandle);
        return this;
    }

    public int attrMask()
    {
        return buffer.getInt(offset + ATTR_MASK_OFFSET);
    }

    public ModifyQpFlyweight attrMask(final int attrMask)
    {
        buffer.putInt(offset + ATTR_MASK_OFFSET, attrMask);
        return this;
    }

    public int qpState()
    {
        return buffer.getInt(offset + QP_STATE_OFFSET);
    }

    public ModifyQpFlyweight qpState(final int qpState)
    {
        buffer.putInt(offset + QP_STATE_OFFSET, qpState);
        return this;
    }

    public int curQpState()
    {
        return buffer.getInt(offset + CUR_QP_STATE_OFFSET);
    }

    public ModifyQpFlyweight curQpState(final int curQpState)
    {
        buffer.putInt(offset + CUR_QP_STATE_OFFSET, curQpState);
        return this;
    }

    public int pathMtu()
    {
        return buffer.getInt(offset + PATH_MTU_OFFSET);
    }

    public ModifyQpFlyweight pathMtu(final int pathMtu)
    {
        buffer.putInt(offset + PATH_MTU_OFFSET, pathMtu);
        return this;
    }

    public int qkey()
    {
        return buffer.getInt(offset + QKEY_OFFSET);
    }

    public ModifyQpFlyweight qkey(final int qkey)
    {
        buffer.putInt(offset + QKEY_OFFSET, qkey);
        return this;
    }

    public int rqPsn()
    {
        return buffer.getInt(offset + RQ_PSN_OFFSET);
    }

    public ModifyQpFlyweight rqPsn(final int rqPsn)
    {
        buffer.putInt(offset + RQ_PSN_OFFSET, rqPsn);
        return this;
    }

    public int sqPsn()
    {
        return buffer.getInt(offset + SQ_PSN_OFFSET);
    }

    public ModifyQpFlyweight sqPsn(final int sqPsn)
    {
        buffer.putInt(offset + SQ_PSN_OFFSET, sqPsn);
        return this;
    }

    public int destQpNum()
    {
        return buffer.getInt(offset + DEST_QP_NUM_OFFSET);
    }

    public ModifyQpFlyweight destQpNum(final int destQpNum)
    {
        buffer.putInt(offset + DEST_QP_NUM_OFFSET, destQpNum);
        return this;
    }

    public int qpAccessFlags()
    {
        return buffer.getInt(offset + QP_ACCESS_FLAGS_OFFSET);
    }

    public ModifyQpFlyweight qpAccessFlags(final int qpAccessFlags)
    {
        buffer.putInt(offset + QP_ACCESS_FLAGS_OFFSET, qpAccessFlags);
        return this;
    }

    public int pkeyIndex()
    {
        return buffer.getInt(offset + PKEY_INDEX_OFFSET);
    }

    public ModifyQpFlyweight pkeyIndex(final int pkeyIndex)
    {
        buffer.putInt(offset + PKEY_INDEX_OFFSET, pkeyIndex);
        return this;
    }

    public int portNum()
    {
        return buffer.getInt(offset + PORT_NUM_OFFSET);
    }

    public ModifyQpFlyweight portNum(final int portNum)
    {
        buffer.putInt(offset + PORT_NUM_OFFSET, portNum);
        return this;
    }

    public int timeout()
    {
        return buffer.getInt(offset + TIMEOUT_OFFSET);
    }

    public ModifyQpFlyweight timeout(final int timeout)
    {
        buffer.putInt(offset + TIMEOUT_OFFSET, timeout);
        return this;
    }

    public int retryCnt()
    {
        return buffer.getInt(offset + RETRY_CNT_OFFSET);
    }

    public ModifyQpFlyweight retryCnt(final int retryCnt)
    {
        buffer.putInt(offset + RETRY_CNT_OFFSET, retryCnt);
        return this;
    }

    public int rnrRetry()
    {
        return buffer.getInt(offset + RNR_RETRY_OFFSET);
    }

    public ModifyQpFlyweight rnrRetry(final int rnrRetry)
    {
        buffer.putInt(offset + RNR_RETRY_OFFSET, rnrRetry);
        return this;
    }

    public int minRnrTimer()
    {
        return buffer.getInt(offset + MIN_RNR_TIMER_OFFSET);
    }

    public ModifyQpFlyweight minRnrTimer(final int minRnrTimer)
    {
        buffer.putInt(offset + MIN_RNR_TIMER_OFFSET, minRnrTimer);
        return this;
    }

    public int maxRdAtomic()
    {
        return buffer.getInt(offset + MAX_RD_ATOMIC_OFFSET);
    }

    public ModifyQpFlyweight maxRdAtomic(final int maxRdAtomic)
    {
        buffer.putInt(offset + MAX_RD_ATOMIC_OFFSET, maxRdAtomic);
        return this;
    }

    public int maxDestRdAtomic()
    {
        return buffer.getInt(offset + MAX_DEST_RD_ATOMIC_OFFSET);
    }

    public ModifyQpFlyweight maxDestRdAtomic(final int maxDestRdAtomic)
    {
        buffer.putInt(offset + MAX_DEST_RD_ATOMIC_OFFSET, maxDestRdAtomic);
        return this;
    }

    public long dgidHigh()
    {
        return buffer.getLong(offset + DGID_HIGH_OFFSET);
    }

    public ModifyQpFlyweight dgidHigh(final long dgidHigh)
    {
        buffer.putLong(offset + DGID_HIGH_OFFSET, dgidHigh);
        return this;
    }

    public long dgidLow()
    {
        return buffer.getLong(offset + DGID_LOW_OFFSET);
    }

    public ModifyQpFlyweight dgidLow(final long dgidLow)
    {
        buffer.putLong(offset + DGID_LOW_OFFSET, dgidLow);
        return this;
    }

    public long destMac()
    {
        return buffer.getLong(offset + DEST_MAC_OFFSET);
    }

    public ModifyQpFlyweight destMac(final long destMac)
    {
        buffer.putLong(offset + DEST_MAC_OFFSET, destMac);
        return this;
    }

    public int sgidIndex()
    {
        return buffer.getInt(offset + SGID_INDEX_OFFSET);
    }

    public ModifyQpFlyweight sgidIndex(final int sgidIndex)
    {
        buffer.putInt(offset + SGID_INDEX_OFFSET, sgidIndex);
        return this;
    }

    public int hopLimit()
    {
        return buffer.getInt(offset + HOP_LIMIT_OFFSET);
    }

    public ModifyQpFlyweight hopLimit(final int hopLimit)
    {
        buffer.putInt(offset + HOP_LIMIT_OFFSET, hopLimit);
        return this;
    }

    public int trafficClass()
    {
        return buffer.getInt(offset + TRAFFIC_CLASS_OFFSET);
    }

    public ModifyQpFlyweight trafficClass(final int trafficClass)
    {
        buffer.putInt(offset + TRAFFIC_CLASS_OFFSET, trafficClass);
        return this;
    }

    public int flowLabel()
    {
        return buffer.getInt(offset + FLOW_LABEL_OFFSET);
    }

    public ModifyQpFlyweight flowLabel(final int flowLabel)
    {
        buffer.putInt(offset + FLOW_LABEL_OFFSET, flowLabel);
        return this;
    }

    public int serviceLevel()
    {
        return buffer.getInt(offset + SERVICE_LEVEL_OFFSET);
    }

    public ModifyQpFlyweight serviceLevel(final int serviceLevel)
    {
        buffer.putInt(offset + SERVICE_LEVEL_OFFSET, serviceLevel);
        return this;
    }
}
