package io.rnic.verbs;

import org.agrona.concurrent.AtomicBuffer;

/**
 * The checks every ring that may live in shared memory ({@link CompletionQueue}, {@link WorkRequestRing}) makes of a
 * buffer before it lays itself out in it or trusts a header another process wrote. Control path only.
 */
final class SharedRingHeaders
{
    private SharedRingHeaders()
    {
    }

    /** Atomic and ordered accesses need 8-byte alignment: a buffer that lacks it is refused in one line. */
    static void checkAlignment(final AtomicBuffer buffer, final String what)
    {
        try
        {
            buffer.verifyAlignment();
        }
        catch (final IllegalStateException ex)
        {
            throw new VerbsException("a " + what + " needs an 8-byte aligned buffer: " + ex.getMessage());
        }
    }

    /**
     * Checks that {@code buffer} is long enough for a header, aligned, and starts with {@code magic} (read with an
     * acquire: the formatting side writes it last, with a release store, so the rest of the header is then visible).
     */
    static void checkFormatted(final AtomicBuffer buffer, final int headerLength, final int magic, final String what)
    {
        if (buffer.capacity() < headerLength)
        {
            throw new VerbsException("not a " + what + ": " + buffer.capacity() + " bytes, shorter than its header");
        }
        checkAlignment(buffer, what);
        final int found = buffer.getIntAcquire(0);
        if (found != magic)
        {
            throw new VerbsException("not a formatted " + what + ": magic 0x" + Integer.toHexString(found));
        }
    }
}
