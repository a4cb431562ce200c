package io.rnic.datapath.port;

import io.rnic.RnicException;

/** A port could not be opened or configured: the message says which port, what failed and what to do about it. */
public final class PortException extends RnicException
{
    private static final long serialVersionUID = 1L;

    public PortException(final String message)
    {
        super(message);
    }

    /** A failure of a lower layer (DPDK's {@code DpdkException}) reported as the port's, its message kept. */
    public PortException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
