package io.rnic.cnc;

import io.rnic.cm.CmId;
import io.rnic.cm.CmRepFlyweight;
import io.rnic.verbs.EventRing;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * How the driver tells a client what one of its RDMA CM ids is now: the payload of an {@link EventRing} record of kind
 * {@link EventRing#KIND_CM_REQUEST} or {@link EventRing#KIND_CM_UPDATE}, the record's handle the id's. A record holds the whole id, not a delta, so a client that missed an intermediate state needs nothing else and a new
 * request arrives complete. Offsets from the record's payload; little-endian, as the rest of the ring.
 */
public final class CmIdCodec
{
    public static final int STATE_OFFSET = 0;
    public static final int REJECT_REASON_OFFSET = 4;
    public static final int REMOTE_QPN_OFFSET = 8;
    public static final int REMOTE_PSN_OFFSET = 12;
    public static final int LOCAL_PSN_OFFSET = 16;
    public static final int PATH_MTU_BYTES_OFFSET = 20;
    public static final int RESPONDER_RESOURCES_OFFSET = 24;
    public static final int INITIATOR_DEPTH_OFFSET = 28;
    public static final int PEER_GID_HIGH_OFFSET = 32;
    public static final int PEER_GID_LOW_OFFSET = 40;
    public static final int SERVICE_PORT_OFFSET = 48;
    public static final int PEER_PORT_OFFSET = 52;
    public static final int PRIVATE_DATA_LENGTH_OFFSET = 56;
    public static final int PRIVATE_DATA_OFFSET = 64;
    /** The most private data an id carries: a REP's. */
    public static final int MAX_PRIVATE_DATA_LENGTH = CmRepFlyweight.PRIVATE_DATA_LENGTH;
    /** Bytes of a record's payload an id takes at most. */
    public static final int RECORD_LENGTH = PRIVATE_DATA_OFFSET + MAX_PRIVATE_DATA_LENGTH;

    static
    {
        if (RECORD_LENGTH > EventRing.PAYLOAD_LENGTH)
        {
            throw new IllegalStateException("a CM id does not fit an event record's payload");
        }
    }

    private CmIdCodec()
    {
    }

    /** Writes an id's snapshot at {@code offset} of {@code buffer} (a record's payload). */
    public static void encode(final CmId id, final MutableDirectBuffer buffer, final int offset)
    {
        buffer.putInt(offset + STATE_OFFSET, id.state().ordinal());
        buffer.putInt(offset + REJECT_REASON_OFFSET, id.rejectReason());
        buffer.putInt(offset + REMOTE_QPN_OFFSET, id.remoteQpn());
        buffer.putInt(offset + REMOTE_PSN_OFFSET, id.remotePsn());
        buffer.putInt(offset + LOCAL_PSN_OFFSET, id.localPsn());
        buffer.putInt(offset + PATH_MTU_BYTES_OFFSET, id.pathMtu() == null ? 0 : id.pathMtu().bytes());
        buffer.putInt(offset + RESPONDER_RESOURCES_OFFSET, id.responderResources());
        buffer.putInt(offset + INITIATOR_DEPTH_OFFSET, id.initiatorDepth());
        buffer.putLong(offset + PEER_GID_HIGH_OFFSET, id.peerGidHigh());
        buffer.putLong(offset + PEER_GID_LOW_OFFSET, id.peerGidLow());
        buffer.putInt(offset + SERVICE_PORT_OFFSET, id.servicePort());
        buffer.putInt(offset + PEER_PORT_OFFSET, id.peerPort());
        final byte[] privateData = id.peerPrivateData();
        final int length = Math.min(privateData.length, MAX_PRIVATE_DATA_LENGTH);
        buffer.putInt(offset + PRIVATE_DATA_LENGTH_OFFSET, length);
        buffer.putBytes(offset + PRIVATE_DATA_OFFSET, privateData, 0, length);
    }

    /**
     * The private data of the id at {@code offset} of {@code buffer}.
     *
     * @throws IllegalArgumentException when its length is out of range.
     */
    public static byte[] privateData(final DirectBuffer buffer, final int offset)
    {
        final int length = buffer.getInt(offset + PRIVATE_DATA_LENGTH_OFFSET);
        if (length < 0 || length > MAX_PRIVATE_DATA_LENGTH)
        {
            throw new IllegalArgumentException("private data of " + length + " bytes: at most " +
                MAX_PRIVATE_DATA_LENGTH);
        }
        final byte[] data = new byte[length];
        buffer.getBytes(offset + PRIVATE_DATA_OFFSET, data);
        return data;
    }
}
