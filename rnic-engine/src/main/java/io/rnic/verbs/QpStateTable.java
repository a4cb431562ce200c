package io.rnic.verbs;

import static io.rnic.verbs.QpAttrMask.ACCESS_FLAGS;
import static io.rnic.verbs.QpAttrMask.ALT_PATH;
import static io.rnic.verbs.QpAttrMask.AV;
import static io.rnic.verbs.QpAttrMask.CUR_STATE;
import static io.rnic.verbs.QpAttrMask.DEST_QPN;
import static io.rnic.verbs.QpAttrMask.EN_SQD_ASYNC_NOTIFY;
import static io.rnic.verbs.QpAttrMask.MAX_DEST_RD_ATOMIC;
import static io.rnic.verbs.QpAttrMask.MAX_QP_RD_ATOMIC;
import static io.rnic.verbs.QpAttrMask.MIN_RNR_TIMER;
import static io.rnic.verbs.QpAttrMask.PATH_MIG_STATE;
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

/**
 * The legal {@code modifyQp} transitions and, per transport, the attributes each one requires and allows: the
 * IBTA's QP state diagram as Linux encodes it in {@code qp_state_table} ({@code drivers/infiniband/core/verbs.c}).
 * A transition not in the table, a missing required attribute or an attribute not allowed is an error that names
 * what is wrong.
 */
public final class QpStateTable
{
    private static final int STATES = QpState.values().length;
    private static final int TYPES = QpType.values().length;
    private static final boolean[][] VALID = new boolean[STATES][STATES];
    private static final int[][][] REQUIRED = new int[STATES][STATES][TYPES];
    private static final int[][][] OPTIONAL = new int[STATES][STATES][TYPES];

    static
    {
        for (final QpState from : QpState.values())
        {
            allow(from, QpState.RESET, 0, 0, 0, 0, 0, 0);
            allow(from, QpState.ERR, 0, 0, 0, 0, 0, 0);
        }
        allow(QpState.RESET, QpState.INIT,
            PKEY_INDEX | PORT | QKEY, PKEY_INDEX | PORT | ACCESS_FLAGS, PKEY_INDEX | PORT | ACCESS_FLAGS, 0, 0, 0);
        allow(QpState.INIT, QpState.INIT, 0, 0, 0,
            PKEY_INDEX | PORT | QKEY, PKEY_INDEX | PORT | ACCESS_FLAGS, PKEY_INDEX | PORT | ACCESS_FLAGS);
        allow(QpState.INIT, QpState.RTR,
            0,
            AV | PATH_MTU | DEST_QPN | RQ_PSN,
            AV | PATH_MTU | DEST_QPN | RQ_PSN | MAX_DEST_RD_ATOMIC | MIN_RNR_TIMER,
            PKEY_INDEX | QKEY,
            ALT_PATH | ACCESS_FLAGS | PKEY_INDEX,
            ALT_PATH | ACCESS_FLAGS | PKEY_INDEX);
        allow(QpState.RTR, QpState.RTS,
            SQ_PSN,
            SQ_PSN,
            SQ_PSN | TIMEOUT | RETRY_CNT | RNR_RETRY | MAX_QP_RD_ATOMIC,
            CUR_STATE | QKEY,
            CUR_STATE | ALT_PATH | ACCESS_FLAGS | PATH_MIG_STATE,
            CUR_STATE | ALT_PATH | ACCESS_FLAGS | MIN_RNR_TIMER | PATH_MIG_STATE);
        final int rtsOptionalUd = CUR_STATE | QKEY;
        final int rtsOptionalUc = CUR_STATE | ACCESS_FLAGS | ALT_PATH | PATH_MIG_STATE;
        final int rtsOptionalRc = CUR_STATE | ACCESS_FLAGS | ALT_PATH | PATH_MIG_STATE | MIN_RNR_TIMER;
        allow(QpState.RTS, QpState.RTS, 0, 0, 0, rtsOptionalUd, rtsOptionalUc, rtsOptionalRc);
        allow(QpState.RTS, QpState.SQD, 0, 0, 0, EN_SQD_ASYNC_NOTIFY, EN_SQD_ASYNC_NOTIFY, EN_SQD_ASYNC_NOTIFY);
        allow(QpState.SQD, QpState.RTS, 0, 0, 0, rtsOptionalUd, rtsOptionalUc, rtsOptionalRc);
        allow(QpState.SQD, QpState.SQD, 0, 0, 0,
            PKEY_INDEX | QKEY,
            AV | ALT_PATH | ACCESS_FLAGS | PKEY_INDEX | PATH_MIG_STATE,
            PORT | AV | TIMEOUT | RETRY_CNT | RNR_RETRY | MAX_QP_RD_ATOMIC | MAX_DEST_RD_ATOMIC | ALT_PATH |
                ACCESS_FLAGS | PKEY_INDEX | MIN_RNR_TIMER | PATH_MIG_STATE);
        allow(QpState.SQE, QpState.RTS, 0, 0, 0, CUR_STATE | QKEY, CUR_STATE | ACCESS_FLAGS, 0);
        VALID[QpState.SQE.ordinal()][QpState.RTS.ordinal()] = true; // RC never enters SQE: checked in check()
    }

    private QpStateTable()
    {
    }

    private static void allow(
        final QpState from,
        final QpState to,
        final int requiredUd,
        final int requiredUc,
        final int requiredRc,
        final int optionalUd,
        final int optionalUc,
        final int optionalRc)
    {
        VALID[from.ordinal()][to.ordinal()] = true;
        REQUIRED[from.ordinal()][to.ordinal()][QpType.UD.ordinal()] = requiredUd;
        REQUIRED[from.ordinal()][to.ordinal()][QpType.UC.ordinal()] = requiredUc;
        REQUIRED[from.ordinal()][to.ordinal()][QpType.RC.ordinal()] = requiredRc;
        OPTIONAL[from.ordinal()][to.ordinal()][QpType.UD.ordinal()] = optionalUd;
        OPTIONAL[from.ordinal()][to.ordinal()][QpType.UC.ordinal()] = optionalUc;
        OPTIONAL[from.ordinal()][to.ordinal()][QpType.RC.ordinal()] = optionalRc;
    }

    /**
     * Checks a transition and its attribute mask.
     *
     * @param mask the attribute mask of the call, including {@link QpAttrMask#STATE} when the state changes.
     * @return null when legal, otherwise an error message naming the transition and the attributes at fault.
     */
    public static String check(final QpType type, final QpState from, final QpState to, final int mask)
    {
        if (!VALID[from.ordinal()][to.ordinal()] || (type == QpType.RC && from == QpState.SQE && to == QpState.RTS))
        {
            return type + " QP: transition " + from + " -> " + to + " is not allowed";
        }
        final int attributes = mask & ~STATE;
        final int required = REQUIRED[from.ordinal()][to.ordinal()][type.ordinal()];
        final int optional = OPTIONAL[from.ordinal()][to.ordinal()][type.ordinal()];
        final int missing = required & ~attributes;
        if (missing != 0)
        {
            return type + " QP: " + from + " -> " + to + " requires " + QpAttrMask.toString(missing);
        }
        final int extra = attributes & ~(required | optional);
        if (extra != 0)
        {
            return type + " QP: " + from + " -> " + to + " does not take " + QpAttrMask.toString(extra);
        }
        return null;
    }
}
