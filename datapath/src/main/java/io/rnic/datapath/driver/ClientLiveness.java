package io.rnic.datapath.driver;

import org.agrona.concurrent.errors.DistinctErrorLog;

/**
 * Clients' liveness, checked every {@link #CHECK_INTERVAL_NS}: a client silent (no command, no keepalive) for longer
 * than the client timeout is reclaimed and logged, and a connection to {@code fds.sock} that never attached within it
 * is closed. A client whose connection closes is reclaimed at once, by {@link FdHandshake}.
 */
final class ClientLiveness
{
    /** How often clients' liveness is checked. */
    static final long CHECK_INTERVAL_NS = 100_000_000L;

    private final ClientSessions sessions;
    private final FdHandshake fds;
    private final DistinctErrorLog errorLog;
    private final DriverCounters counters;
    private final long clientTimeoutNs;
    private long nextCheckNs;

    ClientLiveness(
        final ClientSessions sessions, final FdHandshake fds, final DistinctErrorLog errorLog,
        final DriverCounters counters, final long clientTimeoutNs)
    {
        this.sessions = sessions;
        this.fds = fds;
        this.errorLog = errorLog;
        this.counters = counters;
        this.clientTimeoutNs = clientTimeoutNs;
    }

    /** Whether a check is due; then the next one is an interval away. */
    boolean isDue(final long nowNs)
    {
        if (nowNs < nextCheckNs)
        {
            return false;
        }
        nextCheckNs = nowNs + CHECK_INTERVAL_NS;
        return true;
    }

    /** Times out the silent clients and the connections that never attached; returns the clients reclaimed. */
    int timeOut(final long nowNs)
    {
        fds.closeUnattached(nowNs, clientTimeoutNs);
        int expired = 0;
        for (final ClientSession session : sessions.silentFor(nowNs, clientTimeoutNs))
        {
            counters.clientTimeouts.increment();
            errorLog.record(new IllegalStateException(session + " timed out: no keepalive for " +
                clientTimeoutNs / 1_000_000 + " ms; its QPs, CQs and memory regions were destroyed"));
            sessions.reclaim(session);
            expired++;
        }
        return expired;
    }
}
