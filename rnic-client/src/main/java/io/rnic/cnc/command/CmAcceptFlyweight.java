package io.rnic.cnc.command;

import org.agrona.MutableDirectBuffer;

/**
 * CM_ACCEPT: the driver answers a connect request (REQ_RCVD) with a REP for the client's QP. Mirrored by {@code
 * struct rnic_cm_accept} of {@code driver_protocol.h} (docs/driver-protocol.md); little-endian, {@link #LENGTH}
 * bytes.
 */
public final class CmAcceptFlyweight extends CorrelatedMessageFlyweight
{
    /** int32: the CM id of the request */
    public static final int CM_ID_HANDLE_OFFSET = 16;
    /** int32: the QP */
    public static final int QP_HANDLE_OFFSET = 20;
    /** int32: 0..255 */
    public static final int RESPONDER_RESOURCES_OFFSET = 24;
    /** int32: 0..255 */
    public static final int INITIATOR_DEPTH_OFFSET = 28;
    /** int32: bytes of the REP's private data, 0..196 */
    public static final int PRIVATE_DATA_LENGTH_OFFSET = 32;
    /** bytes: the REP's private data (196 bytes, the first privateDataLength used) */
    public static final int PRIVATE_DATA_OFFSET = 36;
    /** The most bytes {@link #PRIVATE_DATA_OFFSET} holds. */
    public static final int MAX_PRIVATE_DATA_LENGTH = 196;
    /** Bytes of the message: every command of its type is exactly this long. */
    public static final int LENGTH = 232;

    public CmAcceptFlyweight wrap(final MutableDirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    public int cmIdHandle()
    {
        return buffer.getInt(offset + CM_ID_HANDLE_OFFSET);
    }

    public CmAcceptFlyweight cmIdHandle(final int cmIdHandle)
    {
        buffer.putInt(offset + CM_ID_HANDLE_OFFSET, cmIdHandle);
        return this;
    }

    public int qpHandle()
    {
        return buffer.getInt(offset + QP_HANDLE_OFFSET);
    }

    public CmAcceptFlyweight qpHandle(final int qpHandle)
    {
        buffer.putInt(offset + QP_HANDLE_OFFSET, qpHandle);
        return this;
    }

    public int responderResources()
    {
        return buffer.getInt(offset + RESPONDER_RESOURCES_OFFSET);
    }

    public CmAcceptFlyweight responderResources(final int responderResources)
    {
        buffer.putInt(offset + RESPONDER_RESOURCES_OFFSET, responderResources);
        return this;
    }

    public int initiatorDepth()
    {
        return buffer.getInt(offset + INITIATOR_DEPTH_OFFSET);
    }

    public CmAcceptFlyweight initiatorDepth(final int initiatorDepth)
    {
        buffer.putInt(offset + INITIATOR_DEPTH_OFFSET, initiatorDepth);
        return this;
    }

    public int privateDataLength()
    {
        return buffer.getInt(offset + PRIVATE_DATA_LENGTH_OFFSET);
    }

    public CmAcceptFlyweight privateDataLength(final int privateDataLength)
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
    public CmAcceptFlyweight privateData(final byte[] data)
    {
        PrivateData.write(buffer, offset + PRIVATE_DATA_LENGTH_OFFSET, offset + PRIVATE_DATA_OFFSET,
            MAX_PRIVATE_DATA_LENGTH, data);
        return this;
    }
}
