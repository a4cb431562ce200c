package io.rnic.shm;

import io.rnic.RnicException;

/**
 * Shared memory could not be created or taken from another process: one line that names the memory, what is wrong
 * with it and what to do about it, fit to hand back to a client as it is.
 */
public final class ShmException extends RnicException
{
    private static final long serialVersionUID = 1L;

    public ShmException(final String message)
    {
        super(message);
    }
}
