package io.rnic.datapath.port;

/** A port could not be opened or configured: the message says which port, what failed and what to do about it. */
public final class PortException extends IllegalArgumentException
{
    private static final long serialVersionUID = 1L;

    public PortException(final String message)
    {
        super(message);
    }
}
