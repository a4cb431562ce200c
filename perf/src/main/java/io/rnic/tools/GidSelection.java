package io.rnic.tools;

import io.rnic.datapath.endpoint.InterfaceAddresses;
import io.rnic.transport.LocalPort;

/**
 * Which of the port's GIDs a tool sends from, as the originals choose it: perftest and rdma-core's pingpongs take
 * {@code -x}/{@code -g} or else the first IPv4 GID; rping takes the GID of the address it serves on, or the first
 * one of its server's IP version. One place, so that every tool reads a GID's IP version the same way.
 */
public final class GidSelection
{
    private GidSelection()
    {
    }

    /** The GID {@code requested} ({@code -x}), checked against the port; with -1, the first IPv4 GID, else 0. */
    public static int byIndex(final LocalPort port, final int requested, final String iface)
    {
        if (requested >= 0)
        {
            if (requested >= port.gidCount())
            {
                throw new UsageException("GID index " + requested + " does not exist on " + iface + " (it has " +
                    port.gidCount() + " GIDs: " + list(port) + ")");
            }
            return requested;
        }
        for (int i = 0; i < port.gidCount(); i++)
        {
            if (port.isIpv4Gid(i))
            {
                return i;
            }
        }
        return 0;
    }

    /** The index of {@code gid} (high, low) among ours, or -1. */
    public static int ofAddress(final LocalPort port, final long[] gid)
    {
        for (int i = 0; i < port.gidCount(); i++)
        {
            if (port.gidHigh(i) == gid[0] && port.gidLow(i) == gid[1])
            {
                return i;
            }
        }
        return -1;
    }

    /** Our first GID of {@code gid}'s family (IPv4, or IPv6 of the same link-local scope), or -1. */
    public static int ofFamily(final LocalPort port, final long[] gid)
    {
        final boolean ipv4 = isIpv4(gid);
        final boolean linkLocal = (gid[0] >>> 48) == 0xFE80;
        for (int i = 0; i < port.gidCount(); i++)
        {
            final boolean candidateLinkLocal = (port.gidHigh(i) >>> 48) == 0xFE80;
            if (ipv4 ? port.isIpv4Gid(i) : !port.isIpv4Gid(i) && candidateLinkLocal == linkLocal)
            {
                return i;
            }
        }
        return -1;
    }

    /** Whether {@code gid} (high, low) is an IPv4 address ({@code ::ffff:a.b.c.d}). */
    public static boolean isIpv4(final long[] gid)
    {
        return gid[0] == 0 && (gid[1] >>> 32) == 0xFFFF;
    }

    /** The port's GIDs as {@code 0=ADDRESS, 1=ADDRESS}, for messages. */
    private static String list(final LocalPort port)
    {
        final StringBuilder text = new StringBuilder();
        for (int i = 0; i < port.gidCount(); i++)
        {
            text.append(i == 0 ? "" : ", ").append(i).append('=')
                .append(InterfaceAddresses.gidAddress(port.gidHigh(i), port.gidLow(i)).getHostAddress());
        }
        return text.toString();
    }
}
