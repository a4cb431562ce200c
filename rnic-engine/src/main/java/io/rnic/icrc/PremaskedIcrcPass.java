package io.rnic.icrc;

import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;

import java.util.zip.CRC32;

/**
 * {@link PremaskedIcrc} for a frame whose payload is not in the frame's buffer: a DPDK port sends it from the memory
 * region where it lies, in segments chained after the headers. The builder prepares the headers as for
 * {@link PremaskedIcrc} (ones in the masked fields and in the 8 bytes before the IP header); the pass then runs the
 * {@link CRC32} intrinsic over the headers ({@link #start}), continues it over each piece of payload where it lies
 * ({@link #add}) and over the pad bytes, and {@link #finish}es: one CRC over the bytes in wire order, each read once,
 * none copied.
 * <p>
 * Heap buffers go through {@code update(byte[], ...)}, native memory through {@link NativeWindows} views: one set
 * for the frames, another for the payload, so that a frame's buffer and a region that share a window slot do not
 * evict each other's view at every packet. Allocates nothing per packet. Single-threaded.
 */
public final class PremaskedIcrcPass
{
    private final CRC32 crc = new CRC32();
    private final NativeWindows frameWindows = new NativeWindows();
    private final NativeWindows payloadWindows = new NativeWindows();

    /**
     * Starts the pass over the headers: from 8 bytes before {@code ipOffset} (ones, like the masked fields) up to
     * {@code end}, the first payload byte's place.
     */
    public void start(final DirectBuffer buffer, final int ipOffset, final int end)
    {
        crc.reset();
        add(buffer, ipOffset - Icrc.PREFIX_LENGTH, end);
    }

    /** Continues the pass over {@code [offset, end)} of {@code buffer} (the pad bytes, after the payload). */
    public void add(final DirectBuffer buffer, final int offset, final int end)
    {
        final int length = Icrc.checkedLength(buffer, offset, end);
        if (length == 0)
        {
            return;
        }
        final byte[] array = buffer.byteArray();
        if (array != null)
        {
            crc.update(array, (int)(buffer.addressOffset() - BufferUtil.ARRAY_BASE_OFFSET) + offset, length);
        }
        else
        {
            crc.update(frameWindows.view(buffer.addressOffset() + offset, length));
        }
    }

    /** Continues the pass over {@code length} bytes of native memory at {@code address} (checked by the caller). */
    public void add(final long address, final int length)
    {
        crc.update(payloadWindows.view(address, length));
    }

    /** @return the ICRC value, for {@link Icrc#writeWire}. */
    public int finish()
    {
        return (int)crc.getValue();
    }
}
