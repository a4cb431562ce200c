package io.rnic.cm;

import org.agrona.collections.Int2ObjectHashMap;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Consumer;

/**
 * The connections a manager holds, from their REQ until their timewait ends: by our communication ID (where every
 * reply looks), by the peer's communication ID and CA GUID (where a duplicate REQ looks), and the closed ones in the
 * order their timewait ends. Apart from the state machine because it is bookkeeping every message handler shares; each
 * lookup is a hash lookup, so the cost of a MAD does not grow with the number of connections served.
 */
final class CmConnectionTable
{
    private final SplittableRandom random;
    private final Int2ObjectHashMap<CmConnection> byLocalCommId = new Int2ObjectHashMap<>();
    private final Map<CmRemoteId, CmConnection> byRemoteId = new HashMap<>();
    private final CmRemoteId remoteIdProbe = new CmRemoteId();
    /**
     * The closed connections by the peer's QPN and CA GUID, as Linux's CM keeps its timewait ones
     * ({@code cm_insert_remote_qpn}): a new REQ from that QP is a stale connection until the timewait ends.
     */
    private final Map<CmRemoteId, CmConnection> timewaitByRemoteQpn = new HashMap<>();
    /** Closed connections in the order they closed; each leaves when its timewait ends. */
    private final ArrayDeque<CmConnection> timewait = new ArrayDeque<>();

    /** @param random where new communication IDs come from (the manager's, seeded). */
    CmConnectionTable(final SplittableRandom random)
    {
        this.random = random;
    }

    /** A communication ID that is not zero and names no connection held. */
    int newCommId()
    {
        while (true)
        {
            final int id = random.nextInt();
            if (id != 0 && !byLocalCommId.containsKey(id))
            {
                return id;
            }
        }
    }

    /** Holds a connection by our communication ID. */
    void add(final CmConnection c)
    {
        byLocalCommId.put(c.localCommId, c);
    }

    /** Holds it by the peer's communication ID and CA GUID too, once both are known. */
    void indexRemote(final CmConnection c)
    {
        c.remoteId.set(c.remoteCommId, c.remoteCaGuid);
        byRemoteId.put(c.remoteId, c);
    }

    /** The connection with our communication ID, or null. */
    CmConnection get(final int localCommId)
    {
        return byLocalCommId.get(localCommId);
    }

    /** The connection with the peer's communication ID and CA GUID, or null. */
    CmConnection getByRemote(final int remoteCommId, final long remoteCaGuid)
    {
        return byRemoteId.get(remoteIdProbe.set(remoteCommId, remoteCaGuid));
    }

    /** The connection in its timewait whose peer QP was this one, or null. */
    CmConnection getTimewaitByRemoteQpn(final int remoteQpn, final long remoteCaGuid)
    {
        return timewaitByRemoteQpn.get(remoteIdProbe.set(remoteQpn, remoteCaGuid));
    }

    int size()
    {
        return byLocalCommId.size();
    }

    int timewaitCount()
    {
        return timewait.size();
    }

    /**
     * The connection closed: it stays held until {@code endsNs}. Once per connection. One whose QP was connected to
     * the peer's is found by the peer's QPN too, for {@link #getTimewaitByRemoteQpn}.
     */
    void enterTimewait(final CmConnection c, final long endsNs, final boolean wasConnected)
    {
        c.inTimewait = true;
        c.timewaitEndsNs = endsNs;
        timewait.add(c);
        if (wasConnected && c.remoteCaGuid != 0)
        {
            c.remoteQpnKey.set(c.remoteQpn, c.remoteCaGuid);
            timewaitByRemoteQpn.put(c.remoteQpnKey, c);
        }
    }

    /**
     * Lets go of the oldest connection whose timewait is over and returns it ({@link CmConnection#forgotten}), or null
     * if none is over. One that closed later with a shorter timewait may wait behind an older one with a longer one:
     * its timewait only grows, it never ends early.
     */
    CmConnection pollTimewaitEnded(final long nowNs)
    {
        final CmConnection c = timewait.peek();
        if (c == null || nowNs - c.timewaitEndsNs < 0)
        {
            return null;
        }
        timewait.poll();
        if (byLocalCommId.get(c.localCommId) == c)
        {
            byLocalCommId.remove(c.localCommId);
        }
        if (byRemoteId.get(c.remoteId) == c)
        {
            byRemoteId.remove(c.remoteId);
        }
        if (timewaitByRemoteQpn.get(c.remoteQpnKey) == c)
        {
            timewaitByRemoteQpn.remove(c.remoteQpnKey);
        }
        c.forgotten = true;
        return c;
    }

    /** Each connection held. */
    void forEach(final Consumer<CmConnection> action)
    {
        byLocalCommId.values().forEach(action);
    }
}
