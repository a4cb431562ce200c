package io.rnic.cnc.command;

import org.agrona.MutableDirectBuffer;

/**
 * CM_LISTEN and CM_STOP_LISTEN: an RDMA_PS_TCP port of the driver's RDMA CM. Mirrored by {@code struct rnic_cm_port}
 * of {@code driver_protocol.h} (docs/driver-protocol.md); little-endian, {@link #LENGTH} bytes.
 */
public final class CmPortFlyweight extends CorrelatedMessageFlyweight
{
    /** int32: 0..65535 */
    public static final int PORT_OFFSET = 16;
    /** Bytes of the message: every command of its type is exactly this long. */
    public static final int LENGTH = 24;

    public CmPortFlyweight wrap(final MutableDirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    public int port()
    {
        return buffer.getInt(offset + PORT_OFFSET);
    }

    public CmPortFlyweight port(final int port)
    {
        buffer.putInt(offset + PORT_OFFSET, port);
        return this;
    }
}
