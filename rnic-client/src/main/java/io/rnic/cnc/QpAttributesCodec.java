package io.rnic.cnc;

import io.rnic.cnc.command.ModifyQpFlyweight;
import io.rnic.verbs.AddressVector;
import io.rnic.verbs.PathMtu;
import io.rnic.verbs.QpAttributes;
import io.rnic.verbs.QpState;
import io.rnic.verbs.VerbsException;

/**
 * Every field of {@link QpAttributes}, address vector included, in a {@code MODIFY_QP} ({@link ModifyQpFlyweight}):
 * states by {@code enum ibv_qp_state} value (-1 for none), the path MTU by {@code enum ibv_mtu} value (0 for none), the
 * rest as they are. The driver decodes into an attributes object of its own and checks the enums; {@code modify_qp}'s
 * own checks do the rest.
 */
public final class QpAttributesCodec
{
    private QpAttributesCodec()
    {
    }

    public static void encode(final QpAttributes attributes, final ModifyQpFlyweight command)
    {
        final AddressVector av = attributes.addressVector;
        command
            .qpState(attributes.state == null ? -1 : attributes.state.ordinal())
            .curQpState(attributes.currentState == null ? -1 : attributes.currentState.ordinal())
            .pathMtu(attributes.pathMtu == null ? 0 : attributes.pathMtu.value())
            .qkey(attributes.qkey)
            .rqPsn(attributes.rqPsn)
            .sqPsn(attributes.sqPsn)
            .destQpNum(attributes.destQpNumber)
            .qpAccessFlags(attributes.accessFlags)
            .pkeyIndex(attributes.pkeyIndex)
            .portNum(attributes.portNumber)
            .timeout(attributes.timeout)
            .retryCnt(attributes.retryCount)
            .rnrRetry(attributes.rnrRetry)
            .minRnrTimer(attributes.minRnrTimer)
            .maxRdAtomic(attributes.maxReadAtomic)
            .maxDestRdAtomic(attributes.maxDestReadAtomic)
            .dgidHigh(av.destinationGidHigh())
            .dgidLow(av.destinationGidLow())
            .destMac(av.destinationMac())
            .sgidIndex(av.sourceGidIndex())
            .hopLimit(av.hopLimit())
            .trafficClass(av.trafficClass())
            .flowLabel(av.flowLabel())
            .serviceLevel(av.serviceLevel());
    }

    /** Fills {@code into}; throws {@link VerbsException} when a state or path MTU is not one. */
    public static void decode(final ModifyQpFlyweight command, final QpAttributes into)
    {
        into.state = stateOf(command.qpState(), "state");
        into.currentState = stateOf(command.curQpState(), "current state");
        final int mtu = command.pathMtu();
        into.pathMtu = mtu == 0 ? null : PathMtu.ofValue(mtu);
        if (mtu != 0 && into.pathMtu == null)
        {
            throw new VerbsException("malformed modify_qp: path MTU " + mtu + " is not an ibv_mtu (1..5, 0: none)");
        }
        into.qkey = command.qkey();
        into.rqPsn = command.rqPsn();
        into.sqPsn = command.sqPsn();
        into.destQpNumber = command.destQpNum();
        into.accessFlags = command.qpAccessFlags();
        into.pkeyIndex = command.pkeyIndex();
        into.portNumber = command.portNum();
        into.timeout = command.timeout();
        into.retryCount = command.retryCnt();
        into.rnrRetry = command.rnrRetry();
        into.minRnrTimer = command.minRnrTimer();
        into.maxReadAtomic = command.maxRdAtomic();
        into.maxDestReadAtomic = command.maxDestRdAtomic();
        into.addressVector
            .destinationGid(command.dgidHigh(), command.dgidLow())
            .sourceGidIndex(command.sgidIndex())
            .hopLimit(command.hopLimit())
            .trafficClass(command.trafficClass())
            .flowLabel(command.flowLabel())
            .serviceLevel(command.serviceLevel())
            .destinationMac(command.destMac());
    }

    private static QpState stateOf(final int value, final String name)
    {
        if (value == -1)
        {
            return null;
        }
        if (value < 0 || value >= QpState.values().length)
        {
            throw new VerbsException("malformed modify_qp: " + name + " " + value + " is not an ibv_qp_state");
        }
        return QpState.values()[value]; // QpState's ordinals are ibv_qp_state's values
    }
}
