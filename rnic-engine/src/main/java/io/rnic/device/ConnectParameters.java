package io.rnic.device;

import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.AddressVector;
import io.rnic.verbs.PathMtu;
import io.rnic.verbs.QpAttrMask;
import io.rnic.verbs.QpAttributes;
import io.rnic.verbs.QpState;
import io.rnic.verbs.QpType;
import java.util.concurrent.ThreadLocalRandom;

/**
 * What it takes to bring a QP from RESET to RTS, in one place (what {@code ibv_rc_pingpong} and perftest do after
 * their out-of-band exchange): the peer's QPN and first PSN, our first PSN, the path, and the RC timers. Defaults
 * are rdma-core's pingpong values: MTU 1024, timeout 14, retry 7, RNR retry 7, min RNR timer 12, one READ/atomic,
 * and a random first PSN of our own ({@code lrand48() & 0xffffff}, as they draw it): a connection that starts at
 * the same PSN every time is one whose stale packets a new incarnation may take for its own.
 */
public final class ConnectParameters
{
    public int remoteQpn;
    public int remotePsn;
    public int localPsn = ThreadLocalRandom.current().nextInt(1 << 24);
    public int qkey = 0x11111111;
    public int accessFlags = AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_ATOMIC;
    public PathMtu pathMtu = PathMtu.MTU_1024;
    public int timeout = 14;
    public int retryCount = 7;
    public int rnrRetry = 7;
    public int minRnrTimer = 12;
    public int maxReadAtomic = 1;
    public int maxDestReadAtomic = 1;
    public final AddressVector addressVector = new AddressVector();

    public ConnectParameters remote(final int qpn, final int psn)
    {
        this.remoteQpn = qpn;
        this.remotePsn = psn;
        return this;
    }

    public ConnectParameters localPsn(final int psn)
    {
        this.localPsn = psn;
        return this;
    }

    public ConnectParameters pathMtu(final PathMtu mtu)
    {
        this.pathMtu = mtu;
        return this;
    }

    public ConnectParameters timers(final int timeout, final int retryCount, final int rnrRetry, final int minRnrTimer)
    {
        this.timeout = timeout;
        this.retryCount = retryCount;
        this.rnrRetry = rnrRetry;
        this.minRnrTimer = minRnrTimer;
        return this;
    }

    public ConnectParameters readAtomic(final int maxReadAtomic, final int maxDestReadAtomic)
    {
        this.maxReadAtomic = maxReadAtomic;
        this.maxDestReadAtomic = maxDestReadAtomic;
        return this;
    }

    public ConnectParameters accessFlags(final int accessFlags)
    {
        this.accessFlags = accessFlags;
        return this;
    }

    /** Takes the QP through RESET → INIT → RTR → RTS with the attributes its transport requires. */
    public void applyTo(final QueuePair qp)
    {
        final QpType type = qp.type();
        final QpAttributes attr = new QpAttributes();
        if (qp.state() != QpState.RESET)
        {
            attr.state = QpState.RESET;
            qp.modify(attr, QpAttrMask.STATE);
        }
        attr.state = QpState.INIT;
        attr.qkey = qkey;
        attr.accessFlags = accessFlags;
        qp.modify(attr, QpAttrMask.STATE | QpAttrMask.PKEY_INDEX | QpAttrMask.PORT |
            (type == QpType.UD ? QpAttrMask.QKEY : QpAttrMask.ACCESS_FLAGS));

        attr.state = QpState.RTR;
        attr.pathMtu = pathMtu;
        attr.destQpNumber = remoteQpn;
        attr.rqPsn = remotePsn;
        attr.maxDestReadAtomic = maxDestReadAtomic;
        attr.minRnrTimer = minRnrTimer;
        attr.addressVector.copyFrom(addressVector);
        qp.modify(attr, switch (type)
        {
            case UD -> QpAttrMask.STATE;
            case UC -> QpAttrMask.STATE | QpAttrMask.AV | QpAttrMask.PATH_MTU | QpAttrMask.DEST_QPN |
                QpAttrMask.RQ_PSN;
            case RC -> QpAttrMask.STATE | QpAttrMask.AV | QpAttrMask.PATH_MTU | QpAttrMask.DEST_QPN |
                QpAttrMask.RQ_PSN | QpAttrMask.MAX_DEST_RD_ATOMIC | QpAttrMask.MIN_RNR_TIMER;
        });

        attr.state = QpState.RTS;
        attr.sqPsn = localPsn;
        attr.timeout = timeout;
        attr.retryCount = retryCount;
        attr.rnrRetry = rnrRetry;
        attr.maxReadAtomic = maxReadAtomic;
        qp.modify(attr, type == QpType.RC ? QpAttrMask.STATE | QpAttrMask.SQ_PSN | QpAttrMask.TIMEOUT |
            QpAttrMask.RETRY_CNT | QpAttrMask.RNR_RETRY | QpAttrMask.MAX_QP_RD_ATOMIC :
            QpAttrMask.STATE | QpAttrMask.SQ_PSN);
    }
}
