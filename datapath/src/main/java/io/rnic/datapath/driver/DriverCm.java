package io.rnic.datapath.driver;

import io.rnic.cm.CmAgent;
import io.rnic.cm.CmConnection;
import io.rnic.cm.CmRejFlyweight;
import io.rnic.cm.CmState;
import io.rnic.cm.ConnectionManager;
import io.rnic.cnc.CmIdCodec;
import io.rnic.cnc.QpQueuesLayout;
import io.rnic.datapath.endpoint.Endpoint;
import io.rnic.datapath.endpoint.InterfaceAddresses;
import io.rnic.transport.LocalPort;
import io.rnic.verbs.Errno;
import io.rnic.verbs.EventRing;
import io.rnic.verbs.QpState;
import io.rnic.verbs.VerbsException;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.concurrent.SystemNanoClock;
import org.agrona.concurrent.status.AtomicCounter;

import java.time.Duration;
import java.util.ArrayList;
import java.util.function.IntSupplier;

/**
 * The driver's RDMA CM: one connection manager on the device's QP1, shared by every client as the kernel's CM is by
 * every librdmacm application, run in the first engine's duty cycle ({@link CmAgent}). The conductor drives it for
 * its clients: a port belongs to the client that listens on it, a REQ goes to that client, and each client names only
 * its own connections (CM ids), by handle. The manager changes a client's QP as the exchange goes (INIT to RTS, ERR on
 * a DREQ): the QP's state reaches the client through its queues' header as for any other change. A client learns its
 * ids' new states from its event ring ({@link #pushEvents}), woken by the ring's futex as librdmacm's event channel
 * wakes its reader. Each push is the whole id, and an id the ring had no room for is pushed again when it has: a
 * client never misses its ids' latest states, whatever else fills its ring.
 * <p>
 * Conductor thread only, but for the agent's duty cycle. The QPs stay the clients': a connection a client releases,
 * or whose QP it destroys, or that a dead client held, is detached from its QP ({@link ConnectionManager#detach}).
 * <p>
 * <b>Timewait.</b> A released connection's QP is destroyed at once, as librdmacm's {@code rdma_destroy_qp} does and
 * as an embedded release does too ({@code ConnectionManager.releaseAndDestroyQp}): here the client destroys its QP
 * itself. The connection stays in the manager's timewait (a duplicate DREQ is answered, a REQ from the peer's old QP
 * rejected as stale), and the manager holds the QPN in the engine's table until the timewait ends, so that no QP of
 * any client is numbered like it before then.
 */
final class DriverCm implements AutoCloseable
{
    private final Endpoint endpoint;
    private final ConnectionManager manager;
    private final CmAgent agent;
    /** Who listens on each port. */
    private final Int2ObjectHashMap<ClientSession> listeners = new Int2ObjectHashMap<>();
    /** The clients that hold CM ids, whose rings {@link #pushEvents} looks after. */
    private final ArrayList<ClientSession> clients = new ArrayList<>();
    /** The agent's changes count when {@link #pushEvents} last looked. */
    private long seenChanges = -1;
    /** An id is still to push: its client's ring was full, or its QP did not show RTS yet. */
    private boolean pushPending;
    private final IntSupplier handles;
    /** How many ports are listened on: for an operator, and for a client that must not connect before a listener. */
    private final AtomicCounter listenerCount;

    /** {@code handles} numbers the CM ids, from the conductor's one space of handles across all clients. */
    DriverCm(final Endpoint endpoint, final IntSupplier handles, final AtomicCounter listenerCount)
    {
        this.endpoint = endpoint;
        this.handles = handles;
        this.listenerCount = listenerCount;
        final LocalPort port = endpoint.localPort();
        // the manager runs on the engine thread, which must not wait for a neighbour: clients resolve first
        this.manager = new ConnectionManager(endpoint.device(), port, firstGid(port, true),
            (high, low) -> endpoint.resolveMac(InterfaceAddresses.gidAddress(high, low),
                firstGid(port, isIpv4(high, low)), Duration.ZERO),
            System.nanoTime());
        this.agent = new CmAgent(manager, SystemNanoClock.INSTANCE, null);
        endpoint.addApplication(agent);
    }

    /** Hands the REQs the manager took to the clients that listen on their ports; the others are rejected. */
    int routeRequests()
    {
        int work = 0;
        CmConnection request;
        while ((request = agent.pollConnectRequest()) != null)
        {
            final ClientSession owner = listeners.get(request.servicePort());
            if (owner == null)
            {
                agent.reject(request); // its listener left while the REQ was on its way
            }
            else
            {
                owner.cmIds.put(handles.getAsInt(), new TrackedId(request, true));
                tracked(owner);
            }
            work++;
        }
        return work;
    }

    void listen(final ClientSession session, final int port)
    {
        checkPort(port);
        final ClientSession owner = listeners.get(port);
        if (owner == session)
        {
            throw new VerbsException("port " + port + " is listened on already by this client");
        }
        if (owner != null)
        {
            throw new VerbsException(Errno.EADDRINUSE, "rdma_listen: port " + port + " is in use: " + owner +
                " listens on it");
        }
        agent.listen(port);
        listeners.put(port, session);
        listenerCount.setOrdered(listeners.size());
    }

    void stopListening(final ClientSession session, final int port)
    {
        checkPort(port);
        if (listeners.get(port) != session)
        {
            throw new VerbsException("this client does not listen on port " + port);
        }
        listeners.remove(port);
        agent.stopListening(port);
        listenerCount.setOrdered(listeners.size());
    }

    int connect(final ClientSession session, final ClientQp qp, final int sgidIndex, final long gidHigh,
        final long gidLow, final int port, final int responderResources, final int initiatorDepth,
        final int typeOfService, final byte[] privateData)
    {
        checkPort(port);
        if (typeOfService < -1 || typeOfService > 255)
        {
            throw new IllegalArgumentException("type of service " + typeOfService + " out of range 0..255");
        }
        if (sgidIndex < 0 || sgidIndex >= endpoint.localPort().gidCount())
        {
            throw new IllegalArgumentException("GID index " + sgidIndex + " out of range 0.." +
                (endpoint.localPort().gidCount() - 1));
        }
        if (isIpv4(gidHigh, gidLow) != endpoint.localPort().isIpv4Gid(sgidIndex))
        {
            throw new IllegalArgumentException("the peer " + InterfaceAddresses.gidAddress(gidHigh, gidLow)
                .getHostAddress() + " and GID " + sgidIndex + " are of different IP versions");
        }
        checkResources(responderResources, initiatorDepth);
        final CmConnection c = agent.connect(qp.qp, sgidIndex, gidHigh, gidLow, port, responderResources,
            initiatorDepth, privateData, Math.max(0, typeOfService));
        final int handle = handles.getAsInt();
        final TrackedId id = new TrackedId(c, false);
        id.qp = qp;
        session.cmIds.put(handle, id);
        tracked(session);
        return handle;
    }

    void accept(final TrackedId id, final ClientQp qp, final int responderResources, final int initiatorDepth,
        final byte[] privateData)
    {
        checkResources(responderResources, initiatorDepth);
        if (id.connection.state() != CmState.REQ_RCVD)
        {
            throw new VerbsException("CM id is " + id.connection.state() + ", not a connect request to accept");
        }
        agent.accept(id.connection, qp.qp, responderResources, initiatorDepth, privateData);
        id.qp = qp;
    }

    void reject(final TrackedId id, final byte[] privateData)
    {
        if (id.connection.state() != CmState.REQ_RCVD)
        {
            throw new VerbsException("CM id is " + id.connection.state() + ", not a connect request to reject");
        }
        if (privateData.length > CmRejFlyweight.PRIVATE_DATA_LENGTH)
        {
            throw new VerbsException("a REJ carries at most " + CmRejFlyweight.PRIVATE_DATA_LENGTH +
                " bytes of private data, not " + privateData.length);
        }
        agent.reject(id.connection, privateData);
    }

    void disconnect(final TrackedId id)
    {
        agent.disconnect(id.connection);
    }

    /** The connection ends as {@code rdma_destroy_id} ends it; the QP stays the client's. */
    void release(final ClientSession session, final int handle)
    {
        final TrackedId id = session.cmIds.remove(handle);
        if (id != null)
        {
            agent.detach(id.connection);
        }
    }

    /** A client destroys a QP: the connections on it let go of it first, so that none touches it afterwards. */
    void qpDestroyed(final ClientSession session, final ClientQp qp)
    {
        for (final TrackedId id : session.cmIds.values())
        {
            if (id.qp == qp || id.connection.qp() == qp.qp)
            {
                agent.detach(id.connection);
                id.qp = null; // its header is about to be unmapped: never read it again
            }
        }
    }

    /**
     * Writes each client's ids whose state moved since it was last told into its event ring, and wakes it: a request
     * whole, as a new id; a change as the id's latest state. Looks only when the manager did something since the last
     * look, or when an id is still to push: a ring that was full, or an established id whose client QP does not show
     * RTS yet (the client posts as soon as it sees established). Returns how many records it wrote.
     */
    int pushEvents()
    {
        final long changes = agent.changes();
        if (changes == seenChanges && !pushPending)
        {
            return 0;
        }
        seenChanges = changes;
        pushPending = false;
        int pushed = 0;
        for (int i = 0, size = clients.size(); i < size; i++)
        {
            pushed += push(clients.get(i));
        }
        return pushed;
    }

    private int push(final ClientSession session)
    {
        final EventRing ring = session.events;
        if (ring == null)
        {
            return 0; // it opens its ring before its first CM command; until then it has nothing to be told
        }
        int pushed = 0;
        for (final Int2ObjectHashMap<TrackedId>.EntryIterator it = session.cmIds.entrySet().iterator();
            it.hasNext();)
        {
            it.next();
            final TrackedId id = it.getValue();
            final CmState state = id.connection.state();
            if (id.announced && state == id.published)
            {
                continue;
            }
            if (state == CmState.ESTABLISHED && !mirrored(id.qp))
            {
                pushPending = true;
                continue;
            }
            final long position = ring.claim(id.announced ? EventRing.KIND_CM_UPDATE : EventRing.KIND_CM_REQUEST,
                it.getIntKey());
            if (position < 0)
            {
                pushPending = true; // full: the latest state goes when the client has made room
                return pushed;
            }
            CmIdCodec.encode(id.connection, ring.buffer(), ring.slotOffset(position) + EventRing.PAYLOAD_OFFSET);
            ring.commit(position);
            id.announced = true;
            id.published = state;
            pushed++;
        }
        return pushed;
    }

    private void tracked(final ClientSession session)
    {
        if (!clients.contains(session))
        {
            clients.add(session);
        }
        pushPending = true;
    }

    private static boolean mirrored(final ClientQp qp)
    {
        return qp == null || qp.header.getIntVolatile(QpQueuesLayout.STATE_OFFSET) == QpState.RTS.ordinal();
    }

    /** Everything of a client that is gone: its ports, and its connections (DREQs to their peers). */
    void reclaim(final ClientSession session)
    {
        for (final Integer port : new ArrayList<>(listeners.keySet()))
        {
            if (listeners.get(port) == session)
            {
                listeners.remove(port);
                agent.stopListening(port);
            }
        }
        listenerCount.setOrdered(listeners.size());
        for (final TrackedId id : session.cmIds.values())
        {
            agent.detach(id.connection);
        }
        session.cmIds.clear();
        clients.remove(session);
    }

    /** Stops the manager: the clients are reclaimed, the engines still run. */
    public void close()
    {
        endpoint.removeApplication(agent);
        agent.close();
    }

    private static void checkPort(final int port)
    {
        if (port < 0 || port > 0xFFFF)
        {
            throw new IllegalArgumentException("port " + port + " out of range 0..65535");
        }
    }

    private static void checkResources(final int responderResources, final int initiatorDepth)
    {
        if (responderResources < 0 || responderResources > 255 || initiatorDepth < 0 || initiatorDepth > 255)
        {
            throw new IllegalArgumentException("responder resources " + responderResources + " and initiator depth " +
                initiatorDepth + " must lie in 0..255");
        }
    }

    private static boolean isIpv4(final long gidHigh, final long gidLow)
    {
        return gidHigh == 0 && (gidLow >>> 32) == 0x0000_FFFFL;
    }

    private static int firstGid(final LocalPort port, final boolean ipv4)
    {
        for (int i = 0; i < port.gidCount(); i++)
        {
            if (port.isIpv4Gid(i) == ipv4)
            {
                return i;
            }
        }
        return 0;
    }

    /** A client's connection, and what the client was last told of it. */
    static final class TrackedId
    {
        final CmConnection connection;
        boolean announced;
        CmState published;
        /** The client's QP it connects, once it has one. */
        ClientQp qp;

        TrackedId(final CmConnection connection, final boolean request)
        {
            this.connection = connection;
            this.announced = !request; // the id a connect made is known to its client; a request is not yet
            this.published = request ? null : CmState.REQ_SENT;
        }
    }
}
