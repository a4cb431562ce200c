package io.rnic.cnc.command;

import org.agrona.MutableDirectBuffer;

/**
 * CM_ID_CHANGE: CM_POLL's answer, the next change among the client's CM ids, whole (not a delta). Mirrored by {@code
 * struct rnic_cm_id_change} of {@code driver_protocol.h} (docs/driver-protocol.md); little-endian, {@link #LENGTH}
 * bytes.
 */
public final class CmIdChangeFlyweight extends CorrelatedMessageFlyweight
{
    /**
     * int32: 0 KIND_NONE (nothing changed; the rest is zero), 1 KIND_REQUEST (a REQ to one of the client's ports: a
     * new id in REQ_RCVD), 2 KIND_UPDATE
     */
    public static final int KIND_OFFSET = 16;
    /** int32: the CM id */
    public static final int CM_ID_HANDLE_OFFSET = 20;
    /** int32: RNIC_CM_STATE_* */
    public static final int CM_STATE_OFFSET = 24;
    /** int32: IB_CM_REJ_*, 0: none */
    public static final int REJECT_REASON_OFFSET = 28;
    /** uint32 */
    public static final int REMOTE_QP_NUM_OFFSET = 32;
    /** uint32 */
    public static final int REMOTE_PSN_OFFSET = 36;
    /** uint32 */
    public static final int LOCAL_PSN_OFFSET = 40;
    /** int32: RNIC_PATH_MTU_* (enum ibv_mtu), 0: none yet */
    public static final int PATH_MTU_OFFSET = 44;
    /** int32 */
    public static final int RESPONDER_RESOURCES_OFFSET = 48;
    /** int32 */
    public static final int INITIATOR_DEPTH_OFFSET = 52;
    /** int64 */
    public static final int PEER_GID_HIGH_OFFSET = 56;
    /** int64 */
    public static final int PEER_GID_LOW_OFFSET = 64;
    /** int32 */
    public static final int SERVICE_PORT_OFFSET = 72;
    /** int32 */
    public static final int PEER_PORT_OFFSET = 76;
    /** int32: bytes of the peer's private data, 0..196 */
    public static final int PRIVATE_DATA_LENGTH_OFFSET = 80;
    /** bytes: the peer's private data (196 bytes, the first privateDataLength used) */
    public static final int PRIVATE_DATA_OFFSET = 84;
    /** The most bytes {@link #PRIVATE_DATA_OFFSET} holds. */
    public static final int MAX_PRIVATE_DATA_LENGTH = 196;
    /** Bytes of the message: every answer of its type is exactly this long. */
    public static final int LENGTH = 280;

    public CmIdChangeFlyweight wrap(final MutableDirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    public int kind()
    {
        return buffer.getInt(offset + KIND_OFFSET);
    }

    public CmIdChangeFlyweight kind(final int kind)
    {
        buffer.putInt(offset + KIND_OFFSET, kind);
        return this;
    }

    public int cmIdHandle()
    {
        return buffer.getInt(offset + CM_ID_HANDLE_OFFSET);
    }

    public CmIdChangeFlyweight cmIdHandle(final int cmIdHandle)
    {
        buffer.putInt(offset + CM_ID_HANDLE_OFFSET, cmIdHandle);
        return this;
    }

    public int cmState()
    {
        return buffer.getInt(offset + CM_STATE_OFFSET);
    }

    public CmIdChangeFlyweight cmState(final int cmState)
    {
        buffer.putInt(offset + CM_STATE_OFFSET, cmState);
        return this;
    }

    public int rejectReason()
    {
        return buffer.getInt(offset + REJECT_REASON_OFFSET);
    }

    public CmIdChangeFlyweight rejectReason(final int rejectReason)
    {
        buffer.putInt(offset + REJECT_REASON_OFFSET, rejectReason);
        return this;
    }

    public int remoteQpNum()
    {
        return buffer.getInt(offset + REMOTE_QP_NUM_OFFSET);
    }

    public CmIdChangeFlyweight remoteQpNum(final int remoteQpNum)
    {
        buffer.putInt(offset + REMOTE_QP_NUM_OFFSET, remoteQpNum);
        return this;
    }

    public int remotePsn()
    {
        return buffer.getInt(offset + REMOTE_PSN_OFFSET);
    }

    public CmIdChangeFlyweight remotePsn(final int remotePsn)
    {
        buffer.putInt(offset + REMOTE_PSN_OFFSET, remotePsn);
        return this;
    }

    public int localPsn()
    {
        return buffer.getInt(offset + LOCAL_PSN_OFFSET);
    }

    public CmIdChangeFlyweight localPsn(final int localPsn)
    {
        buffer.putInt(offset + LOCAL_PSN_OFFSET, localPsn);
        return this;
    }

    public int pathMtu()
    {
        return buffer.getInt(offset + PATH_MTU_OFFSET);
    }

    public CmIdChangeFlyweight pathMtu(final int pathMtu)
    {
        buffer.putInt(offset + PATH_MTU_OFFSET, pathMtu);
        return this;
    }

    public int responderResources()
    {
        return buffer.getInt(offset + RESPONDER_RESOURCES_OFFSET);
    }

    public CmIdChangeFlyweight responderResources(final int responderResources)
    {
        buffer.putInt(offset + RESPONDER_RESOURCES_OFFSET, responderResources);
        return this;
    }

    public int initiatorDepth()
    {
        return buffer.getInt(offset + INITIATOR_DEPTH_OFFSET);
    }

    public CmIdChangeFlyweight initiatorDepth(final int initiatorDepth)
    {
        buffer.putInt(offset + INITIATOR_DEPTH_OFFSET, initiatorDepth);
        return this;
    }

    public long peerGidHigh()
    {
        return buffer.getLong(offset + PEER_GID_HIGH_OFFSET);
    }

    public CmIdChangeFlyweight peerGidHigh(final long peerGidHigh)
    {
        buffer.putLong(offset + PEER_GID_HIGH_OFFSET, peerGidHigh);
        return this;
    }

    public long peerGidLow()
    {
        return buffer.getLong(offset + PEER_GID_LOW_OFFSET);
    }

    public CmIdChangeFlyweight peerGidLow(final long peerGidLow)
    {
        buffer.putLong(offset + PEER_GID_LOW_OFFSET, peerGidLow);
        return this;
    }

    public int servicePort()
    {
        return buffer.getInt(offset + SERVICE_PORT_OFFSET);
    }

    public CmIdChangeFlyweight servicePort(final int servicePort)
    {
        buffer.putInt(offset + SERVICE_PORT_OFFSET, servicePort);
        return this;
    }

    public int peerPort()
    {
        return buffer.getInt(offset + PEER_PORT_OFFSET);
    }

    public CmIdChangeFlyweight peerPort(final int peerPort)
    {
        buffer.putInt(offset + PEER_PORT_OFFSET, peerPort);
        return this;
    }

    public int privateDataLength()
    {
        return buffer.getInt(offset + PRIVATE_DATA_LENGTH_OFFSET);
    }

    public CmIdChangeFlyweight privateDataLength(final int privateDataLength)
    {
        buffer.putInt(offset + PRIVATE_DATA_LENGTH_OFFSET, privateDataLength);
        return this;
    }

    /**
     * The private data, {@link #privateDataLength()} bytes.
     *
     * @throws IllegalArgumentException when the length is out of 0..{@link #MAX_PRIVATE_DATA_LENGTH}.
     */
    public byte[] privateData()
    {
        return PrivateData.read(buffer, offset + PRIVATE_DATA_LENGTH_OFFSET, offset + PRIVATE_DATA_OFFSET,
            MAX_PRIVATE_DATA_LENGTH);
    }

    /** Sets the private data and its length; the rest of the field is zeroed. */
    public CmIdChangeFlyweight privateData(final byte[] data)
    {
        PrivateData.write(buffer, offset + PRIVATE_DATA_LENGTH_OFFSET, offset + PRIVATE_DATA_OFFSET,
            MAX_PRIVATE_DATA_LENGTH, data);
        return this;
    }
}
