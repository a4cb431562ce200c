package io.rnic.verbs;

/**
 * A verbs call that cannot be honoured, with a message that says what was wrong (the JVM's counterpart of an
 * ibverbs call returning EINVAL, ENOMEM, …). Only ever thrown on the control path, never on the datapath.
 */
public final class VerbsException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    public VerbsException(final String message)
    {
        super(message);
    }
}
