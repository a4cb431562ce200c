package io.rnic.datapath.cm;

import io.rnic.cm.CmId;
import io.rnic.cm.CmService;
import io.rnic.device.QueuePair;

import java.net.InetAddress;
import java.time.Duration;

/**
 * One RC connection made by {@link RdmaCm#connect} or {@link RdmaListener#accept}: librdmacm's connected
 * {@code rdma_cm_id}. Its QP is in RTS when the connection is handed out; post to it and poll its CQs as to any QP.
 * {@link #disconnect()} is {@code rdma_disconnect} (DREQ, the QP to the error state so that what is still queued
 * completes flushed); {@link #close()} is {@code rdma_destroy_qp} and {@code rdma_destroy_id}: embedded, the
 * connection manager destroys the QP once the connection's timewait is over, so that a late packet of this connection
 * never reaches a new QP that takes its number; through a driver the QP is destroyed at once, as librdmacm does.
 */
public final class RdmaConnection implements AutoCloseable
{
    private final RdmaCm cm;
    private final CmService agent;
    private final CmId connection;
    private final QueuePair qp;
    private final InetAddress peer;
    private boolean closed;

    RdmaConnection(
        final RdmaCm cm, final CmService agent, final CmId connection, final QueuePair qp, final InetAddress peer)
    {
        this.cm = cm;
        this.agent = agent;
        this.connection = connection;
        this.qp = qp;
        this.peer = peer;
    }

    /** The connected RC QP (in RTS until a disconnect); the connection owns it. */
    public QueuePair qp()
    {
        return qp;
    }

    /** The peer's IP address. */
    public InetAddress peerAddress()
    {
        return peer;
    }

    /** The port the connection was made to (the listener's). */
    public int port()
    {
        return connection.servicePort();
    }

    /** The peer's QPN, for diagnostics (the QP already knows it). */
    public int remoteQpn()
    {
        return connection.remoteQpn();
    }

    /**
     * The peer's private data, the whole field zero-padded, as librdmacm's {@code event->param.conn.private_data}: on
     * the passive side what the active side gave {@link RdmaCm#connect} (56 bytes), on the active side what the
     * listener gave {@link RdmaConnectRequest#accept} (196 bytes).
     */
    public byte[] peerPrivateData()
    {
        return connection.peerPrivateData();
    }

    /** Whether the connection is up: neither side has disconnected. */
    public boolean isConnected()
    {
        return connection.isEstablished();
    }

    /**
     * {@code rdma_disconnect}: sends a DREQ and moves the QP to the error state, so that every work request still
     * queued completes with {@code WR_FLUSH_ERR}. Returns once the DREQ is out; {@link #awaitDisconnected} waits for
     * the peer's DREP. Nothing to do when the connection is already down (the peer disconnected first).
     */
    public void disconnect()
    {
        agent.disconnect(connection);
    }

    /** Waits up to {@code timeout} for the connection to be down (the DREP, or the peer's DREQ); whether it is. */
    public boolean awaitDisconnected(final Duration timeout)
    {
        return agent.await(connection::isClosed, timeout.toNanos());
    }

    /**
     * Disconnects if still connected and destroys the QP, embedded as through a driver; the connection manager holds
     * the QPN until the connection's timewait is over. Idempotent.
     */
    public void close()
    {
        synchronized (this)
        {
            if (closed)
            {
                return;
            }
            closed = true;
        }
        cm.release(this);
    }

    CmId cmConnection()
    {
        return connection;
    }

    @Override
    public String toString()
    {
        return "RdmaConnection{" + peer.getHostAddress() + " port " + port() + ", QPN 0x" +
            Integer.toHexString(qp.qpn()) + " -> 0x" + Integer.toHexString(remoteQpn()) + ", " + connection.state() +
            "}";
    }
}
