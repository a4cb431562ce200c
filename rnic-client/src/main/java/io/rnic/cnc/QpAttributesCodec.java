package io.rnic.cnc;

import io.rnic.verbs.AddressVector;
import io.rnic.verbs.PathMtu;
import io.rnic.verbs.QpAttributes;
import io.rnic.verbs.QpState;
import io.rnic.verbs.VerbsException;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Every field of {@link QpAttributes}, address vector included, as {@link ControlProtocol} arguments: enums by
 * ordinal (-1 for none), the rest as they are. The driver decodes into an attributes object of its own and checks
 * the ordinals; {@code modify_qp}'s own checks do the rest.
 */
public final class QpAttributesCodec
{
    /** Arguments the attributes take. */
    public static final int ARGS = 24;

    private QpAttributesCodec()
    {
    }

    public static void encode(
        final QpAttributes attributes, final MutableDirectBuffer buffer, final int offset, final int firstArg)
    {
        int i = firstArg;
        ControlProtocol.putArg(buffer, offset, i++, ordinal(attributes.state));
        ControlProtocol.putArg(buffer, offset, i++, ordinal(attributes.currentState));
        ControlProtocol.putArg(buffer, offset, i++, ordinal(attributes.pathMtu));
        ControlProtocol.putArg(buffer, offset, i++, attributes.qkey);
        ControlProtocol.putArg(buffer, offset, i++, attributes.rqPsn);
        ControlProtocol.putArg(buffer, offset, i++, attributes.sqPsn);
        ControlProtocol.putArg(buffer, offset, i++, attributes.destQpNumber);
        ControlProtocol.putArg(buffer, offset, i++, attributes.accessFlags);
        ControlProtocol.putArg(buffer, offset, i++, attributes.pkeyIndex);
        ControlProtocol.putArg(buffer, offset, i++, attributes.portNumber);
        ControlProtocol.putArg(buffer, offset, i++, attributes.timeout);
        ControlProtocol.putArg(buffer, offset, i++, attributes.retryCount);
        ControlProtocol.putArg(buffer, offset, i++, attributes.rnrRetry);
        ControlProtocol.putArg(buffer, offset, i++, attributes.minRnrTimer);
        ControlProtocol.putArg(buffer, offset, i++, attributes.maxReadAtomic);
        ControlProtocol.putArg(buffer, offset, i++, attributes.maxDestReadAtomic);
        final AddressVector av = attributes.addressVector;
        ControlProtocol.putArg(buffer, offset, i++, av.destinationGidHigh());
        ControlProtocol.putArg(buffer, offset, i++, av.destinationGidLow());
        ControlProtocol.putArg(buffer, offset, i++, av.sourceGidIndex());
        ControlProtocol.putArg(buffer, offset, i++, av.hopLimit());
        ControlProtocol.putArg(buffer, offset, i++, av.trafficClass());
        ControlProtocol.putArg(buffer, offset, i++, av.flowLabel());
        ControlProtocol.putArg(buffer, offset, i++, av.serviceLevel());
        ControlProtocol.putArg(buffer, offset, i, av.destinationMac());
    }

    /** The arguments of a {@code modify_qp} command: the QP's handle, the mask, then every attribute. */
    public static long[] modifyArgs(final long handle, final QpAttributes attributes, final int mask)
    {
        final UnsafeBuffer encoded = new UnsafeBuffer(new byte[ControlProtocol.MAX_MESSAGE_LENGTH]);
        encode(attributes, encoded, 0, 0);
        final long[] args = new long[2 + ARGS];
        args[0] = handle;
        args[1] = mask;
        for (int i = 0; i < ARGS; i++)
        {
            args[2 + i] = ControlProtocol.arg(encoded, 0, i);
        }
        return args;
    }

    /** Fills {@code into}; throws {@link VerbsException} when an enum's ordinal or an int field is out of range. */
    public static void decode(
        final DirectBuffer buffer, final int offset, final int firstArg, final QpAttributes into)
    {
        int i = firstArg;
        into.state = enumOf(QpState.values(), ControlProtocol.arg(buffer, offset, i++), "state");
        into.currentState = enumOf(QpState.values(), ControlProtocol.arg(buffer, offset, i++), "current state");
        into.pathMtu = enumOf(PathMtu.values(), ControlProtocol.arg(buffer, offset, i++), "path MTU");
        into.qkey = intOf(ControlProtocol.arg(buffer, offset, i++), "qkey");
        into.rqPsn = intOf(ControlProtocol.arg(buffer, offset, i++), "rq_psn");
        into.sqPsn = intOf(ControlProtocol.arg(buffer, offset, i++), "sq_psn");
        into.destQpNumber = intOf(ControlProtocol.arg(buffer, offset, i++), "dest_qp_num");
        into.accessFlags = intOf(ControlProtocol.arg(buffer, offset, i++), "access flags");
        into.pkeyIndex = intOf(ControlProtocol.arg(buffer, offset, i++), "pkey_index");
        into.portNumber = intOf(ControlProtocol.arg(buffer, offset, i++), "port");
        into.timeout = intOf(ControlProtocol.arg(buffer, offset, i++), "timeout");
        into.retryCount = intOf(ControlProtocol.arg(buffer, offset, i++), "retry_cnt");
        into.rnrRetry = intOf(ControlProtocol.arg(buffer, offset, i++), "rnr_retry");
        into.minRnrTimer = intOf(ControlProtocol.arg(buffer, offset, i++), "min_rnr_timer");
        into.maxReadAtomic = intOf(ControlProtocol.arg(buffer, offset, i++), "max_rd_atomic");
        into.maxDestReadAtomic = intOf(ControlProtocol.arg(buffer, offset, i++), "max_dest_rd_atomic");
        final long gidHigh = ControlProtocol.arg(buffer, offset, i++);
        final long gidLow = ControlProtocol.arg(buffer, offset, i++);
        into.addressVector
            .destinationGid(gidHigh, gidLow)
            .sourceGidIndex(intOf(ControlProtocol.arg(buffer, offset, i++), "sgid_index"))
            .hopLimit(intOf(ControlProtocol.arg(buffer, offset, i++), "hop_limit"))
            .trafficClass(intOf(ControlProtocol.arg(buffer, offset, i++), "traffic_class"))
            .flowLabel(intOf(ControlProtocol.arg(buffer, offset, i++), "flow_label"))
            .serviceLevel(intOf(ControlProtocol.arg(buffer, offset, i++), "sl"))
            .destinationMac(ControlProtocol.arg(buffer, offset, i));
    }

    private static long ordinal(final Enum<?> value)
    {
        return value == null ? -1 : value.ordinal();
    }

    private static <E extends Enum<E>> E enumOf(final E[] values, final long ordinal, final String name)
    {
        if (ordinal == -1)
        {
            return null;
        }
        if (ordinal < 0 || ordinal >= values.length)
        {
            throw new VerbsException("malformed modify_qp: " + name + " " + ordinal + " is not a value");
        }
        return values[(int)ordinal];
    }

    private static int intOf(final long value, final String name)
    {
        if (value != (int)value && value != (value & 0xFFFF_FFFFL))
        {
            throw new VerbsException("malformed modify_qp: " + name + " " + value + " does not fit 32 bits");
        }
        return (int)value;
    }
}
