package io.rnic.cnc;

import io.rnic.RnicException;

/** A driver that is not there, not ready, gone, or that refused a command: one line naming the fix. */
public class CncException extends RnicException
{
    public CncException(final String message)
    {
        super(message);
    }
}
