package io.rnic.cnc;

import io.rnic.cm.CmId;
import io.rnic.cm.CmRepFlyweight;

/**
 * How the driver tells a client what its RDMA CM ids are now ({@link ControlProtocol#CM_POLL}'s answer), and how
 * private data travels in {@code long} arguments: a length, then the bytes eight to a {@code long}, little-endian.
 * The answer is the whole id every time, not a delta, so a client that missed nothing needs nothing else and a new
 * request arrives complete.
 */
public final class CmIdCodec
{
    /** Nothing changed since the client last polled. */
    public static final int KIND_NONE = 0;
    /** A REQ to one of the client's ports: a new id, in {@code REQ_RCVD}. */
    public static final int KIND_REQUEST = 1;
    /** An id of the client's changed state. */
    public static final int KIND_UPDATE = 2;

    public static final int KIND = 0;
    public static final int ID = 1;
    public static final int STATE = 2;
    public static final int REJECT_REASON = 3;
    public static final int REMOTE_QPN = 4;
    public static final int REMOTE_PSN = 5;
    public static final int LOCAL_PSN = 6;
    public static final int PATH_MTU_BYTES = 7;
    public static final int RESPONDER_RESOURCES = 8;
    public static final int INITIATOR_DEPTH = 9;
    public static final int PEER_GID_HIGH = 10;
    public static final int PEER_GID_LOW = 11;
    public static final int SERVICE_PORT = 12;
    public static final int PEER_PORT = 13;
    public static final int PRIVATE_DATA = 14;
    /** The most private data an id carries: a REP's. */
    public static final int MAX_PRIVATE_DATA_LENGTH = CmRepFlyweight.PRIVATE_DATA_LENGTH;
    /** Arguments private data takes at most: its length and its bytes. */
    public static final int PRIVATE_DATA_ARGS = 1 + (MAX_PRIVATE_DATA_LENGTH + Long.BYTES - 1) / Long.BYTES;
    public static final int ANSWER_VALUES = PRIVATE_DATA + PRIVATE_DATA_ARGS;

    private CmIdCodec()
    {
    }

    /** Writes an id's snapshot into {@code values}; returns how many values it took. */
    public static int encode(final int kind, final int handle, final CmId id, final long[] values)
    {
        values[KIND] = kind;
        values[ID] = handle;
        values[STATE] = id.state().ordinal();
        values[REJECT_REASON] = id.rejectReason();
        values[REMOTE_QPN] = id.remoteQpn();
        values[REMOTE_PSN] = id.remotePsn();
        values[LOCAL_PSN] = id.localPsn();
        values[PATH_MTU_BYTES] = id.pathMtu().bytes();
        values[RESPONDER_RESOURCES] = id.responderResources();
        values[INITIATOR_DEPTH] = id.initiatorDepth();
        values[PEER_GID_HIGH] = id.peerGidHigh();
        values[PEER_GID_LOW] = id.peerGidLow();
        values[SERVICE_PORT] = id.servicePort();
        values[PEER_PORT] = id.peerPort();
        return PRIVATE_DATA + putPrivateData(id.peerPrivateData(), values, PRIVATE_DATA);
    }

    /**
     * Packs {@code data} (at most {@link #MAX_PRIVATE_DATA_LENGTH} bytes) at {@code values[index]}: its length, then its
     * bytes; returns how many values it took.
     */
    public static int putPrivateData(final byte[] data, final long[] values, final int index)
    {
        if (data.length > MAX_PRIVATE_DATA_LENGTH)
        {
            throw new IllegalArgumentException("private data of " + data.length + " bytes: at most " +
                MAX_PRIVATE_DATA_LENGTH);
        }
        values[index] = data.length;
        final int words = (data.length + Long.BYTES - 1) / Long.BYTES;
        for (int w = 0; w < words; w++)
        {
            long word = 0;
            for (int b = 0; b < Long.BYTES && w * Long.BYTES + b < data.length; b++)
            {
                word |= (data[w * Long.BYTES + b] & 0xFFL) << (8 * b);
            }
            values[index + 1 + w] = word;
        }
        return 1 + words;
    }

    /**
     * The private data packed at {@code values[index]} of {@code count} values.
     *
     * @throws IllegalArgumentException when the length is out of range or the values end before the bytes do.
     */
    public static byte[] privateData(final long[] values, final int index, final int count)
    {
        if (index >= count)
        {
            throw new IllegalArgumentException("no private data length");
        }
        final long length = values[index];
        if (length < 0 || length > MAX_PRIVATE_DATA_LENGTH ||
            count - index - 1 < (length + Long.BYTES - 1) / Long.BYTES)
        {
            throw new IllegalArgumentException("private data of " + length + " bytes in " + (count - index - 1) +
                " values: at most " + MAX_PRIVATE_DATA_LENGTH + " bytes");
        }
        final byte[] data = new byte[(int)length];
        for (int i = 0; i < data.length; i++)
        {
            data[i] = (byte)(values[index + 1 + i / Long.BYTES] >>> (8 * (i % Long.BYTES)));
        }
        return data;
    }
}
