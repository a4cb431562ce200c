package io.rnic.datapath.driver;

import io.rnic.shm.SharedMemory;
import io.rnic.verbs.EventRing;
import io.rnic.verbs.MemoryWindow;
import io.rnic.verbs.ProtectionDomain;
import org.agrona.collections.Int2ObjectHashMap;

/**
 * What one client holds in the driver, by handle. Handles are numbered across all clients (no two clients share one),
 * and a client names only its own: a handle of another client is unknown to this session. Conductor thread only.
 */
final class ClientSession
{
    final long clientId;
    final long pid;
    /** Its connection to {@code fds.sock}; null when it attached without one (it can then use no memory). */
    final ClientFds fds;
    long lastKeepaliveNs;
    final Int2ObjectHashMap<ProtectionDomain> pds = new Int2ObjectHashMap<>();
    final Int2ObjectHashMap<ClientMr> mrs = new Int2ObjectHashMap<>();
    final Int2ObjectHashMap<ClientCq> cqs = new Int2ObjectHashMap<>();
    final Int2ObjectHashMap<ClientQp> qps = new Int2ObjectHashMap<>();
    final Int2ObjectHashMap<ClientSrq> srqs = new Int2ObjectHashMap<>();
    /** Its memory windows by handle. */
    final Int2ObjectHashMap<MemoryWindow> mws = new Int2ObjectHashMap<>();
    /** Its RDMA CM ids: the connections it made and the requests to its ports ({@link DriverCm}). */
    final Int2ObjectHashMap<DriverCm.TrackedId> cmIds = new Int2ObjectHashMap<>();

    /** The lengths of its regions, summed, and the driver's memory its work queues take ({@link ClientQuotas}). */
    long registeredBytes;
    long queueBytes;

    /**
     * Where its asynchronous events and its CM ids' changes go ({@code OPEN_ASYNC_EVENTS}), and the file holding it;
     * null until opened.
     */
    EventRing events;
    SharedMemory eventsMemory;

    ClientSession(final long clientId, final long pid, final ClientFds fds, final long nowNs)
    {
        this.clientId = clientId;
        this.pid = pid;
        this.fds = fds;
        this.lastKeepaliveNs = nowNs;
    }

    int resourceCount()
    {
        return pds.size() + mrs.size() + cqs.size() + qps.size() + mws.size() + srqs.size();
    }

    public String toString()
    {
        return "client " + Long.toHexString(clientId) + " (pid " + pid +
            (fds == null ? ")" : "; fds.sock peer " + fds.connection + ")");
    }
}
