package io.rnic.cnc.command;

import org.agrona.MutableDirectBuffer;

/**
 * CM_CONNECT: the driver sends a REQ for the client's QP (RESET or INIT); resolve the peer's MAC first. Mirrored by
 * {@code struct rnic_cm_connect} of {@code driver_protocol.h} (docs/driver-protocol.md); little-endian, {@link
 * #LENGTH} bytes.
 */
public final class CmConnectFlyweight extends CorrelatedMessageFlyweight
{
    /** int32: the QP */
    public static final int QP_HANDLE_OFFSET = 16;
    /** int32: the source GID index */
    public static final int SGID_INDEX_OFFSET = 20;
    /** int64: the peer's GID bytes 0..7 */
    public static final int PEER_GID_HIGH_OFFSET = 24;
    /** int64: the peer's GID bytes 8..15 */
    public static final int PEER_GID_LOW_OFFSET = 32;
    /** int32: the peer's RDMA_PS_TCP port */
    public static final int PORT_OFFSET = 40;
    /** int32: 0..255 */
    public static final int RESPONDER_RESOURCES_OFFSET = 44;
    /** int32: 0..255 */
    public static final int INITIATOR_DEPTH_OFFSET = 48;
    /** int32: 0..255, -1: the driver's default */
    public static final int TYPE_OF_SERVICE_OFFSET = 52;
    /** int32: bytes of the REQ's private data, 0..196 */
    public static final int PRIVATE_DATA_LENGTH_OFFSET = 56;
    /** bytes: the REQ's private data (196 bytes, the first privateDataLength used) */
    public static final int PRIVATE_DATA_OFFSET = 60;
    /** The most bytes {@link #PRIVATE_DATA_OFFSET} holds. */
    public static final int MAX_PRIVATE_DATA_LENGTH = 196;
    /** Bytes of the message: every command of its type is exactly this long. */
    public static final int LENGTH = 256;

    public CmConnectFlyweight wrap(final MutableDirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    public int qpHandle()
    {
        return buffer.getInt(offset + QP_HANDLE_OFFSET);
    }

    public CmConnectFlyweight qpHandle(final int qpHandle)
    {
        buffer.putInt(offset + QP_HANDLE_OFFSET, qpHandle);
        return this;
    }

    public int sgidIndex()
    {
        return buffer.getInt(offset + SGID_INDEX_OFFSET);
    }

    public CmConnectFlyweight sgidIndex(final int sgidIndex)
    {
        buffer.putInt(offset + SGID_INDEX_OFFSET, sgidIndex);
        return this;
    }

    public long peerGidHigh()
    {
        return buffer.getLong(offset + PEER_GID_HIGH_OFFSET);
    }

    public CmConnectFlyweight peerGidHigh(final long peerGidHigh)
    {
        buffer.putLong(offset + PEER_GID_HIGH_OFFSET, peerGidHigh);
        return this;
    }

    public long peerGidLow()
    {
        return buffer.getLong(offset + PEER_GID_LOW_OFFSET);
    }

    public CmConnectFlyweight peerGidLow(final long peerGidLow)
    {
        buffer.putLong(offset + PEER_GID_LOW_OFFSET, peerGidLow);
        return this;
    }

    public int port()
    {
        return buffer.getInt(offset + PORT_OFFSET);
    }

    public CmConnectFlyweight port(final int port)
    {
        buffer.putInt(offset + PORT_OFFSET, port);
        return this;
    }

    public int responderResources()
    {
        return buffer.getInt(offset + RESPONDER_RESOURCES_OFFSET);
    }

    public CmConnectFlyweight responderResources(final int responderResources)
    {
        buffer.putInt(offset + RESPONDER_RESOURCES_OFFSET, responderResources);
        return this;
    }

    public int initiatorDepth()
    {
        return buffer.getInt(offset + INITIATOR_DEPTH_OFFSET);
    }

    public CmConnectFlyweight initiatorDepth(final int initiatorDepth)
    {
        buffer.putInt(offset + INITIATOR_DEPTH_OFFSET, initiatorDepth);
        return this;
    }

    public int typeOfService()
    {
        return buffer.getInt(offset + TYPE_OF_SERVICE_OFFSET);
    }

    public CmConnectFlyweight typeOfService(final int typeOfService)
    {
        buffer.putInt(offset + TYPE_OF_SERVICE_OFFSET, typeOfService);
        return this;
    }

    public int privateDataLength()
    {
        return buffer.getInt(offset + PRIVATE_DATA_LENGTH_OFFSET);
    }

    public CmConnectFlyweight privateDataLength(final int privateDataLength)
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
    public CmConnectFlyweight privateData(final byte[] data)
    {
        PrivateData.write(buffer, offset + PRIVATE_DATA_LENGTH_OFFSET, offset + PRIVATE_DATA_OFFSET,
            MAX_PRIVATE_DATA_LENGTH, data);
        return this;
    }
}
