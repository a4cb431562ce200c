package io.rnic.verbs;

import io.rnic.RnicException;

/**
 * A verbs call that cannot be honoured, with a message that says what was wrong (the JVM's counterpart of an
 * ibverbs call returning EINVAL, ENOMEM, …). Only ever thrown on the control path, never on the datapath. Calls that
 * have an ibverbs counterpart with a defined errno carry it ({@link #errno()}), its name first in the message.
 */
public final class VerbsException extends RnicException
{
    private static final long serialVersionUID = 1L;

    private final int errno;

    public VerbsException(final String message)
    {
        super(message);
        this.errno = Errno.EINVAL;
    }

    public VerbsException(final int errno, final String message)
    {
        super(Errno.name(errno) + ": " + message);
        this.errno = errno;
    }

    private VerbsException(final String message, final int errno)
    {
        super(message);
        this.errno = errno;
    }

    /**
     * A refusal another process made (a driver, for its client), with the errno it named and its message as it wrote
     * it, the errno's name already first.
     */
    public static VerbsException relayed(final int errno, final String message)
    {
        return new VerbsException(message, errno);
    }

    /** Whether the message starts with the errno's name, i.e. the errno was given rather than EINVAL by default. */
    public boolean namesErrno()
    {
        final String message = getMessage();
        return message != null && message.startsWith(Errno.name(errno) + ": ");
    }

    /** The errno ibverbs would return for the same mistake ({@link Errno}); EINVAL when none was given. */
    public int errno()
    {
        return errno;
    }
}
