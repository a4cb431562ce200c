package io.rnic.datapath.driver;

import io.rnic.datapath.agent.EngineAgent;
import io.rnic.device.EngineQueuePair;
import io.rnic.device.ResourceCosts;
import io.rnic.device.ResourceKind;
import io.rnic.device.RnicDevice;
import io.rnic.verbs.MemoryWindow;
import io.rnic.verbs.ProtectionDomain;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.collections.Long2ObjectHashMap;

import java.util.ArrayList;
import java.util.List;

/**
 * The driver's attached clients, by client id, and everything each holds: handles from one counter for all clients,
 * looked up only among the commanding client's own (another's is unknown to it), the owners of QPs and SRQs (where
 * their events go), and the reclaim of a client that detaches, departs or times out. Conductor thread only.
 */
final class ClientSessions
{
    private final RnicDevice device;
    private final EngineAgent[] agents;
    private final ClientQueues[] queues;
    private final DriverCm cm;
    private final FdHandshake fds;
    private final DriverCounters counters;
    private final Long2ObjectHashMap<ClientSession> sessions = new Long2ObjectHashMap<>();
    /** Who owns each client QP (by QPN) and SRQ (by the device's handle): where their events go. */
    private final Int2ObjectHashMap<ClientSession> qpOwners = new Int2ObjectHashMap<>();
    private final Int2ObjectHashMap<ClientSrq> srqOwners = new Int2ObjectHashMap<>();
    private int nextHandle = 1;

    ClientSessions(
        final RnicDevice device, final EngineAgent[] agents, final ClientQueues[] queues, final DriverCm cm,
        final FdHandshake fds, final DriverCounters counters)
    {
        this.device = device;
        this.agents = agents;
        this.queues = queues;
        this.cm = cm;
        this.fds = fds;
        this.counters = counters;
    }

    /** A new handle: never 0, never one another object of any client has. */
    int nextHandle()
    {
        return nextHandle++;
    }

    ClientSession attach(final long clientId, final long pid, final ClientFds clientFds, final long nowNs)
    {
        final ClientSession session = new ClientSession(clientId, pid, clientFds, nowNs);
        if (clientFds != null)
        {
            clientFds.session = session;
        }
        sessions.put(clientId, session);
        counters.clients.setOrdered(sessions.size());
        return session;
    }

    /** The attached client of this id, or null. */
    ClientSession get(final long clientId)
    {
        return sessions.get(clientId);
    }

    boolean isAttached(final long clientId)
    {
        return sessions.containsKey(clientId);
    }

    /** Whether {@code session} is still attached (not reclaimed since). */
    boolean holds(final ClientSession session)
    {
        return sessions.get(session.clientId) == session;
    }

    int count()
    {
        return sessions.size();
    }

    Iterable<ClientSession> all()
    {
        return sessions.values();
    }

    void counted(final int resources)
    {
        counters.resources.getAndAdd(resources);
    }

    static ProtectionDomain pd(final ClientSession session, final int handle)
    {
        final ProtectionDomain pd = session.pds.get(handle);
        if (pd == null)
        {
            throw new UnknownHandleException("protection domain", handle);
        }
        return pd;
    }

    static ClientCq cq(final ClientSession session, final int handle)
    {
        final ClientCq cq = session.cqs.get(handle);
        if (cq == null)
        {
            throw new UnknownHandleException("completion queue", handle);
        }
        return cq;
    }

    static ClientSrq srq(final ClientSession session, final int handle)
    {
        final ClientSrq srq = session.srqs.get(handle);
        if (srq == null)
        {
            throw new UnknownHandleException("shared receive queue", handle);
        }
        return srq;
    }

    static ClientQp qp(final ClientSession session, final int handle)
    {
        final ClientQp qp = session.qps.get(handle);
        if (qp == null)
        {
            throw new UnknownHandleException("queue pair", handle);
        }
        return qp;
    }

    static ClientMr mr(final ClientSession session, final int handle)
    {
        final ClientMr mr = session.mrs.get(handle);
        if (mr == null)
        {
            throw new UnknownHandleException("memory region", handle);
        }
        return mr;
    }

    static MemoryWindow mw(final ClientSession session, final int handle)
    {
        final MemoryWindow window = session.mws.get(handle);
        if (window == null)
        {
            throw new UnknownHandleException("memory window", handle);
        }
        return window;
    }

    static DriverCm.TrackedId cmId(final ClientSession session, final int handle)
    {
        final DriverCm.TrackedId id = session.cmIds.get(handle);
        if (id == null)
        {
            throw new UnknownHandleException("CM id", handle);
        }
        return id;
    }

    /** The client whose QP has this QPN, or null. */
    ClientSession qpOwner(final int qpn)
    {
        return qpOwners.get(qpn);
    }

    /** The client's SRQ that is the device's SRQ of this handle, or null. */
    ClientSrq srqOwner(final int deviceHandle)
    {
        return srqOwners.get(deviceHandle);
    }

    void addQp(final ClientSession session, final ClientQp qp)
    {
        session.qps.put(qp.handle, qp);
        qpOwners.put(qp.qp.qpn(), session);
        counted(1);
    }

    void addSrq(final ClientSession session, final ClientSrq srq)
    {
        session.srqs.put(srq.handle(), srq);
        srqOwners.put(srq.srq().handle(), srq);
        counted(1);
    }

    /** The client queues of the engine a QP is on. */
    ClientQueues queuesOf(final EngineQueuePair qp)
    {
        for (int i = 0; i < agents.length; i++)
        {
            if (agents[i].engine() == qp.engine())
            {
                return queues[i];
            }
        }
        throw new IllegalStateException("QP 0x" + Integer.toHexString(qp.qpn()) + " has no engine of this driver");
    }

    void destroyQp(final ClientSession session, final ClientQp qp)
    {
        cm.qpDestroyed(session, qp);
        final ClientQueues shardQueues = queuesOf(qp.qp);
        qp.qp.engine().execute(() ->
        {
            shardQueues.remove(qp);
            return null;
        });
        device.destroyQp(qp.qp); // on the engine thread: no frame reaches the QP once this returns
        qpOwners.remove(qp.qp.qpn());
        qp.memory.close();
        if (qp.counters != null)
        {
            qp.counters.free();
        }
        session.qps.remove(qp.handle);
        session.queueBytes -= qp.queueBytes;
        counted(-1);
    }

    /** Refused (EBUSY) while QPs of the client use it; then the ring's file is unmapped: no engine takes from it. */
    void destroySrq(final ClientSession session, final ClientSrq srq)
    {
        device.destroySrq(srq.srq());
        srqOwners.remove(srq.srq().handle());
        session.srqs.remove(srq.handle());
        srq.memory().close();
        counted(-1);
    }

    /** Destroys a CQ no QP of the client uses; the client's memory is unmapped. */
    void destroyCq(final ClientSession session, final ClientCq cq)
    {
        session.cqs.remove(cq.handle());
        cq.memory().close();
        device.resources().release(ResourceKind.CQ, ResourceCosts.clientCompletionQueue());
        counted(-1);
    }

    void deregister(final ClientSession session, final ClientMr mr)
    {
        device.deregisterMemoryRegion(mr.region()); // returns once no engine touches the memory any more
        mr.memory().close();
        session.mrs.remove(mr.handle());
        session.registeredBytes -= mr.region().length();
        counted(-1);
    }

    /** Destroys everything a client holds, QPs first (their peers see them vanish), then SRQs, CQs and memory. */
    void reclaim(final ClientSession session)
    {
        cm.reclaim(session); // its ports closed and its connections let go of its QPs before these go
        for (final ClientQp qp : new ArrayList<>(session.qps.values()))
        {
            destroyQp(session, qp);
        }
        for (final ClientSrq srq : new ArrayList<>(session.srqs.values()))
        {
            destroySrq(session, srq); // its QPs are gone: nothing refuses
        }
        for (final ClientCq cq : new ArrayList<>(session.cqs.values()))
        {
            destroyCq(session, cq);
        }
        for (final MemoryWindow window : session.mws.values())
        {
            device.deallocMw(window); // unbound first: a region with windows bound is not deregistered
        }
        counted(-session.mws.size());
        session.mws.clear();
        for (final ClientMr mr : new ArrayList<>(session.mrs.values()))
        {
            deregister(session, mr);
        }
        counted(-session.pds.size());
        session.pds.clear();
        if (session.eventsMemory != null)
        {
            session.events = null;
            session.eventsMemory.close();
            session.eventsMemory = null;
        }
        if (session.fds != null)
        {
            fds.close(session.fds); // its unused memfds with it
        }
        sessions.remove(session.clientId);
        counters.clients.setOrdered(sessions.size());
    }

    void reclaimAll()
    {
        for (final ClientSession session : new ArrayList<>(sessions.values()))
        {
            reclaim(session);
        }
    }

    /** The clients silent for longer than {@code timeoutNs}. */
    List<ClientSession> silentFor(final long nowNs, final long timeoutNs)
    {
        List<ClientSession> expired = null;
        for (final ClientSession session : sessions.values())
        {
            if (nowNs - session.lastKeepaliveNs > timeoutNs)
            {
                expired = expired == null ? new ArrayList<>() : expired;
                expired.add(session);
            }
        }
        return expired == null ? List.of() : expired;
    }

    /** The per-QP counters, as often as liveness is checked: a live view for {@code stat}, not a per-packet one. */
    void refreshQpCounters()
    {
        for (final ClientSession session : sessions.values())
        {
            for (final ClientQp qp : session.qps.values())
            {
                if (qp.counters != null)
                {
                    qp.counters.refresh();
                }
            }
        }
    }

    /** A handle the client does not hold: unknown, destroyed, or another client's. */
    static final class UnknownHandleException extends IllegalArgumentException
    {
        UnknownHandleException(final String what, final int handle)
        {
            super("no " + what + " with handle " + handle + " belongs to this client");
        }
    }
}
