package io.rnic.dpdkbindings;

/** A DPDK call failed, or DPDK cannot be used here: the message names the call, DPDK's reason and what to do. */
public final class DpdkException extends RuntimeException
{
    public DpdkException(final String message)
    {
        super(message);
    }

    /** For a call that returned {@code -errno} (ethdev) or set {@code rte_errno} (EAL, mempool). */
    static DpdkException of(final String what, final int errno)
    {
        final int positive = Math.abs(errno);
        return new DpdkException(what + " failed: " + DpdkBindings.rte_strerror(positive) + " (errno " + positive + ")");
    }
}
