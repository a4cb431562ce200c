package io.rnic.datapath.cm;

import io.rnic.client.DriverContext;
import io.rnic.cm.CmAgent;
import io.rnic.cm.CmConnection;
import io.rnic.cm.CmId;
import io.rnic.cm.CmService;
import io.rnic.cm.CmState;
import io.rnic.cm.ConnectionManager;
import io.rnic.datapath.endpoint.EmbeddedContext;
import io.rnic.datapath.endpoint.Endpoint;
import io.rnic.datapath.endpoint.InterfaceAddresses;
import io.rnic.device.QueuePair;
import io.rnic.device.RnicContext;
import io.rnic.transport.LocalPort;
import io.rnic.verbs.VerbsException;
import io.rnic.verbs.QpInitAttributes;
import io.rnic.verbs.QpType;
import org.agrona.concurrent.SystemNanoClock;

import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Connections the way librdmacm makes them, over the RDMA CM on QP1 (REQ / REP / RTU, DREQ / DREP): {@link #listen}
 * ({@code rdma_listen}), {@link RdmaListener#getRequest} ({@code rdma_get_request}), {@link RdmaConnectRequest#accept}
 * ({@code rdma_accept}), {@link #connect} ({@code rdma_resolve_addr} + {@code rdma_create_qp} + {@code rdma_connect}),
 * {@link RdmaConnection#disconnect} ({@code rdma_disconnect}). Each call blocks until it is done, as librdmacm's
 * synchronous calls do; a failure is an {@link RdmaCmException} with one line naming its cause. The peer may be
 * another rnic or any RDMA CM application (librdmacm over rxe or a hardware RNIC: {@code rping}, perftest's
 * {@code -R}).
 * <p>
 * On an {@link EmbeddedContext} the connection manager runs in the duty cycle of the context's engine thread (a
 * {@link CmAgent}), the one owner of its state, so MADs are answered and retransmitted whatever the application does;
 * one per context, as the device has one QP1. Through a driver ({@link DriverContext}) the driver runs the device's
 * one manager for all its clients, and this forwards to it ({@link DriverContext#openConnectionManager}): the same
 * calls, the same answers; a port another client listens on is refused, and a closed connection's QP is destroyed at
 * once rather than after the connection's timewait.
 */
public final class RdmaCm implements AutoCloseable
{
    /** The READs and atomics in flight each way we offer: the CM grants min(ours, the peer's). */
    public static final int READ_ATOMIC_DEFAULT = 16;
    /** How long a wait for one port's request looks at most before it looks again at the others' requests. */
    private static final long REQUEST_SLICE_NS = 50_000_000L;

    private final RnicContext context;
    private final int gidIndex;
    private final CmService agent;
    /** Ends the service once the connections are released (or, embedded, when the engine is gone, in their place). */
    private final Closer closer;
    private final Set<Integer> listening = new HashSet<>();
    /** Requests taken from the agent for a port other than the one their taker waited for. */
    private final Map<Integer, ArrayDeque<CmId>> requests = new HashMap<>();
    private final Set<RdmaConnection> connections = new HashSet<>();
    private boolean closed;

    private RdmaCm(final RnicContext context, final int gidIndex, final CmService agent, final Closer closer)
    {
        this.context = context;
        this.gidIndex = gidIndex;
        this.agent = agent;
        this.closer = closer;
    }

    private static RdmaCm embedded(final EmbeddedContext context, final int gidIndex)
    {
        final Endpoint endpoint = context.endpoint();
        // the manager runs on the engine thread, which must not wait for a neighbour: connect resolves on the caller's
        final ConnectionManager manager = new ConnectionManager(endpoint.device(), endpoint.localPort(), gidIndex,
            (high, low) -> endpoint.resolveMac(InterfaceAddresses.gidAddress(high, low), gidIndex, Duration.ZERO),
            System.nanoTime());
        final CmAgent agent = new CmAgent(manager, SystemNanoClock.INSTANCE, null);
        endpoint.addApplication(agent); // from here on the manager is the engine thread's
        return new RdmaCm(context, gidIndex, agent, open ->
        {
            endpoint.removeApplication(agent); // from here on the duty cycle no longer runs the manager: we do
            final long nowNs = SystemNanoClock.INSTANCE.nanoTime();
            for (final RdmaConnection connection : open)
            {
                manager.release((CmConnection)connection.cmConnection(), nowNs);
            }
            agent.close();
        });
    }

    private static RdmaCm throughDriver(final DriverContext context, final int gidIndex)
    {
        final CmService service = context.openConnectionManager();
        return new RdmaCm(context, gidIndex, service, open ->
        {
            for (final RdmaConnection connection : open)
            {
                if (context.isOpen()) // closed first, the context's detach ended them all in the driver
                {
                    service.release(connection.cmConnection()); // a DREQ; the QP destroyed
                }
            }
            service.close();
        });
    }

    /**
     * The connection API of a context, connecting from its first IPv4 GID (else its GID 0).
     *
     * @throws UnsupportedOperationException for a context neither embedded nor a driver's client.
     */
    public static RdmaCm open(final RnicContext context)
    {
        final LocalPort port = context.port();
        int gidIndex = 0;
        for (int i = port.gidCount() - 1; i >= 0; i--)
        {
            gidIndex = port.isIpv4Gid(i) ? i : gidIndex;
        }
        return open(context, gidIndex);
    }

    /** The connection API of a context, connecting from the GID at {@code sgidIndex} (and so from its IP version). */
    public static RdmaCm open(final RnicContext context, final int sgidIndex)
    {
        if (sgidIndex < 0 || sgidIndex >= context.port().gidCount())
        {
            throw new IllegalArgumentException("GID index " + sgidIndex + " out of range 0.." +
                (context.port().gidCount() - 1));
        }
        if (context instanceof EmbeddedContext embedded)
        {
            return embedded(embedded, sgidIndex);
        }
        if (context instanceof DriverContext driver)
        {
            return throughDriver(driver, sgidIndex);
        }
        throw new UnsupportedOperationException("the RDMA CM connection API runs on an EmbeddedContext or a " +
            "DriverContext, not on " + context.getClass().getSimpleName());
    }

    /** The GID index connections are made from. */
    public int sourceGidIndex()
    {
        return gidIndex;
    }

    /**
     * {@code rdma_bind_addr} + {@code rdma_listen} on an RDMA_PS_TCP port (service ID {@code 0x0000000001060000 | port})
     * of every address of the port: in effect when this returns.
     */
    public synchronized RdmaListener listen(final int port)
    {
        checkOpen();
        if (port < 0 || port > 0xFFFF)
        {
            throw new IllegalArgumentException("port " + port + " out of range 0..65535");
        }
        if (!listening.add(port))
        {
            throw new IllegalStateException("port " + port + " is listened on already");
        }
        try
        {
            agent.listen(port);
        }
        catch (final RuntimeException ex)
        {
            listening.remove(port); // through a driver: another client's port
            throw ex;
        }
        return new RdmaListener(this, port);
    }

    /**
     * {@link #listen(int)} on one address: refused unless the address is one of the port's. Requests to the port
     * through the port's other addresses are taken as well (the REQ names the address; the listener does not filter).
     */
    public RdmaListener listen(final InetAddress address, final int port)
    {
        final long[] gid = InterfaceAddresses.gidOf(address);
        final LocalPort local = context.port();
        for (int i = 0; i < local.gidCount(); i++)
        {
            if (local.gidHigh(i) == gid[0] && local.gidLow(i) == gid[1])
            {
                return listen(port);
            }
        }
        throw new IllegalArgumentException(address.getHostAddress() + " is not an address of this port (" + local +
            ")");
    }

    /**
     * Resolves the peer's MAC (ARP / neighbour discovery), creates an RC QP with {@code init}, sends the REQ with
     * {@code privateData} (at most 56 bytes) and waits up to {@code timeout} for the connection.
     *
     * @throws RdmaCmException naming the peer and the cause: no ARP / neighbour answer, the peer's REJ and its reason
     *                         (invalid service ID: nobody listens there), no reply within the timeout.
     */
    public RdmaConnection connect(final InetAddress peer, final int port, final QpInitAttributes init,
        final Duration timeout, final byte[] privateData)
    {
        checkOpen();
        checkRc(init);
        final String where = "connect to " + peer.getHostAddress() + " port " + port;
        final long[] gid = InterfaceAddresses.gidOf(peer);
        if (isIpv4(gid) != context.port().isIpv4Gid(gidIndex))
        {
            throw new RdmaCmException(where + ": this RdmaCm connects from GID " + gidIndex + ", of the other IP " +
                "version; open it with RdmaCm.open(context, sgidIndex) of a GID of the peer's");
        }
        final long deadlineNs = System.nanoTime() + timeout.toNanos();
        try
        {
            context.resolveMac(peer, gidIndex, timeout);
        }
        catch (final IllegalStateException | VerbsException ex)
        {
            throw new RdmaCmException(where + ": no route: " + ex.getMessage());
        }
        final QueuePair qp = context.createQp(init);
        ConnectionManager.toInit(qp); // as rdma_create_qp: receives may be posted before the connection
        final CmId c;
        try
        {
            c = agent.connect(qp, gidIndex, gid[0], gid[1], port, READ_ATOMIC_DEFAULT, READ_ATOMIC_DEFAULT,
                privateData);
        }
        catch (final RuntimeException ex)
        {
            context.destroyQp(qp);
            throw ex;
        }
        final boolean answered = agent.await(() -> c.isEstablished() || c.isClosed(),
            Math.max(0, deadlineNs - System.nanoTime()));
        if (!answered || !c.isEstablished())
        {
            agent.release(c); // the QP is destroyed, its QPN held through the timewait
            if (answered && c.state() == CmState.REJECTED)
            {
                throw new RdmaCmException(where + ": " + failure(c), c.rejectReason(), c.peerPrivateData());
            }
            throw new RdmaCmException(where + ": " + (answered ? failure(c) : "no reply within " +
                timeout.toMillis() + " ms"));
        }
        return track(new RdmaConnection(this, agent, c, qp, peer));
    }

    RdmaConnectRequest awaitRequest(final int port, final Duration timeout)
    {
        final long deadlineNs = System.nanoTime() + timeout.toNanos();
        while (true)
        {
            final CmId request = takeRequest(port);
            if (request != null)
            {
                return new RdmaConnectRequest(this, request);
            }
            final long leftNs = deadlineNs - System.nanoTime();
            if (leftNs <= 0)
            {
                throw new RdmaCmException("no connect request on port " + port + " within " + timeout.toMillis() +
                    " ms");
            }
            checkOpen();
            final CmId next = agent.awaitConnectRequest(Math.min(leftNs, REQUEST_SLICE_NS));
            if (next != null)
            {
                stash(next);
            }
        }
    }

    RdmaConnection accept(final CmId request, final QpInitAttributes init, final Duration timeout,
        final byte[] privateData)
    {
        checkOpen();
        checkRc(init);
        final QueuePair qp = context.createQp(init);
        ConnectionManager.toInit(qp);
        final InetAddress peer = InterfaceAddresses.gidAddress(request.peerGidHigh(), request.peerGidLow());
        try
        {
            agent.accept(request, qp, READ_ATOMIC_DEFAULT, READ_ATOMIC_DEFAULT, privateData);
        }
        catch (final RuntimeException ex)
        {
            final boolean attached = request.qp() == qp; // the release destroys it then
            agent.release(request);
            if (!attached)
            {
                context.destroyQp(qp);
            }
            throw ex;
        }
        if (!agent.await(() -> request.isEstablished() || request.isClosed(), timeout.toNanos()) ||
            !request.isEstablished())
        {
            agent.release(request);
            throw new RdmaCmException("accept from " + peer.getHostAddress() + " port " + request.servicePort() +
                ": " + (request.isClosed() ? failure(request) : "no RTU within " + timeout.toMillis() + " ms"));
        }
        return track(new RdmaConnection(this, agent, request, qp, peer));
    }

    void reject(final CmId request, final byte[] privateData)
    {
        agent.reject(request, privateData);
    }

    synchronized void stopListening(final int port)
    {
        if (listening.remove(port) && !closed)
        {
            agent.stopListening(port);
            final ArrayDeque<CmId> waiting = requests.remove(port);
            while (waiting != null && !waiting.isEmpty())
            {
                agent.reject(waiting.poll());
            }
        }
    }

    void release(final RdmaConnection connection)
    {
        synchronized (this)
        {
            if (!connections.remove(connection) || closed)
            {
                return;
            }
        }
        agent.release(connection.cmConnection());
    }

    /**
     * Releases every connection still open (a DREQ to each peer; their QPs destroyed), stops the connection manager
     * and destroys what it held. The context stays open; closed before, the engine is gone and only the manager's
     * state is released. Idempotent.
     */
    public void close()
    {
        final RdmaConnection[] open;
        synchronized (this)
        {
            if (closed)
            {
                return;
            }
            closed = true;
            open = connections.toArray(new RdmaConnection[0]);
            connections.clear();
        }
        closer.close(open);
    }

    /** How a service ends, given the connections still open. */
    private interface Closer
    {
        void close(RdmaConnection[] open);
    }

    private synchronized CmId takeRequest(final int port)
    {
        final ArrayDeque<CmId> waiting = requests.get(port);
        return waiting == null ? null : waiting.poll();
    }

    private synchronized void stash(final CmId request)
    {
        if (listening.contains(request.servicePort()))
        {
            requests.computeIfAbsent(request.servicePort(), ignored -> new ArrayDeque<>()).add(request);
        }
        else
        {
            agent.reject(request); // its listener closed while the REQ was on its way
        }
    }

    private synchronized RdmaConnection track(final RdmaConnection connection)
    {
        connections.add(connection);
        return connection;
    }

    private synchronized void checkOpen()
    {
        if (closed)
        {
            throw new IllegalStateException("this RdmaCm is closed");
        }
    }

    private static void checkRc(final QpInitAttributes init)
    {
        if (init.type != QpType.RC)
        {
            throw new IllegalArgumentException("the RDMA CM connects RC QPs, not " + init.type);
        }
    }

    private static boolean isIpv4(final long[] gid)
    {
        return gid[0] == 0 && (gid[1] >>> 32) == 0x0000_FFFFL;
    }

    private static String failure(final CmId c)
    {
        return switch (c.state())
        {
            case REJECTED -> "rejected: " + RdmaCmException.rejectReasonName(c.rejectReason()) + " (REJ reason " +
                c.rejectReason() + ")";
            case TIMED_OUT -> "no reply after the CM's retries";
            default -> "the connection ended (" + c.state() + ")";
        };
    }
}
