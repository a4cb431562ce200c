package io.rnic.cm;

import io.rnic.device.QueuePair;

import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * The RDMA CM as an application drives it, librdmacm's calls on an event channel: listen, connect, take a connect
 * request, accept or reject it, disconnect, release, and wait for a change. One per device (the device has one QP1):
 * embedded it is a {@link CmAgent} in the engine's duty cycle; through an {@code rnic driver} the driver runs that
 * agent and the client's implementation forwards the calls and mirrors the connections' states.
 * <p>
 * Calls block until done, as librdmacm's synchronous ones; a refusal is an exception with one line naming its cause.
 */
public interface CmService extends AutoCloseable
{
    /** Accept REQs for this RDMA_PS_TCP port; in effect when this returns. */
    void listen(int port);

    /** REQs to this port are rejected from now on (invalid service ID), as nobody listens. */
    void stopListening(int port);

    /**
     * Sends a REQ for {@code qp} (RC, in RESET or INIT) to a peer's GID and port, from the GID at {@code sgidIndex}, the
     * peer's MAC resolved first (this may wait for ARP or neighbour discovery). Established when the REP arrives:
     * wait with {@link #await}.
     */
    CmId connect(QueuePair qp, int sgidIndex, long peerGidHigh, long peerGidLow, int port, int responderResources,
        int initiatorDepth, byte[] privateData);

    /**
     * {@link #connect(QueuePair, int, long, long, int, int, int, byte[])} at a type of service of its own, as
     * {@code rdma_set_option(RDMA_OPTION_ID_TOS)} on one cm_id (0..255: the REQ's traffic class and the QP's, its upper
     * six bits the DSCP), or the service's with -1.
     */
    CmId connect(QueuePair qp, int sgidIndex, long peerGidHigh, long peerGidLow, int port, int responderResources,
        int initiatorDepth, byte[] privateData, int typeOfService);

    /** The next REQ to a port this service listens on, waiting up to {@code timeoutNs}; null if none came. */
    CmId awaitConnectRequest(long timeoutNs);

    /** Brings {@code qp} to RTS with the REQ's parameters and sends the REP (established at the RTU). */
    void accept(CmId request, QueuePair qp, int responderResources, int initiatorDepth, byte[] privateData);

    /** Refuses a REQ (a consumer reject). */
    default void reject(final CmId request)
    {
        reject(request, new byte[0]);
    }

    /**
     * {@code rdma_reject} with private data: a consumer reject (REJ reason 28) carrying at most
     * {@link CmRejFlyweight#PRIVATE_DATA_LENGTH} bytes, which the peer's application gets with the reason.
     */
    void reject(CmId request, byte[] privateData);

    /** Sends a DREQ: closed when the DREP comes ({@link CmId#isClosed}). */
    void disconnect(CmId connection);

    /**
     * Ends the connection ({@code rdma_destroy_qp} then {@code rdma_destroy_id}): disconnected if it is not, its QP
     * destroyed now, its QPN held by the manager through the connection's timewait. The same embedded and through a
     * driver.
     */
    void release(CmId connection);

    /**
     * Waits until {@code condition} holds, looking again each time a connection may have changed, or until
     * {@code timeoutNs} passed. A condition that never holds makes this a pause during which the CM keeps answering.
     *
     * @return whether the condition holds.
     */
    boolean await(BooleanSupplier condition, long timeoutNs);

    /** The CM's counters that are not zero (MADs sent, received, retransmitted, dropped; for a tool's report). */
    Map<CmCounter, Long> counters();

    /** Stops listening, releases every connection still open and frees what the service holds. Idempotent. */
    void close();
}
