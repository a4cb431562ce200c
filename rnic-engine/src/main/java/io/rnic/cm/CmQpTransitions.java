package io.rnic.cm;

import io.rnic.device.QueuePair;
import io.rnic.device.RnicDevice;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.QpAttrMask;
import io.rnic.verbs.QpAttributes;
import io.rnic.verbs.QpState;

/**
 * What the CM does to a connection's RC QP, as librdmacm does with {@code rdma_create_qp}, {@code ucma_modify_qp_rtr}
 * / {@code _rts}, {@code rdma_disconnect} and {@code rdma_destroy_qp}: RESET → INIT, INIT → RTR → RTS from the
 * parameters the REQ and REP carried, to the error state, and destroyed. Apart from the state machine because it
 * speaks verbs (attributes and masks), not MADs. On an endpoint it runs on the engine thread, where the device
 * applies each modification inline.
 */
final class CmQpTransitions
{
    private static final int QP_ACCESS = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE |
        AccessFlags.REMOTE_READ | AccessFlags.REMOTE_ATOMIC;

    private final RnicDevice device;

    CmQpTransitions(final RnicDevice device)
    {
        this.device = device;
    }

    /**
     * RESET → INIT for an RC QP, with remote READ, WRITE and atomics allowed, as {@code rdma_create_qp} leaves it:
     * receives may be posted before the connection is accepted or made.
     */
    static void toInit(final QueuePair qp)
    {
        if (qp.state() != QpState.RESET)
        {
            return;
        }
        final QpAttributes attr = new QpAttributes();
        attr.state = QpState.INIT;
        attr.accessFlags = QP_ACCESS;
        qp.modify(attr, QpAttrMask.STATE | QpAttrMask.PKEY_INDEX | QpAttrMask.PORT | QpAttrMask.ACCESS_FLAGS);
    }

    /**
     * INIT (keeping the receives posted) → RTR → RTS with the connection's parameters. The starting PSN each side
     * announces (REQ, REP) is the PSN it expects to receive first: the peer sends from it. So Linux does, as
     * rping.pcap shows (the client's first SEND carries the REP's PSN, the server's first READ the REQ's), and
     * rxe answers a packet at the other PSN with a sequence-error NAK.
     */
    void toRts(final CmConnection c, final int maxReadAtomic, final int maxDestReadAtomic)
    {
        final QueuePair qp = c.qp;
        toInit(qp);
        final QpAttributes attr = new QpAttributes();
        attr.state = QpState.RTR;
        attr.pathMtu = c.pathMtu;
        attr.destQpNumber = c.remoteQpn;
        attr.rqPsn = c.localPsn;
        attr.maxDestReadAtomic = Math.max(1, maxDestReadAtomic);
        attr.minRnrTimer = 12;
        attr.addressVector.copyFrom(c.peer);
        qp.modify(attr, QpAttrMask.STATE | QpAttrMask.AV | QpAttrMask.PATH_MTU | QpAttrMask.DEST_QPN |
            QpAttrMask.RQ_PSN | QpAttrMask.MAX_DEST_RD_ATOMIC | QpAttrMask.MIN_RNR_TIMER);
        attr.state = QpState.RTS;
        attr.sqPsn = c.remotePsn;
        attr.timeout = c.localAckTimeout;
        attr.retryCount = c.retryCount;
        attr.rnrRetry = c.rnrRetryCount;
        attr.maxReadAtomic = Math.max(1, maxReadAtomic);
        qp.modify(attr, QpAttrMask.STATE | QpAttrMask.SQ_PSN | QpAttrMask.TIMEOUT | QpAttrMask.RETRY_CNT |
            QpAttrMask.RNR_RETRY | QpAttrMask.MAX_QP_RD_ATOMIC);
    }

    /** The connection's QP to the error state, unless it is in RESET (never connected) or already there. */
    void toError(final CmConnection c)
    {
        if (c.qp != null && c.qp.state() != QpState.RESET && c.qp.state() != QpState.ERR)
        {
            final QpAttributes attr = new QpAttributes();
            attr.state = QpState.ERR;
            c.qp.modify(attr, QpAttrMask.STATE);
        }
    }

    /**
     * The connection's QPN stays taken in its engine's table (held) though its owner may destroy the QP: the
     * connection lets go of a QP it still keeps in its timewait. Once; {@link #releaseQpn} ends it.
     */
    void holdQpn(final CmConnection c)
    {
        if (c.qp != null && c.heldQpn == 0)
        {
            c.heldQpn = c.qp.qpn();
            device.engineFor(c.heldQpn).qps().hold(c.heldQpn);
        }
    }

    /** The timewait is over: the number a {@link #holdQpn} kept may be handed out again. */
    void releaseQpn(final CmConnection c)
    {
        if (c.heldQpn != 0)
        {
            device.engineFor(c.heldQpn).qps().release(c.heldQpn);
            c.heldQpn = 0;
        }
    }

    /** Destroys the connection's QP, once. */
    void destroy(final CmConnection c)
    {
        final QueuePair qp = c.qp;
        if (qp != null)
        {
            c.qp = null;
            device.destroyQp(qp);
        }
    }
}
