package io.rnic.datapath.driver;

import io.rnic.shm.FdSocketServer;
import org.agrona.collections.Long2LongHashMap;

/**
 * One connection to the driver's {@code fds.sock}: who it is (the kernel's credentials), which client it said it
 * serves (its hello: client id and nonce, linked to the session by the {@code ATTACH} that carries the same nonce)
 * and the memfds it sent that no command has used yet, by token. A token names only a descriptor that came over this
 * connection. Conductor thread only.
 */
final class ClientFds
{
    private static final long NO_FD = -1;

    final FdSocketServer.Connection connection;
    final long connectedNs;
    final Long2LongHashMap pending = new Long2LongHashMap(NO_FD);
    boolean helloed;
    long clientId;
    long nonce;
    ClientSession session;

    ClientFds(final FdSocketServer.Connection connection, final long connectedNs)
    {
        this.connection = connection;
        this.connectedNs = connectedNs;
    }

    /** The descriptor sent with {@code token}, now the caller's to close, or -1 when none came. */
    int take(final long token)
    {
        return (int)pending.remove(token);
    }
}
