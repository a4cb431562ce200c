package io.rnic.icrc;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * Direct {@link ByteBuffer} views of off-heap memory for {@link java.util.zip.CRC32#update(ByteBuffer)}, the only
 * door to the CRC-32 intrinsic for memory that is not a {@code byte[]}, without allocating per packet.
 * <p>
 * A view covers a 1.5 GiB span starting at a 1 GiB-aligned base, so one view serves every packet that starts in
 * that GiB, whether the packets sit in one big ring buffer or in flyweights re-wrapped at each frame's address.
 * Views are created once per GiB window (a small direct-mapped cache) and only ever used with position and limit
 * inside a range the caller has bounds-checked against its {@link org.agrona.DirectBuffer}; the span beyond is
 * never read. Creating a view uses the restricted {@link MemorySegment#reinterpret(long)}, hence the project's
 * {@code --enable-native-access=ALL-UNNAMED}.
 * <p>
 * Single-threaded: the views' position and limit are per-owner state.
 */
final class NativeWindows
{
    private static final int WINDOW_SHIFT = 30;
    private static final long WINDOW_MASK = ~((1L << WINDOW_SHIFT) - 1);
    private static final long VIEW_SPAN = 3L << 29; // 1.5 GiB: under the largest ByteBuffer
    private static final int SLOTS = 8;

    private final ByteBuffer[] views = new ByteBuffer[SLOTS];
    private final long[] bases = new long[SLOTS];

    /** A direct buffer with position {@code address} and limit {@code address + length}, in effect. */
    @SuppressWarnings("restricted")
    ByteBuffer view(final long address, final int length)
    {
        final long base = address & WINDOW_MASK;
        final long position = address - base;
        if (position + length > VIEW_SPAN)
        {
            return exactView(address, length); // more than 512 MiB in one call: not a packet
        }
        final int slot = (int)(base >>> WINDOW_SHIFT) & (SLOTS - 1);
        ByteBuffer view = views[slot];
        if (view == null || bases[slot] != base)
        {
            view = MemorySegment.ofAddress(base).reinterpret(VIEW_SPAN).asByteBuffer();
            views[slot] = view;
            bases[slot] = base;
        }
        view.limit((int)position + length).position((int)position);
        return view;
    }

    @SuppressWarnings("restricted")
    private static ByteBuffer exactView(final long address, final int length)
    {
        return MemorySegment.ofAddress(address).reinterpret(length).asByteBuffer();
    }
}
