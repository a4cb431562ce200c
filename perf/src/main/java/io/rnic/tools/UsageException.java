package io.rnic.tools;

/** A command line the user got wrong: printed with the command's usage, exit status 2. */
public final class UsageException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    public UsageException(final String message)
    {
        super(message);
    }
}
