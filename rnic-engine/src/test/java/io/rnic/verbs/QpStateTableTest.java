package io.rnic.verbs;

import org.junit.jupiter.api.Test;

import static io.rnic.verbs.QpAttrMask.ACCESS_FLAGS;
import static io.rnic.verbs.QpAttrMask.AV;
import static io.rnic.verbs.QpAttrMask.DEST_QPN;
import static io.rnic.verbs.QpAttrMask.MAX_DEST_RD_ATOMIC;
import static io.rnic.verbs.QpAttrMask.MAX_QP_RD_ATOMIC;
import static io.rnic.verbs.QpAttrMask.MIN_RNR_TIMER;
import static io.rnic.verbs.QpAttrMask.PATH_MTU;
import static io.rnic.verbs.QpAttrMask.PKEY_INDEX;
import static io.rnic.verbs.QpAttrMask.PORT;
import static io.rnic.verbs.QpAttrMask.QKEY;
import static io.rnic.verbs.QpAttrMask.RETRY_CNT;
import static io.rnic.verbs.QpAttrMask.RNR_RETRY;
import static io.rnic.verbs.QpAttrMask.RQ_PSN;
import static io.rnic.verbs.QpAttrMask.SQ_PSN;
import static io.rnic.verbs.QpAttrMask.STATE;
import static io.rnic.verbs.QpAttrMask.TIMEOUT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

class QpStateTableTest
{
    private static final int RC_RTR = STATE | AV | PATH_MTU | DEST_QPN | RQ_PSN | MAX_DEST_RD_ATOMIC | MIN_RNR_TIMER;
    private static final int RC_RTS = STATE | SQ_PSN | TIMEOUT | RETRY_CNT | RNR_RETRY | MAX_QP_RD_ATOMIC;

    @Test
    void shouldWalkAnRcQpUpAsIbvRcPingpongDoes()
    {
        assertNull(QpStateTable.check(QpType.RC, QpState.RESET, QpState.INIT, STATE | PKEY_INDEX | PORT | ACCESS_FLAGS));
        assertNull(QpStateTable.check(QpType.RC, QpState.INIT, QpState.RTR, RC_RTR));
        assertNull(QpStateTable.check(QpType.RC, QpState.RTR, QpState.RTS, RC_RTS));
    }

    @Test
    void shouldWalkUdAndUcQpsUpWithTheirOwnAttributes()
    {
        assertNull(QpStateTable.check(QpType.UD, QpState.RESET, QpState.INIT, STATE | PKEY_INDEX | PORT | QKEY));
        assertNull(QpStateTable.check(QpType.UD, QpState.INIT, QpState.RTR, STATE));
        assertNull(QpStateTable.check(QpType.UD, QpState.RTR, QpState.RTS, STATE | SQ_PSN));
        assertNull(QpStateTable.check(QpType.UC, QpState.INIT, QpState.RTR, STATE | AV | PATH_MTU | DEST_QPN | RQ_PSN));
        assertNull(QpStateTable.check(QpType.UC, QpState.RTR, QpState.RTS, STATE | SQ_PSN));
    }

    @Test
    void shouldNameMissingRequiredAttributes()
    {
        assertEquals("RC QP: INIT -> RTR requires MIN_RNR_TIMER|MAX_DEST_RD_ATOMIC",
            QpStateTable.check(QpType.RC, QpState.INIT, QpState.RTR, STATE | AV | PATH_MTU | DEST_QPN | RQ_PSN));
        assertEquals("UD QP: RESET -> INIT requires QKEY",
            QpStateTable.check(QpType.UD, QpState.RESET, QpState.INIT, STATE | PKEY_INDEX | PORT));
    }

    @Test
    void shouldRejectAttributesTheTransitionDoesNotTake()
    {
        assertEquals("UD QP: INIT -> RTR does not take AV",
            QpStateTable.check(QpType.UD, QpState.INIT, QpState.RTR, STATE | AV));
        assertEquals("RC QP: RTR -> RTS does not take PATH_MTU",
            QpStateTable.check(QpType.RC, QpState.RTR, QpState.RTS, RC_RTS | PATH_MTU));
    }

    @Test
    void shouldRejectIllegalTransitions()
    {
        assertEquals("RC QP: transition RESET -> RTS is not allowed",
            QpStateTable.check(QpType.RC, QpState.RESET, QpState.RTS, STATE));
        assertEquals("RC QP: transition INIT -> RTS is not allowed",
            QpStateTable.check(QpType.RC, QpState.INIT, QpState.RTS, RC_RTS));
        assertEquals("RC QP: transition SQE -> RTS is not allowed",
            QpStateTable.check(QpType.RC, QpState.SQE, QpState.RTS, STATE));
        assertNull(QpStateTable.check(QpType.UC, QpState.SQE, QpState.RTS, STATE));
    }

    @Test
    void shouldAllowResetAndErrorFromEveryState()
    {
        for (final QpType type : QpType.values())
        {
            for (final QpState from : QpState.values())
            {
                assertNull(QpStateTable.check(type, from, QpState.RESET, STATE), type + " " + from);
                assertNull(QpStateTable.check(type, from, QpState.ERR, STATE), type + " " + from);
            }
        }
    }
}
