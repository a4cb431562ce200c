package io.rnic.datapath.cm;

import io.rnic.RnicException;

/**
 * A connection that could not be made or accepted, with one line naming the cause: the peer's REJ and its reason,
 * no reply within the timeout, no ARP / neighbour answer from the peer, no connect request within the timeout.
 */
public final class RdmaCmException extends RnicException
{
    private final int rejectReason;
    private final byte[] rejectPrivateData;

    public RdmaCmException(final String message)
    {
        this(message, 0, new byte[0]);
    }

    /** The peer's REJ: its reason and private data, as librdmacm's {@code RDMA_CM_EVENT_REJECTED} carries them. */
    public RdmaCmException(final String message, final int rejectReason, final byte[] rejectPrivateData)
    {
        super(message);
        this.rejectReason = rejectReason;
        this.rejectPrivateData = rejectPrivateData.clone();
    }

    /** The REJ's reason ({@code IB_CM_REJ_*}: the event's status in librdmacm), or 0 when the peer did not reject. */
    public int rejectReason()
    {
        return rejectReason;
    }

    /** The REJ's private data, the whole field (148 bytes, zero-padded); empty when the peer did not reject. */
    public byte[] rejectPrivateData()
    {
        return rejectPrivateData.clone();
    }

    /** IBTA 12.6.7.2's name of a REJ reason (librdmacm reports the number as the event's status). */
    public static String rejectReasonName(final int reason)
    {
        return switch (reason)
        {
            case 1 -> "no QP available";
            case 3 -> "no resources available";
            case 4 -> "timeout";
            case 5 -> "unsupported request";
            case 6 -> "invalid communication ID";
            case 7 -> "invalid communication instance";
            case 8 -> "invalid service ID: nobody listens on that port";
            case 9 -> "invalid transport service type";
            case 10 -> "stale connection";
            case 12 -> "invalid primary GID";
            case 26 -> "invalid path MTU";
            case 28 -> "consumer reject: the listener refused it";
            default -> "reason " + reason;
        };
    }
}
