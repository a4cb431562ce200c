package io.rnic.cnc.command;

import org.agrona.MutableDirectBuffer;

/**
 * QP_CREATED: CREATE_QP's answer; both rings and the header are formatted in the file. Mirrored by {@code struct
 * rnic_qp_created} of {@code driver_protocol.h} (docs/driver-protocol.md); little-endian, {@link #LENGTH} bytes.
 */
public final class QpCreatedFlyweight extends CorrelatedMessageFlyweight
{
    /** int32: the QP */
    public static final int QP_HANDLE_OFFSET = 16;
    /** uint32: its QPN (24 bits) */
    public static final int QP_NUM_OFFSET = 20;
    /** Bytes of the message: every answer of its type is exactly this long. */
    public static final int LENGTH = 24;

    public QpCreatedFlyweight wrap(final MutableDirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    public int qpHandle()
    {
        return buffer.getInt(offset + QP_HANDLE_OFFSET);
    }

    public QpCreatedFlyweight qpHandle(final int qpHandle)
    {
        buffer.putInt(offset + QP_HANDLE_OFFSET, qpHandle);
        return this;
    }

    public int qpNum()
    {
        return buffer.getInt(offset + QP_NUM_OFFSET);
    }

    public QpCreatedFlyweight qpNum(final int qpNum)
    {
        buffer.putInt(offset + QP_NUM_OFFSET, qpNum);
        return this;
    }
}
