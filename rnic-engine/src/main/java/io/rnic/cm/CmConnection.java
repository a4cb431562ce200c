package io.rnic.cm;

import io.rnic.device.QueuePair;
import io.rnic.verbs.AddressVector;
import io.rnic.verbs.PathMtu;

/**
 * One RC connection as the connection manager sees it: the communication IDs, the peer's address, QPN and PSN,
 * the negotiated parameters, and the last MAD we sent, kept for retransmission and for answering duplicates.
 * Owned by the thread that polls the {@link ConnectionManager}; {@link #state()} may be read from any thread, and what
 * it publishes (the peer's QPN, PSN and private data) once it shows the change.
 */
public final class CmConnection implements CmId
{
    final int localCommId;
    int remoteCommId;
    long remoteCaGuid;
    long transactionId;
    final AddressVector peer = new AddressVector();
    /** The peer's IP address as a GID ({@code ::ffff:a.b.c.d} for IPv4). */
    long peerGidHigh;
    long peerGidLow;
    int servicePort;
    int peerPort;
    int remoteQpn;
    int remotePsn;
    int localPsn;
    PathMtu pathMtu = PathMtu.MTU_1024;
    int responderResources;
    int initiatorDepth;
    int localAckTimeout;
    int retryCount;
    int rnrRetryCount;
    /** The peer's time to answer us, IBTA's 4.096 µs × 2^value. */
    int peerResponseTimeout;
    int maxRetries;
    QueuePair qp;
    /**
     * The peer's private data: the consumer's part of its REQ (passive side) or its REP (active side), the whole field,
     * zero-padded. Written before the state that publishes it (a volatile write).
     */
    byte[] peerPrivateData = new byte[0];
    /** Passive: what the REQ asked for, before we grant it in the REP. */
    private int requestedResponderResources;
    private int requestedInitiatorDepth;
    private volatile CmState state;
    private volatile int rejectReason;

    /** The last MAD we sent (REQ, REP, RTU, DREQ or DREP), resent on timeout or for a duplicate. */
    final byte[] lastSent = new byte[CmMadFlyweight.LENGTH];
    /** Where the connection sits in its manager's list of those awaiting a reply; -1 when it awaits none. */
    int awaitingIndex = -1;
    int retriesLeft;
    long retransmitAtNs;
    /** Its key in its manager's index by the peer's communication ID and CA GUID. */
    final CmRemoteId remoteId = new CmRemoteId();
    /** Its key in its manager's index of closed connections by the peer's QPN and CA GUID. */
    final CmRemoteId remoteQpnKey = new CmRemoteId();
    /** Passive: an MRA went out for the REQ (it is {@link #lastSent}): a duplicate REQ gets it again. */
    boolean mraSent;
    /** Its QP was brought to RTS toward the peer's: in its timewait, a REQ from that peer QP is stale. */
    boolean qpConnected;
    /** The QPN kept taken in the engine's table while the connection, detached from its QP, is not forgotten. */
    int heldQpn;
    /** Closed, and held by its manager until {@link #timewaitEndsNs} (on the manager's clock). */
    boolean inTimewait;
    long timewaitEndsNs;
    /** The application handed it over ({@link ConnectionManager#release}): its QP is destroyed after the timewait. */
    boolean released;
    /** The timewait is over and the manager no longer holds the connection. */
    boolean forgotten;

    CmConnection(final int localCommId, final CmState state)
    {
        this.localCommId = localCommId;
        this.state = state;
    }

    void requested(final int responderResources, final int initiatorDepth)
    {
        requestedResponderResources = responderResources;
        requestedInitiatorDepth = initiatorDepth;
        this.responderResources = responderResources;
        this.initiatorDepth = initiatorDepth;
    }

    int responderResourcesRequested()
    {
        return requestedResponderResources;
    }

    int initiatorDepthRequested()
    {
        return requestedInitiatorDepth;
    }

    public CmState state()
    {
        return state;
    }

    void state(final CmState state)
    {
        this.state = state;
    }

    public boolean isEstablished()
    {
        return state == CmState.ESTABLISHED;
    }

    /**
     * Whether the connection is over: disconnected, rejected or timed out. Its manager still holds it through its
     * timewait, then forgets it.
     */
    public boolean isClosed()
    {
        final CmState s = state;
        return s == CmState.DISCONNECTED || s == CmState.REJECTED || s == CmState.TIMED_OUT;
    }

    /** The REJ's reason code after {@link CmState#REJECTED}. */
    public int rejectReason()
    {
        return rejectReason;
    }

    void rejectReason(final int reason)
    {
        this.rejectReason = reason;
    }

    public int localCommId()
    {
        return localCommId;
    }

    public int remoteCommId()
    {
        return remoteCommId;
    }

    public int remoteQpn()
    {
        return remoteQpn;
    }

    public int remotePsn()
    {
        return remotePsn;
    }

    public int localPsn()
    {
        return localPsn;
    }

    public PathMtu pathMtu()
    {
        return pathMtu;
    }

    public int responderResources()
    {
        return responderResources;
    }

    public int initiatorDepth()
    {
        return initiatorDepth;
    }

    public long peerGidHigh()
    {
        return peerGidHigh;
    }

    public long peerGidLow()
    {
        return peerGidLow;
    }

    /** The port the connection was made to (the service ID's). */
    public int servicePort()
    {
        return servicePort;
    }

    /** The active side's port (from the RDMA CM header). */
    public int peerPort()
    {
        return peerPort;
    }

    /**
     * The peer's private data: from its REQ on the passive side ({@value CmReqFlyweight#CONSUMER_PRIVATE_DATA_LENGTH}
     * bytes), from its REP on the active side once established ({@value CmRepFlyweight#PRIVATE_DATA_LENGTH} bytes); the
     * whole field, zero-padded, as librdmacm's {@code private_data}. Empty before.
     */
    public byte[] peerPrivateData()
    {
        return peerPrivateData.clone();
    }

    public QueuePair qp()
    {
        return qp;
    }

    @Override
    public String toString()
    {
        return "CmConnection{" + state + ", comm IDs " + Integer.toHexString(localCommId) + "/" +
            Integer.toHexString(remoteCommId) + ", remote QPN " + Integer.toHexString(remoteQpn) + "}";
    }
}
