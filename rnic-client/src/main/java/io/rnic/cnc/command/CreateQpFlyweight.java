package io.rnic.cnc.command;

import org.agrona.MutableDirectBuffer;

/**
 * CREATE_QP: a queue pair whose send and receive rings are a memfd the driver formats. Mirrored by {@code struct
 * rnic_create_qp} of {@code driver_protocol.h} (docs/driver-protocol.md); little-endian, {@link #LENGTH} bytes.
 */
public final class CreateQpFlyweight extends CorrelatedMessageFlyweight
{
    /** int32: the PD */
    public static final int PD_HANDLE_OFFSET = 16;
    /** int32: the send CQ */
    public static final int SEND_CQ_HANDLE_OFFSET = 20;
    /** int32: the receive CQ */
    public static final int RECV_CQ_HANDLE_OFFSET = 24;
    /**
     * int32: the SRQ the QP takes its receives from; 0: none (its receive ring is then one entry of one SGE, unused)
     */
    public static final int SRQ_HANDLE_OFFSET = 28;
    /** int32: RNIC_QP_TYPE_* (enum ibv_qp_type: RC 2, UC 3, UD 4) */
    public static final int QP_TYPE_OFFSET = 32;
    /** int32: 1..RNIC_CTL_MAX_QP_WR */
    public static final int MAX_SEND_WR_OFFSET = 36;
    /** int32: 1..RNIC_CTL_MAX_QP_WR */
    public static final int MAX_RECV_WR_OFFSET = 40;
    /** int32: 1..RNIC_MAX_SGE */
    public static final int MAX_SEND_SGE_OFFSET = 44;
    /** int32: 1..RNIC_MAX_SGE */
    public static final int MAX_RECV_SGE_OFFSET = 48;
    /** int32: 1: every send completes (sq_sig_all), 0: only those flagged signaled */
    public static final int SIGNAL_ALL_OFFSET = 52;
    /** int64: the token the memfd was sent with */
    public static final int MEMFD_TOKEN_OFFSET = 56;
    /** int64: exactly rnic_qpf_file_length(max send WR, max send SGE, max recv WR, max recv SGE) */
    public static final int FILE_LENGTH_BYTES_OFFSET = 64;
    /** Bytes of the message: every command of its type is exactly this long. */
    public static final int LENGTH = 72;

    public CreateQpFlyweight wrap(final MutableDirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    public int pdHandle()
    {
        return buffer.getInt(offset + PD_HANDLE_OFFSET);
    }

    public CreateQpFlyweight pdHandle(final int pdHandle)
    {
        buffer.putInt(offset + PD_HANDLE_OFFSET, pdHandle);
        return this;
    }

    public int sendCqHandle()
    {
        return buffer.getInt(offset + SEND_CQ_HANDLE_OFFSET);
    }

    public CreateQpFlyweight sendCqHandle(final int sendCqHandle)
    {
        buffer.putInt(offset + SEND_CQ_HANDLE_OFFSET, sendCqHandle);
        return this;
    }

    public int recvCqHandle()
    {
        return buffer.getInt(offset + RECV_CQ_HANDLE_OFFSET);
    }

    public CreateQpFlyweight recvCqHandle(final int recvCqHandle)
    {
        buffer.putInt(offset + RECV_CQ_HANDLE_OFFSET, recvCqHandle);
        return this;
    }

    public int srqHandle()
    {
        return buffer.getInt(offset + SRQ_HANDLE_OFFSET);
    }

    public CreateQpFlyweight srqHandle(final int srqHandle)
    {
        buffer.putInt(offset + SRQ_HANDLE_OFFSET, srqHandle);
        return this;
    }

    public int qpType()
    {
        return buffer.getInt(offset + QP_TYPE_OFFSET);
    }

    public CreateQpFlyweight qpType(final int qpType)
    {
        buffer.putInt(offset + QP_TYPE_OFFSET, qpType);
        return this;
    }

    public int maxSendWr()
    {
        return buffer.getInt(offset + MAX_SEND_WR_OFFSET);
    }

    public CreateQpFlyweight maxSendWr(final int maxSendWr)
    {
        buffer.putInt(offset + MAX_SEND_WR_OFFSET, maxSendWr);
        return this;
    }

    public int maxRecvWr()
    {
        return buffer.getInt(offset + MAX_RECV_WR_OFFSET);
    }

    public CreateQpFlyweight maxRecvWr(final int maxRecvWr)
    {
        buffer.putInt(offset + MAX_RECV_WR_OFFSET, maxRecvWr);
        return this;
    }

    public int maxSendSge()
    {
        return buffer.getInt(offset + MAX_SEND_SGE_OFFSET);
    }

    public CreateQpFlyweight maxSendSge(final int maxSendSge)
    {
        buffer.putInt(offset + MAX_SEND_SGE_OFFSET, maxSendSge);
        return this;
    }

    public int maxRecvSge()
    {
        return buffer.getInt(offset + MAX_RECV_SGE_OFFSET);
    }

    public CreateQpFlyweight maxRecvSge(final int maxRecvSge)
    {
        buffer.putInt(offset + MAX_RECV_SGE_OFFSET, maxRecvSge);
        return this;
    }

    public int signalAll()
    {
        return buffer.getInt(offset + SIGNAL_ALL_OFFSET);
    }

    public CreateQpFlyweight signalAll(final int signalAll)
    {
        buffer.putInt(offset + SIGNAL_ALL_OFFSET, signalAll);
        return this;
    }

    public long memfdToken()
    {
        return buffer.getLong(offset + MEMFD_TOKEN_OFFSET);
    }

    public CreateQpFlyweight memfdToken(final long memfdToken)
    {
        buffer.putLong(offset + MEMFD_TOKEN_OFFSET, memfdToken);
        return this;
    }

    public long fileLengthBytes()
    {
        return buffer.getLong(offset + FILE_LENGTH_BYTES_OFFSET);
    }

    public CreateQpFlyweight fileLengthBytes(final long fileLengthBytes)
    {
        buffer.putLong(offset + FILE_LENGTH_BYTES_OFFSET, fileLengthBytes);
        return this;
    }
}
