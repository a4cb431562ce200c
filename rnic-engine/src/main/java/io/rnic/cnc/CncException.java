package io.rnic.cnc;

/** A driver that is not there, not ready, gone, or that refused a command: one line naming the fix. */
public class CncException extends RuntimeException
{
    public CncException(final String message)
    {
        super(message);
    }
}
