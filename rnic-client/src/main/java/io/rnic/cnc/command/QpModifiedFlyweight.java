package io.rnic.cnc.command;

import org.agrona.MutableDirectBuffer;

/**
 * QP_MODIFIED: MODIFY_QP's answer; the state is in the QP file's header already. Mirrored by {@code struct
 * rnic_qp_modified} of {@code driver_protocol.h} (docs/driver-protocol.md); little-endian, {@link #LENGTH} bytes.
 */
public final class QpModifiedFlyweight extends CorrelatedMessageFlyweight
{
    /** int32: RNIC_QP_STATE_* */
    public static final int QP_STATE_OFFSET = 16;
    /** Bytes of the message: every answer of its type is exactly this long. */
    public static final int LENGTH = 24;

    public QpModifiedFlyweight wrap(final MutableDirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    public int qpState()
    {
        return buffer.getInt(offset + QP_STATE_OFFSET);
    }

    public QpModifiedFlyweight qpState(final int qpState)
    {
        buffer.putInt(offset + QP_STATE_OFFSET, qpState);
        return this;
    }
}
