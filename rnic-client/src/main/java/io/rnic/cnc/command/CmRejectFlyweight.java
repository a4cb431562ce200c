package io.rnic.cnc.command;

import org.agrona.MutableDirectBuffer;

/**
 * CM_REJECT: the driver rejects a connect request with a REJ. Mirrored by {@code struct rnic_cm_reject} of {@code
 * driver_protocol.h} (docs/driver-protocol.md); little-endian, {@link #LENGTH} bytes.
 */
public final class CmRejectFlyweight extends CorrelatedMessageFlyweight
{
    /** int32: the CM id of the request */
    public static final int CM_ID_HANDLE_OFFSET = 16;
    /** int32: bytes of the REJ's private data, 0..148 */
    public static final int PRIVATE_DATA_LENGTH_OFFSET = 20;
    /** bytes: the REJ's private data (148 bytes, the first privateDataLength used) */
    public static final int PRIVATE_DATA_OFFSET = 24;
    /** The most bytes {@link #PRIVATE_DATA_OFFSET} holds. */
    public static final int MAX_PRIVATE_DATA_LENGTH = 148;
    /** Bytes of the message: every command of its type is exactly this long. */
    public static final int LENGTH = 176;

    public CmRejectFlyweight wrap(final MutableDirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    public int cmIdHandle()
    {
        return buffer.getInt(offset + CM_ID_HANDLE_OFFSET);
    }

    public CmRejectFlyweight cmIdHandle(final int cmIdHandle)
    {
        buffer.putInt(offset + CM_ID_HANDLE_OFFSET, cmIdHandle);
        return this;
    }

    public int privateDataLength()
    {
        return buffer.getInt(offset + PRIVATE_DATA_LENGTH_OFFSET);
    }

    public CmRejectFlyweight privateDataLength(final int privateDataLength)
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
    public CmRejectFlyweight privateData(final byte[] data)
    {
        PrivateData.write(buffer, offset + PRIVATE_DATA_LENGTH_OFFSET, offset + PRIVATE_DATA_OFFSET,
            MAX_PRIVATE_DATA_LENGTH, data);
        return this;
    }
}
