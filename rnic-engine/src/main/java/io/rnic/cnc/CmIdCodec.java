package io.rnic.cnc;

import io.rnic.cm.CmId;
import io.rnic.cnc.command.CmIdChangeFlyweight;

/**
 * How the driver tells a client what its RDMA CM ids are now ({@link ControlProtocol#CM_POLL}'s answer,
 * {@link CmIdChangeFlyweight}). The answer is the whole id every time, not a delta, so a client that missed nothing
 * needs nothing else and a new request arrives complete.
 */
public final class CmIdCodec
{
    /** Nothing changed since the client last polled. */
    public static final int KIND_NONE = 0;
    /** A REQ to one of the client's ports: a new id, in {@code REQ_RCVD}. */
    public static final int KIND_REQUEST = 1;
    /** An id of the client's changed state. */
    public static final int KIND_UPDATE = 2;

    private CmIdCodec()
    {
    }

    /** Writes an id's snapshot into {@code answer}. */
    public static void encode(final int kind, final int handle, final CmId id, final CmIdChangeFlyweight answer)
    {
        answer
            .kind(kind)
            .cmIdHandle(handle)
            .cmState(id.state().ordinal())
            .rejectReason(id.rejectReason())
            .remoteQpNum(id.remoteQpn())
            .remotePsn(id.remotePsn())
            .localPsn(id.localPsn())
            .pathMtu(id.pathMtu() == null ? 0 : id.pathMtu().value())
            .responderResources(id.responderResources())
            .initiatorDepth(id.initiatorDepth())
            .peerGidHigh(id.peerGidHigh())
            .peerGidLow(id.peerGidLow())
            .servicePort(id.servicePort())
            .peerPort(id.peerPort())
            .privateData(id.peerPrivateData());
    }

    /** Nothing changed: every field zero but the kind. */
    public static void encodeNone(final CmIdChangeFlyweight answer)
    {
        answer.buffer().setMemory(answer.offset() + CmIdChangeFlyweight.KIND_OFFSET,
            CmIdChangeFlyweight.LENGTH - CmIdChangeFlyweight.KIND_OFFSET, (byte)0);
        answer.kind(KIND_NONE);
    }
}
