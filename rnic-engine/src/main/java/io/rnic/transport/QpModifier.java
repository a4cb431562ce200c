package io.rnic.transport;

import io.rnic.verbs.PathMtu;
import io.rnic.verbs.QpAttrMask;
import io.rnic.verbs.QpAttributes;
import io.rnic.verbs.QpState;
import io.rnic.verbs.QpStateTable;
import io.rnic.verbs.QpType;

/**
 * ibverbs {@code modify_qp} on the engine thread, what rxe keeps in {@code rxe_qp.c}: check the transition and the
 * attributes ({@code rxe_qp_chk_attr}), then copy them into the QP and enter the new state
 * ({@code rxe_qp_from_attr}). A class of its own so that {@link RnicEngine} holds the duty cycle and the plumbing of
 * commands, and the rules of a QP's life read in one place.
 */
final class QpModifier
{
    private final LocalPort port;
    private final Completions completions;

    QpModifier(final LocalPort port, final Completions completions)
    {
        this.port = port;
        this.completions = completions;
    }

    /**
     * Checks, then applies, the attributes {@code mask} selects. Engine thread.
     *
     * @return what is wrong, the QP unchanged; or null, the QP modified.
     */
    String modify(final QpContext qp, final QpAttributes attr, final int mask, final long nowNs)
    {
        final String problem = check(qp, attr, mask);
        if (problem != null)
        {
            return problem;
        }
        final QpState from = qp.state;
        apply(qp, attr, mask);
        enter(qp, from, (mask & QpAttrMask.STATE) != 0 ? attr.state : from, nowNs);
        return null;
    }

    /** rxe's {@code rxe_qp_chk_attr}: whether the transition is legal and the attributes fit it and the port. */
    private String check(final QpContext qp, final QpAttributes attr, final int mask)
    {
        final QpState from = qp.state;
        final QpState to = (mask & QpAttrMask.STATE) != 0 ? attr.state : from;
        if ((mask & QpAttrMask.CUR_STATE) != 0 && attr.currentState != from)
        {
            return "current state is " + from + ", not " + attr.currentState;
        }
        String problem = QpStateTable.check(qp.type, from, to, mask);
        if (problem == null)
        {
            problem = attr.validate(mask);
        }
        if (problem == null && (mask & QpAttrMask.AV) != 0)
        {
            problem = Addressing.check(attr.addressVector, port);
        }
        if (problem == null && (mask & QpAttrMask.AV) != 0 && qp.type != QpType.UD &&
            attr.addressVector.destinationMac() == 0)
        {
            // Frames to 00:00:00:00:00:00 reach the peer only on a link that ignores the destination (a veth): on a
            // real NIC they are dropped, and the QP fails with RETRY_EXC_ERR long after this mistake.
            problem = Addressing.UNRESOLVED_MAC;
        }
        if (problem == null && (mask & QpAttrMask.PATH_MTU) != 0 && qp.type != QpType.UD)
        {
            // Packets of a path MTU the port cannot carry leave as frames larger than the link's MTU, which the
            // kernel or the switch drops: the QP fails with RETRY_EXC_ERR long after this mistake.
            problem = checkPathMtu(attr.pathMtu);
        }
        return problem;
    }

    /** Whether the port's Ethernet MTU carries packets of {@code pathMtu}; what is wrong otherwise. */
    private String checkPathMtu(final PathMtu pathMtu)
    {
        final PathMtu largest = PathMtu.forEthernetMtu(port.ethernetMtu());
        if (pathMtu.bytes() <= largest.bytes())
        {
            return null;
        }
        return "path MTU " + pathMtu.bytes() + " is larger than the port's (Ethernet MTU " + port.ethernetMtu() +
            " carries IB MTU " + largest.bytes() + " at most): connect with min(the port's, the peer's), or raise " +
            "the interface's MTU";
    }

    /** rxe's {@code rxe_qp_from_attr}: copies the attributes into the QP, and the addressing into its frame. */
    private void apply(final QpContext qp, final QpAttributes attr, final int mask)
    {
        applyPath(qp, attr, mask);
        applyRequester(qp, attr, mask);
        applyResponder(qp, attr, mask);
    }

    /** Where the QP's packets go and how large they may be; its frame template follows a new peer. */
    private void applyPath(final QpContext qp, final QpAttributes attr, final int mask)
    {
        if ((mask & QpAttrMask.AV) != 0)
        {
            qp.addressVector.copyFrom(attr.addressVector);
        }
        if ((mask & QpAttrMask.DEST_QPN) != 0)
        {
            qp.destQpn = attr.destQpNumber;
        }
        if ((mask & QpAttrMask.PATH_MTU) != 0)
        {
            qp.pathMtu = attr.pathMtu;
            qp.mtuBytes = attr.pathMtu.bytes();
        }
        if ((mask & QpAttrMask.QKEY) != 0)
        {
            qp.qkey = attr.qkey;
        }
        if (qp.type != QpType.UD && (mask & (QpAttrMask.AV | QpAttrMask.DEST_QPN)) != 0)
        {
            Addressing.apply(qp.frame, qp.addressVector, port, qp.qpn, qp.destQpn, qp.ecn());
        }
    }

    /** The send side's PSN, local ACK timeout, retries and READ/atomic depth. */
    private static void applyRequester(final QpContext qp, final QpAttributes attr, final int mask)
    {
        if ((mask & QpAttrMask.SQ_PSN) != 0)
        {
            qp.reqPsn = attr.sqPsn;
            qp.compPsn = attr.sqPsn;
            qp.highestSentPsnPlusOne = attr.sqPsn;
        }
        if ((mask & QpAttrMask.TIMEOUT) != 0)
        {
            qp.timeoutCode = attr.timeout;
        }
        if ((mask & QpAttrMask.RETRY_CNT) != 0)
        {
            qp.retryCount = attr.retryCount;
            qp.retryLeft = attr.retryCount;
        }
        if ((mask & QpAttrMask.MAX_QP_RD_ATOMIC) != 0)
        {
            qp.maxReadAtomic = attr.maxReadAtomic;
        }
        if ((mask & QpAttrMask.RNR_RETRY) != 0)
        {
            qp.rnrRetry = attr.rnrRetry;
            qp.rnrRetryLeft = attr.rnrRetry;
        }
    }

    /** The receive side's expected PSN, the remote access it grants, its RNR timer and READ/atomic depth. */
    private static void applyResponder(final QpContext qp, final QpAttributes attr, final int mask)
    {
        if ((mask & QpAttrMask.RQ_PSN) != 0)
        {
            qp.ePsn = attr.rqPsn;
        }
        if ((mask & QpAttrMask.ACCESS_FLAGS) != 0)
        {
            qp.accessFlags = attr.accessFlags;
        }
        if ((mask & QpAttrMask.MIN_RNR_TIMER) != 0)
        {
            qp.minRnrTimer = attr.minRnrTimer;
        }
        if ((mask & QpAttrMask.MAX_DEST_RD_ATOMIC) != 0)
        {
            qp.maxDestReadAtomic = attr.maxDestReadAtomic;
        }
    }

    /** Enters state {@code to}: RESET forgets the transport's state, ERR completes what is posted in error. */
    private void enter(final QpContext qp, final QpState from, final QpState to, final long nowNs)
    {
        switch (to)
        {
            case RESET ->
            {
                qp.resetTransport();
                if (qp.congestion != null)
                {
                    qp.congestion.reset(nowNs);
                }
            }
            case ERR ->
            {
                if (from != QpState.ERR)
                {
                    qp.state = QpState.ERR;
                    completions.moveToError(qp);
                }
            }
            default ->
            {
            }
        }
        qp.state = to;
    }
}
