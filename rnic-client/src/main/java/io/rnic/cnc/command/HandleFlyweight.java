package io.rnic.cnc.command;

import org.agrona.MutableDirectBuffer;

/**
 * A command naming one of the client's objects: DEALLOC_PD, DEREG_MR, DESTROY_CQ, DESTROY_QP, DEALLOC_MW, QUERY_SRQ,
 * DESTROY_SRQ, CM_DISCONNECT, CM_RELEASE; and the answer HANDLE (ALLOC_PD's PD, CM_CONNECT's CM id). Mirrored by
 * {@code struct rnic_handle} of {@code driver_protocol.h} (docs/driver-protocol.md); little-endian, {@link #LENGTH}
 * bytes.
 */
public final class HandleFlyweight extends CorrelatedMessageFlyweight
{
    /** int32: the driver's handle of the object */
    public static final int HANDLE_OFFSET = 16;
    /** Bytes of the message: every command of its type is exactly this long. */
    public static final int LENGTH = 24;

    public HandleFlyweight wrap(final MutableDirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    public int handle()
    {
        return buffer.getInt(offset + HANDLE_OFFSET);
    }

    public HandleFlyweight handle(final int handle)
    {
        buffer.putInt(offset + HANDLE_OFFSET, handle);
        return this;
    }
}
