package io.rnic.cm;

import io.rnic.device.QueuePair;
import io.rnic.verbs.PathMtu;

/**
 * One connection of the RDMA CM as an application sees it, librdmacm's {@code rdma_cm_id}: its state and what the
 * exchange settled (the peer's address, QPN and PSN, the granted READ depths, the peer's private data). Read from any
 * thread; a {@link CmService} changes it. Embedded it is the manager's own {@link CmConnection}; through a driver, a
 * copy the client refreshes from the driver's.
 */
public interface CmId
{
    CmState state();

    default boolean isEstablished()
    {
        return state() == CmState.ESTABLISHED;
    }

    /** Whether the connection is over: disconnected, rejected or timed out. */
    default boolean isClosed()
    {
        final CmState s = state();
        return s == CmState.DISCONNECTED || s == CmState.REJECTED || s == CmState.TIMED_OUT;
    }

    /** The REJ's reason code after {@link CmState#REJECTED}. */
    int rejectReason();

    int remoteQpn();

    int remotePsn();

    int localPsn();

    PathMtu pathMtu();

    int responderResources();

    int initiatorDepth();

    long peerGidHigh();

    long peerGidLow();

    /** The port the connection was made to (the service ID's). */
    int servicePort();

    /** The active side's port (from the RDMA CM header). */
    int peerPort();

    /** The peer's private data (REQ on the passive side, REP on the active side once established); a copy. */
    byte[] peerPrivateData();

    /** The QP the connection connects; null for a request not accepted yet. */
    QueuePair qp();
}
