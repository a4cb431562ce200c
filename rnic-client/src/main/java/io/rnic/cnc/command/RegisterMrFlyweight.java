package io.rnic.cnc.command;

import org.agrona.MutableDirectBuffer;

/**
 * REG_MR: registers part of a memfd the client sent over fds.sock. Mirrored by {@code struct rnic_reg_mr} of {@code
 * driver_protocol.h} (docs/driver-protocol.md); little-endian, {@link #LENGTH} bytes.
 */
public final class RegisterMrFlyweight extends CorrelatedMessageFlyweight
{
    /** int32: the PD */
    public static final int PD_HANDLE_OFFSET = 16;
    /** int32: RNIC_ACCESS_* (ibv_access_flags) */
    public static final int ACCESS_FLAGS_OFFSET = 20;
    /** int64: the token the memfd was sent with */
    public static final int MEMFD_TOKEN_OFFSET = 24;
    /** int64: the memfd's length, 1..2^40 */
    public static final int FILE_LENGTH_BYTES_OFFSET = 32;
    /** int64: where the region starts in the file */
    public static final int FILE_OFFSET_BYTES_OFFSET = 40;
    /** int64: the region's length, positive, offset + length at most the file length */
    public static final int LENGTH_BYTES_OFFSET = 48;
    /** uint64: the address the region's keys name (the Java client gives its virtual address) */
    public static final int IOVA_OFFSET = 56;
    /** Bytes of the message: every command of its type is exactly this long. */
    public static final int LENGTH = 64;

    public RegisterMrFlyweight wrap(final MutableDirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    public int pdHandle()
    {
        return buffer.getInt(offset + PD_HANDLE_OFFSET);
    }

    public RegisterMrFlyweight pdHandle(final int pdHandle)
    {
        buffer.putInt(offset + PD_HANDLE_OFFSET, pdHandle);
        return this;
    }

    public int accessFlags()
    {
        return buffer.getInt(offset + ACCESS_FLAGS_OFFSET);
    }

    public RegisterMrFlyweight accessFlags(final int accessFlags)
    {
        buffer.putInt(offset + ACCESS_FLAGS_OFFSET, accessFlags);
        return this;
    }

    public long memfdToken()
    {
        return buffer.getLong(offset + MEMFD_TOKEN_OFFSET);
    }

    public RegisterMrFlyweight memfdToken(final long memfdToken)
    {
        buffer.putLong(offset + MEMFD_TOKEN_OFFSET, memfdToken);
        return this;
    }

    public long fileLengthBytes()
    {
        return buffer.getLong(offset + FILE_LENGTH_BYTES_OFFSET);
    }

    public RegisterMrFlyweight fileLengthBytes(final long fileLengthBytes)
    {
        buffer.putLong(offset + FILE_LENGTH_BYTES_OFFSET, fileLengthBytes);
        return this;
    }

    public long fileOffsetBytes()
    {
        return buffer.getLong(offset + FILE_OFFSET_BYTES_OFFSET);
    }

    public RegisterMrFlyweight fileOffsetBytes(final long fileOffsetBytes)
    {
        buffer.putLong(offset + FILE_OFFSET_BYTES_OFFSET, fileOffsetBytes);
        return this;
    }

    public long lengthBytes()
    {
        return buffer.getLong(offset + LENGTH_BYTES_OFFSET);
    }

    public RegisterMrFlyweight lengthBytes(final long lengthBytes)
    {
        buffer.putLong(offset + LENGTH_BYTES_OFFSET, lengthBytes);
        return this;
    }

    public long iova()
    {
        return buffer.getLong(offset + IOVA_OFFSET);
    }

    public RegisterMrFlyweight iova(final long iova)
    {
        buffer.putLong(offset + IOVA_OFFSET, iova);
        return this;
    }
}
