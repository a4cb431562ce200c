package io.rnic.verbs;

/**
 * The errno values ibverbs calls fail with, as Linux defines them: a {@link VerbsException} carries one, and the post
 * calls return them, so that a program ported from C checks the same names.
 */
public final class Errno
{
    /** The object is in use ({@code ibv_destroy_srq} of an SRQ QPs are still attached to). */
    public static final int EBUSY = 16;
    /** Out of room: a full work queue. */
    public static final int ENOMEM = 12;
    /** An argument out of range, or a call the object's state does not allow. */
    public static final int EINVAL = 22;
    /** The device does not support what was asked (an attribute it cannot change). */
    public static final int EOPNOTSUPP = 95;
    /** The port is another's: an RDMA CM listen on a port another client of the driver listens on. */
    public static final int EADDRINUSE = 98;
    /** No neighbour answered for the peer's address ({@code rdma_resolve_addr}, a socket's connect: no route). */
    public static final int EHOSTUNREACH = 113;

    private Errno()
    {
    }

    /** The symbolic name of {@code errno} ({@code EINVAL}), or its number when it is none of these. */
    public static String name(final int errno)
    {
        return switch (errno)
        {
            case EBUSY -> "EBUSY";
            case ENOMEM -> "ENOMEM";
            case EINVAL -> "EINVAL";
            case EOPNOTSUPP -> "EOPNOTSUPP";
            case EADDRINUSE -> "EADDRINUSE";
            case EHOSTUNREACH -> "EHOSTUNREACH";
            default -> "errno " + errno;
        };
    }
}
