package io.rnic.datapath.cm;

import io.rnic.cm.CmId;
import io.rnic.datapath.endpoint.InterfaceAddresses;
import io.rnic.verbs.QpInitAttributes;

import java.net.InetAddress;
import java.time.Duration;

/**
 * A connect request from {@link RdmaListener#getRequest} ({@code rdma_get_request}): who asks, and their private
 * data; answer it with {@link #accept} or {@link #reject}, once.
 */
public final class RdmaConnectRequest
{
    private final RdmaCm cm;
    private final CmId connection;
    private boolean answered;

    RdmaConnectRequest(final RdmaCm cm, final CmId connection)
    {
        this.cm = cm;
        this.connection = connection;
    }

    /** The active side's IP address. */
    public InetAddress peerAddress()
    {
        return InterfaceAddresses.gidAddress(connection.peerGidHigh(), connection.peerGidLow());
    }

    /** The port it asks for (the listener's). */
    public int port()
    {
        return connection.servicePort();
    }

    /** The active side's private data: the 56 bytes after the RDMA CM header of its REQ, zero-padded. */
    public byte[] privateData()
    {
        return connection.peerPrivateData();
    }

    /**
     * {@code rdma_create_qp} + {@code rdma_accept}: creates an RC QP with {@code init}, brings it to RTS with the
     * request's parameters, sends the REP with {@code privateData} (at most 196 bytes) and waits, as a synchronous
     * {@code rdma_accept} does, for the RTU, up to {@code timeout}.
     *
     * @throws RdmaCmException naming the peer when no RTU came (the connection is released).
     */
    public RdmaConnection accept(final QpInitAttributes init, final Duration timeout,
        final byte[] privateData)
    {
        answer();
        return cm.accept(connection, init, timeout, privateData);
    }

    /** {@code rdma_reject}: the active side's connect fails with a consumer reject (REJ reason 28). */
    public void reject()
    {
        reject(new byte[0]);
    }

    /**
     * {@code rdma_reject} with private data (at most 148 bytes): the active side's {@link RdmaCmException} carries the
     * reason (28) and these bytes, as librdmacm's {@code RDMA_CM_EVENT_REJECTED}.
     */
    public void reject(final byte[] privateData)
    {
        answer();
        cm.reject(connection, privateData);
    }

    private void answer()
    {
        if (answered)
        {
            throw new IllegalStateException("this connect request was answered already");
        }
        answered = true;
    }
}
