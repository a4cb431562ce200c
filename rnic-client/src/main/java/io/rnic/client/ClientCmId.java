package io.rnic.client;

import io.rnic.cm.CmId;
import io.rnic.cm.CmState;
import io.rnic.cnc.CmIdCodec;
import io.rnic.device.QueuePair;
import io.rnic.verbs.PathMtu;

/**
 * A CM id of a driver's client: the copy of the driver's connection the client last polled ({@link CmIdCodec}).
 * Written by the thread that polls, under {@link ClientConnectionManager}'s lock; read from any thread, the state last
 * (a volatile), so that what it shows was written before it.
 */
final class ClientCmId implements CmId
{
    final int handle;
    private QueuePair qp;
    private int rejectReason;
    private int remoteQpn;
    private int remotePsn;
    private int localPsn;
    private PathMtu pathMtu = PathMtu.MTU_1024;
    private int responderResources;
    private int initiatorDepth;
    private long peerGidHigh;
    private long peerGidLow;
    private int servicePort;
    private int peerPort;
    private byte[] peerPrivateData = new byte[0];
    private volatile CmState state;

    ClientCmId(final int handle, final QueuePair qp, final CmState state)
    {
        this.handle = handle;
        this.qp = qp;
        this.state = state;
    }

    /** Takes the driver's snapshot of {@code count} values. */
    void update(final long[] values, final int count)
    {
        final int stateOrdinal = (int)values[CmIdCodec.STATE];
        if (stateOrdinal < 0 || stateOrdinal >= CmState.values().length)
        {
            throw new IllegalStateException("the driver sent CM state " + stateOrdinal + " (another rnic version?)");
        }
        rejectReason = (int)values[CmIdCodec.REJECT_REASON];
        remoteQpn = (int)values[CmIdCodec.REMOTE_QPN];
        remotePsn = (int)values[CmIdCodec.REMOTE_PSN];
        localPsn = (int)values[CmIdCodec.LOCAL_PSN];
        final PathMtu mtu = PathMtu.ofBytes((int)values[CmIdCodec.PATH_MTU_BYTES]);
        pathMtu = mtu != null ? mtu : pathMtu;
        responderResources = (int)values[CmIdCodec.RESPONDER_RESOURCES];
        initiatorDepth = (int)values[CmIdCodec.INITIATOR_DEPTH];
        peerGidHigh = values[CmIdCodec.PEER_GID_HIGH];
        peerGidLow = values[CmIdCodec.PEER_GID_LOW];
        servicePort = (int)values[CmIdCodec.SERVICE_PORT];
        peerPort = (int)values[CmIdCodec.PEER_PORT];
        peerPrivateData = CmIdCodec.privateData(values, CmIdCodec.PRIVATE_DATA, count);
        state = CmState.values()[stateOrdinal]; // last: it publishes the rest
    }

    void qp(final QueuePair qp)
    {
        this.qp = qp;
    }

    public CmState state()
    {
        return state;
    }

    public int rejectReason()
    {
        return rejectReason;
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

    public int servicePort()
    {
        return servicePort;
    }

    public int peerPort()
    {
        return peerPort;
    }

    public byte[] peerPrivateData()
    {
        return peerPrivateData.clone();
    }

    public QueuePair qp()
    {
        return qp;
    }

    public String toString()
    {
        return "CM id " + handle + " (" + state + ", remote QPN 0x" + Integer.toHexString(remoteQpn) + ")";
    }
}
