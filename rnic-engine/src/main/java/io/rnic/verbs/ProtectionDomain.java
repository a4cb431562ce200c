package io.rnic.verbs;

/**
 * A protection domain: memory regions and queue pairs of one domain only work with each other
 * (a remote access through a QP of another PD is a remote access error).
 */
public final class ProtectionDomain
{
    private final int handle;

    /** Made by {@code RnicDevice.allocPd}, which numbers the domains of a device; applications ask it for one. */
    public ProtectionDomain(final int handle)
    {
        this.handle = handle;
    }

    public int handle()
    {
        return handle;
    }

    public String toString()
    {
        return "ProtectionDomain{" + handle + '}';
    }
}
