package io.rnic.cnc.command;

import org.agrona.MutableDirectBuffer;

/**
 * CREATE_SRQ: a shared receive queue whose ring is a memfd the driver formats. Mirrored by {@code struct
 * rnic_create_srq} of {@code driver_protocol.h} (docs/driver-protocol.md); little-endian, {@link #LENGTH} bytes.
 */
public final class CreateSrqFlyweight extends CorrelatedMessageFlyweight
{
    /** int32: the PD */
    public static final int PD_HANDLE_OFFSET = 16;
    /** int32: 1..the device's max_srq_wr */
    public static final int MAX_WR_OFFSET = 20;
    /** int32: 1..RNIC_MAX_SGE */
    public static final int MAX_SGE_OFFSET = 24;
    /** int32: the limit event's threshold, 0: none */
    public static final int SRQ_LIMIT_OFFSET = 28;
    /** int64: the token the memfd was sent with */
    public static final int MEMFD_TOKEN_OFFSET = 32;
    /** int64: exactly rnic_srq_file_length(max WR, max SGE) */
    public static final int FILE_LENGTH_BYTES_OFFSET = 40;
    /** Bytes of the message: every command of its type is exactly this long. */
    public static final int LENGTH = 48;

    public CreateSrqFlyweight wrap(final MutableDirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    public int pdHandle()
    {
        return buffer.getInt(offset + PD_HANDLE_OFFSET);
    }

    public CreateSrqFlyweight pdHandle(final int pdHandle)
    {
        buffer.putInt(offset + PD_HANDLE_OFFSET, pdHandle);
        return this;
    }

    public int maxWr()
    {
        return buffer.getInt(offset + MAX_WR_OFFSET);
    }

    public CreateSrqFlyweight maxWr(final int maxWr)
    {
        buffer.putInt(offset + MAX_WR_OFFSET, maxWr);
        return this;
    }

    public int maxSge()
    {
        return buffer.getInt(offset + MAX_SGE_OFFSET);
    }

    public CreateSrqFlyweight maxSge(final int maxSge)
    {
        buffer.putInt(offset + MAX_SGE_OFFSET, maxSge);
        return this;
    }

    public int srqLimit()
    {
        return buffer.getInt(offset + SRQ_LIMIT_OFFSET);
    }

    public CreateSrqFlyweight srqLimit(final int srqLimit)
    {
        buffer.putInt(offset + SRQ_LIMIT_OFFSET, srqLimit);
        return this;
    }

    public long memfdToken()
    {
        return buffer.getLong(offset + MEMFD_TOKEN_OFFSET);
    }

    public CreateSrqFlyweight memfdToken(final long memfdToken)
    {
        buffer.putLong(offset + MEMFD_TOKEN_OFFSET, memfdToken);
        return this;
    }

    public long fileLengthBytes()
    {
        return buffer.getLong(offset + FILE_LENGTH_BYTES_OFFSET);
    }

    public CreateSrqFlyweight fileLengthBytes(final long fileLengthBytes)
    {
        buffer.putLong(offset + FILE_LENGTH_BYTES_OFFSET, fileLengthBytes);
        return this;
    }
}
