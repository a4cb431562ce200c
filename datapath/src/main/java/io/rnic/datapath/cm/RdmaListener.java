package io.rnic.datapath.cm;

import io.rnic.verbs.QpInitAttributes;

import java.time.Duration;

/**
 * A port listened on ({@code rdma_listen}): connect requests to it queue up until {@link #getRequest} takes them.
 * Every listener of an {@link RdmaCm} shares one queue of requests (as an event channel): take them from one thread,
 * or listen on one port per {@link RdmaCm}.
 */
public final class RdmaListener implements AutoCloseable
{
    private final RdmaCm cm;
    private final int port;

    RdmaListener(final RdmaCm cm, final int port)
    {
        this.cm = cm;
        this.port = port;
    }

    public int port()
    {
        return port;
    }

    /**
     * {@code rdma_get_request}: the next connect request, waiting up to {@code timeout}.
     *
     * @throws RdmaCmException "no connect request on port P within N ms"; the listener goes on listening.
     */
    public RdmaConnectRequest getRequest(final Duration timeout)
    {
        return cm.awaitRequest(port, timeout);
    }

    /**
     * {@link #getRequest} then {@link RdmaConnectRequest#accept}, within one {@code timeout}: the common case of a
     * server that takes whoever connects.
     */
    public RdmaConnection accept(final QpInitAttributes init, final Duration timeout, final byte[] privateData)
    {
        final long deadlineNs = System.nanoTime() + timeout.toNanos();
        final RdmaConnectRequest request = getRequest(timeout);
        return request.accept(init, Duration.ofNanos(Math.max(0, deadlineNs - System.nanoTime())), privateData);
    }

    /** Stops listening: new requests to the port are rejected (invalid service ID), as nobody listens. */
    public void close()
    {
        cm.stopListening(port);
    }
}
