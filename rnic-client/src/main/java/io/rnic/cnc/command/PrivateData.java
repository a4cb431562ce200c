package io.rnic.cnc.command;

import org.agrona.MutableDirectBuffer;

/**
 * The RDMA CM's private data in a message: an {@code int32} length, then a fixed area of bytes of which the first
 * {@code length} are the data, the rest zero. The area's size bounds the data.
 */
final class PrivateData
{
    private PrivateData()
    {
    }

    /**
     * The data.
     *
     * @throws IllegalArgumentException when the length is out of 0..{@code maxLength}.
     */
    static byte[] read(
        final MutableDirectBuffer buffer, final int lengthOffset, final int dataOffset, final int maxLength)
    {
        final int length = buffer.getInt(lengthOffset);
        if (length < 0 || length > maxLength)
        {
            throw new IllegalArgumentException("private data of " + length + " bytes: at most " + maxLength);
        }
        final byte[] data = new byte[length];
        buffer.getBytes(dataOffset, data);
        return data;
    }

    /** Writes the data and its length; the rest of the area is zeroed. */
    static void write(
        final MutableDirectBuffer buffer, final int lengthOffset, final int dataOffset, final int maxLength,
        final byte[] data)
    {
        if (data.length > maxLength)
        {
            throw new IllegalArgumentException("private data of " + data.length + " bytes: at most " + maxLength);
        }
        buffer.putInt(lengthOffset, data.length);
        buffer.putBytes(dataOffset, data);
        buffer.setMemory(dataOffset + data.length, maxLength - data.length, (byte)0);
    }
}
