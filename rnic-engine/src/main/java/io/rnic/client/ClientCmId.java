package io.rnic.client;

import io.rnic.cm.CmId;
import io.rnic.cm.CmState;
import io.rnic.cnc.command.CmIdChangeFlyweight;
import io.rnic.device.QueuePair;
import io.rnic.verbs.PathMtu;

/**
 * A CM id of a driver's client: the copy of the driver's connection the client last polled
 * ({@link CmIdChangeFlyweight}).
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

    /** Takes the driver's snapshot. */
    void update(final CmIdChangeFlyweight change)
    {
        final int stateOrdinal = change.cmState();
        if (stateOrdinal < 0 || stateOrdinal >= CmState.values().length)
        {
            throw new IllegalStateException("the driver sent CM state " + stateOrdinal + " (another rnic version?)");
        }
        rejectReason = change.rejectReason();
        remoteQpn = change.remoteQpNum();
        remotePsn = change.remotePsn();
        localPsn = change.localPsn();
        final PathMtu mtu = PathMtu.ofValue(change.pathMtu());
        pathMtu = mtu != null ? mtu : pathMtu;
        responderResources = change.responderResources();
        initiatorDepth = change.initiatorDepth();
        peerGidHigh = change.peerGidHigh();
        peerGidLow = change.peerGidLow();
        servicePort = change.servicePort();
        peerPort = change.peerPort();
        peerPrivateData = change.privateData();
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
