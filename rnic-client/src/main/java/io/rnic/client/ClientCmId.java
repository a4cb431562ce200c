package io.rnic.client;

import io.rnic.cm.CmId;
import io.rnic.cm.CmState;
import io.rnic.cnc.CmIdCodec;
import io.rnic.device.QueuePair;
import io.rnic.verbs.PathMtu;
import org.agrona.DirectBuffer;

/**
 * A CM id of a driver's client: the copy of the driver's connection the driver last pushed ({@link CmIdCodec}).
 * Written by the thread that drains the client's event ring, under {@link ClientConnectionManager}'s lock; read from
 * any thread, the state last (a volatile), so that what it shows was written before it.
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

    /** Takes the driver's snapshot of the id at {@code offset} of {@code buffer} (an event record's payload). */
    void update(final DirectBuffer buffer, final int offset)
    {
        final int stateOrdinal = buffer.getInt(offset + CmIdCodec.STATE_OFFSET);
        if (stateOrdinal < 0 || stateOrdinal >= CmState.values().length)
        {
            throw new IllegalStateException("the driver sent CM state " + stateOrdinal + " (another rnic version?)");
        }
        rejectReason = buffer.getInt(offset + CmIdCodec.REJECT_REASON_OFFSET);
        remoteQpn = buffer.getInt(offset + CmIdCodec.REMOTE_QPN_OFFSET);
        remotePsn = buffer.getInt(offset + CmIdCodec.REMOTE_PSN_OFFSET);
        localPsn = buffer.getInt(offset + CmIdCodec.LOCAL_PSN_OFFSET);
        final PathMtu mtu = PathMtu.ofBytes(buffer.getInt(offset + CmIdCodec.PATH_MTU_BYTES_OFFSET));
        pathMtu = mtu != null ? mtu : pathMtu;
        responderResources = buffer.getInt(offset + CmIdCodec.RESPONDER_RESOURCES_OFFSET);
        initiatorDepth = buffer.getInt(offset + CmIdCodec.INITIATOR_DEPTH_OFFSET);
        peerGidHigh = buffer.getLong(offset + CmIdCodec.PEER_GID_HIGH_OFFSET);
        peerGidLow = buffer.getLong(offset + CmIdCodec.PEER_GID_LOW_OFFSET);
        servicePort = buffer.getInt(offset + CmIdCodec.SERVICE_PORT_OFFSET);
        peerPort = buffer.getInt(offset + CmIdCodec.PEER_PORT_OFFSET);
        peerPrivateData = CmIdCodec.privateData(buffer, offset);
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
