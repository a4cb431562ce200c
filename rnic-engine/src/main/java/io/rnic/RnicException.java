package io.rnic;

/**
 * The base of every failure rnic's libraries report to their caller, so that a program can catch them in one place:
 * a verbs call refused ({@code VerbsException}, with its errno), a driver not there or refusing ({@code CncException}),
 * shared memory that cannot be made or taken ({@code ShmException}), a port that cannot be opened
 * ({@code PortException}), a connection that cannot be made ({@code RdmaCmException}), a JVM started without the flags
 * rnic needs. Each carries one line that names the cause and, where there is one, the fix.
 * <p>
 * DPDK's own {@code DpdkException} stands apart: the bindings know nothing of rnic. The datapath hands a failure to
 * open a DPDK port on as a {@code PortException}, with the {@code DpdkException} as its cause.
 */
public class RnicException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    public RnicException(final String message)
    {
        super(message);
    }

    public RnicException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
