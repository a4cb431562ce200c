package io.rnic.tools.perftest;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The data {@code --verify} puts in messages and checks on the other side: every byte depends on the message (or
 * slot) number, its offset and the sender, so a misplaced, stale, truncated or swapped byte shows as a mismatch.
 */
public final class Patterns
{
    static final int CLIENT = 0x5A;
    static final int SERVER = 0xC3;

    private Patterns()
    {
    }

    static byte at(final long message, final long offset, final int sender)
    {
        final long x = (message * 0x9E37_79B9L) ^ (offset * 0x85EB_CA6BL) ^ sender;
        return (byte)(x ^ (x >>> 13) ^ (x >>> 24));
    }

    static void fill(final MemorySegment area, final long length, final long message, final int sender)
    {
        for (long i = 0; i < length; i++)
        {
            area.set(ValueLayout.JAVA_BYTE, i, at(message, i, sender));
        }
    }

    /** Null when the area holds the pattern, otherwise what differs first. */
    static String check(final MemorySegment area, final long length, final long message, final int sender)
    {
        for (long i = 0; i < length; i++)
        {
            final byte expected = at(message, i, sender);
            final byte actual = area.get(ValueLayout.JAVA_BYTE, i);
            if (expected != actual)
            {
                return String.format("message %d byte %d of %d: expected 0x%02x, got 0x%02x", message, i, length,
                    expected & 0xFF, actual & 0xFF);
            }
        }
        return null;
    }

    /**
     * The last byte a latency test watches for: perftest's {@code ib_write_lat} value, {@code (char)++scnt} — the
     * 1-based iteration number modulo 256 — so that either side may be the real tool. It differs from the
     * previous iteration's, which is all the watcher needs (0 after 255 is fine: the byte holds 255 then).
     */
    static byte marker(final long iteration)
    {
        return (byte)(iteration + 1);
    }

}
