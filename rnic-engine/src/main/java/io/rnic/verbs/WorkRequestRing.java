package io.rnic.verbs;

import org.agrona.BitUtil;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.AtomicBuffer;

/**
 * A single-producer single-consumer ring of send or receive work requests in an {@link AtomicBuffer}, so that the
 * buffer may be shared memory: the producer is a client process posting ({@link #offerSend}, {@link #offerRecv}),
 * the consumer is the driver's engine thread ({@link #pollSend}, {@link #pollRecv}). Entries have a fixed length,
 * set by the most scatter/gather entries a request may carry ({@code maxSge}, given at {@link #format} time).
 * <p>
 * The consumer does not trust the producer. It keeps its own consumer position and only publishes it; it checks the
 * producer position it reads (ahead of its own by 0..capacity, else nothing is taken and the poll says malformed);
 * it reads each field of an entry once and checks the scatter/gather count and lengths before handing the request
 * on. A malformed entry is consumed and reported ({@code -1}): the caller puts the QP in the error state. Nothing is
 * allocated per operation and no lock is taken.
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-------------------------------+-------------------------------+
 *  |             magic             |         kind (SEND/RECV)      |  0
 *  +-------------------------------+-------------------------------+
 *  |            capacity           |          entry length         |  8
 *  +-------------------------------+-------------------------------+
 *  |             maxSge            |   (to byte 128)               |  16
 *  +-------------------------------+-------------------------------+
 *  |               producer position (entries posted)              |  128
 *  +---------------------------------------------------------------+
 *  |               consumer position (entries taken)               |  256
 *  +---------------------------------------------------------------+
 *  |   capacity entries of entry length bytes from byte 384
 * </pre>
 * A send entry: wrId, remote address, compare/add, swap, destination GID (high, low), destination MAC (8 bytes each);
 * opcode, send flags, immediate or R_Key to invalidate, R_Key, UD remote QPN, UD remote Q_Key, source GID index, hop
 * limit, traffic class, flow label, service level, SGE count (4 each); a memory window bind's window R_Key, new R_Key,
 * region L_Key, rights (4 each), address and length (8 each); FLUSH length, FLUSH placement type | selectivity level
 * &lt;&lt; 8 (4 each); then maxSge entries of address (8), length (4) and L_Key (4). A receive entry: wrId (8), SGE
 * count (4), 4 spare, then the entries. Entries are padded to 64 bytes.
 */
public final class WorkRequestRing
{
    /** The ring holds send work requests. */
    public static final int SEND = 1;
    /** The ring holds receive work requests. */
    public static final int RECV = 2;
    /** "RNWQ" in little-endian ASCII: the header of a formatted work request ring. */
    public static final int MAGIC = 0x5157_4E52;
    public static final int MAX_ENTRIES = 1 << 20;

    static final int MAGIC_OFFSET = 0;
    static final int KIND_OFFSET = 4;
    static final int CAPACITY_OFFSET = 8;
    static final int ENTRY_LENGTH_OFFSET = 12;
    static final int MAX_SGE_OFFSET = 16;
    static final int PRODUCER_POSITION_OFFSET = 2 * BitUtil.CACHE_LINE_LENGTH;
    static final int CONSUMER_POSITION_OFFSET = 4 * BitUtil.CACHE_LINE_LENGTH;
    public static final int HEADER_LENGTH = 6 * BitUtil.CACHE_LINE_LENGTH;

    static final int WR_ID_OFFSET = 0;
    static final int REMOTE_ADDRESS_OFFSET = 8;
    static final int COMPARE_ADD_OFFSET = 16;
    static final int SWAP_OFFSET = 24;
    static final int DGID_HIGH_OFFSET = 32;
    static final int DGID_LOW_OFFSET = 40;
    static final int DESTINATION_MAC_OFFSET = 48;
    static final int OPCODE_OFFSET = 56;
    static final int SEND_FLAGS_OFFSET = 60;
    static final int IMMEDIATE_OFFSET = 64;
    static final int RKEY_OFFSET = 68;
    static final int UD_REMOTE_QPN_OFFSET = 72;
    static final int UD_REMOTE_QKEY_OFFSET = 76;
    static final int SGID_INDEX_OFFSET = 80;
    static final int HOP_LIMIT_OFFSET = 84;
    static final int TRAFFIC_CLASS_OFFSET = 88;
    static final int FLOW_LABEL_OFFSET = 92;
    static final int SERVICE_LEVEL_OFFSET = 96;
    static final int SEND_SGE_COUNT_OFFSET = 100;
    static final int MW_RKEY_OFFSET = 104;
    static final int MW_NEW_RKEY_OFFSET = 108;
    static final int MW_MR_LKEY_OFFSET = 112;
    static final int MW_ACCESS_OFFSET = 116;
    static final int MW_ADDRESS_OFFSET = 120;
    static final int MW_LENGTH_OFFSET = 128;
    static final int FLUSH_LENGTH_OFFSET = 136;
    static final int FLUSH_TYPE_AND_LEVEL_OFFSET = 140;
    static final int SEND_SGL_OFFSET = 144;

    static final int RECV_SGE_COUNT_OFFSET = 8;
    static final int RECV_SGL_OFFSET = 16;

    static final int SGE_LENGTH = 16;
    static final int SGE_ADDRESS_OFFSET = 0;
    static final int SGE_LENGTH_OFFSET = 8;
    static final int SGE_LKEY_OFFSET = 12;

    /** What {@link #nextEntry} returns instead of an entry's offset. */
    private static final int EMPTY = -1;
    private static final int NOT_CREDIBLE = -2;

    private final AtomicBuffer buffer;
    /**
     * The buffer's memory as Unsafe addresses it (the array, or null off-heap, and the offset of byte 0): offers and
     * polls go through these rather than the buffer, whose accessors check bounds on every call. Every offset is a
     * masked index times the entry length (checked against maxSge and the buffer's length once, at format or attach)
     * plus a field's offset, or an SGE's below a count checked against maxSge.
     */
    private final byte[] base;
    private final long baseOffset;
    private final int kind;
    private final int capacity;
    private final int mask;
    private final int entryLength;
    private final int maxSge;

    /** The producer's own position and the consumer position it last read (it rereads only when it looks full). */
    private long producerPosition;
    private long consumerPositionCache;
    /** The consumer's own position: the shared one is only written, never read back. */
    private long consumerPosition;

    private WorkRequestRing(final AtomicBuffer buffer)
    {
        this.buffer = buffer;
        base = buffer.byteArray();
        baseOffset = buffer.addressOffset();
        kind = buffer.getInt(KIND_OFFSET);
        capacity = buffer.getInt(CAPACITY_OFFSET);
        mask = capacity - 1;
        entryLength = buffer.getInt(ENTRY_LENGTH_OFFSET);
        maxSge = buffer.getInt(MAX_SGE_OFFSET);
        producerPosition = buffer.getLongVolatile(PRODUCER_POSITION_OFFSET);
        consumerPosition = buffer.getLongVolatile(CONSUMER_POSITION_OFFSET);
        consumerPositionCache = consumerPosition;
    }

    /** Bytes of one entry of a ring of {@code kind} whose requests carry up to {@code maxSge} entries. */
    public static int entryLength(final int kind, final int maxSge)
    {
        checkKind(kind);
        if (maxSge < 1 || maxSge > ScatterGatherList.MAX_SGE)
        {
            throw new VerbsException("scatter/gather entries " + maxSge + " out of range 1.." +
                ScatterGatherList.MAX_SGE);
        }
        final int sglOffset = kind == SEND ? SEND_SGL_OFFSET : RECV_SGL_OFFSET;
        return BitUtil.align(sglOffset + maxSge * SGE_LENGTH, BitUtil.CACHE_LINE_LENGTH);
    }

    /**
     * Bytes a ring of at least {@code requestedEntries} entries of up to {@code maxSge} SGEs takes: enough for a send
     * ring, whose entries are the longer, so also for a receive ring.
     */
    public static int requiredBytes(final int requestedEntries, final int maxSge)
    {
        return HEADER_LENGTH + capacityFor(requestedEntries) * entryLength(SEND, maxSge);
    }

    /**
     * Lays out an empty ring of {@code kind} ({@link #SEND} or {@link #RECV}) in {@code buffer} (the creator's side).
     * The magic is written last, with a release store, so that {@link #attach} never sees a half-formatted ring.
     */
    public static WorkRequestRing format(
        final int kind, final int requestedEntries, final int maxSge, final AtomicBuffer buffer)
    {
        final int entryLength = entryLength(kind, maxSge);
        final int capacity = capacityFor(requestedEntries);
        final int required = HEADER_LENGTH + capacity * entryLength;
        if (buffer.capacity() < required)
        {
            throw new VerbsException("a work request ring of " + requestedEntries + " entries needs " + required +
                " bytes, the buffer has " + buffer.capacity());
        }
        SharedRingHeaders.checkAlignment(buffer, "work request ring");
        buffer.setMemory(0, HEADER_LENGTH, (byte)0);
        buffer.putInt(KIND_OFFSET, kind);
        buffer.putInt(CAPACITY_OFFSET, capacity);
        buffer.putInt(ENTRY_LENGTH_OFFSET, entryLength);
        buffer.putInt(MAX_SGE_OFFSET, maxSge);
        buffer.putIntRelease(MAGIC_OFFSET, MAGIC);
        return new WorkRequestRing(buffer);
    }

    /**
     * Opens a ring of {@code kind} another process formatted in {@code buffer}: reads its layout from the header once
     * and checks it (kind, capacity a power of two, entry length matching maxSge, entries within the buffer).
     */
    public static WorkRequestRing attach(final int kind, final AtomicBuffer buffer)
    {
        checkKind(kind);
        SharedRingHeaders.checkFormatted(buffer, HEADER_LENGTH, MAGIC, "work request ring");
        final int foundKind = buffer.getInt(KIND_OFFSET);
        if (foundKind != kind)
        {
            throw new VerbsException("work request ring holds " + kindName(foundKind) + " requests, not " +
                kindName(kind));
        }
        final int capacity = buffer.getInt(CAPACITY_OFFSET);
        final int maxSge = buffer.getInt(MAX_SGE_OFFSET);
        final int entryLength = buffer.getInt(ENTRY_LENGTH_OFFSET);
        if (capacity < 1 || capacity > MAX_ENTRIES || !BitUtil.isPowerOfTwo(capacity) ||
            maxSge < 1 || maxSge > ScatterGatherList.MAX_SGE || entryLength != entryLength(kind, maxSge))
        {
            throw new VerbsException("not a work request ring: capacity " + capacity + ", maxSge " + maxSge +
                ", entry length " + entryLength);
        }
        if ((long)HEADER_LENGTH + (long)capacity * entryLength > buffer.capacity())
        {
            throw new VerbsException("work request ring of " + capacity + " entries needs " +
                (HEADER_LENGTH + capacity * entryLength) + " bytes, the buffer has " + buffer.capacity());
        }
        return new WorkRequestRing(buffer);
    }

    private static int capacityFor(final int requestedEntries)
    {
        if (requestedEntries < 1 || requestedEntries > MAX_ENTRIES)
        {
            throw new VerbsException("work queue size " + requestedEntries + " out of range 1.." + MAX_ENTRIES);
        }
        return BitUtil.findNextPositivePowerOfTwo(requestedEntries);
    }

    private static void checkKind(final int kind)
    {
        if (kind != SEND && kind != RECV)
        {
            throw new VerbsException("work request ring kind " + kind + " is neither SEND (1) nor RECV (2)");
        }
    }

    private static String kindName(final int kind)
    {
        return kind == SEND ? "SEND" : kind == RECV ? "RECV" : "kind " + kind;
    }


    /** {@link #SEND} or {@link #RECV}. */
    public int kind()
    {
        return kind;
    }

    public int capacity()
    {
        return capacity;
    }

    /** The most scatter/gather entries a request in this ring carries. */
    public int maxSge()
    {
        return maxSge;
    }

    /** The buffer holding the ring (to share it with another process). */
    public AtomicBuffer buffer()
    {
        return buffer;
    }

    /**
     * Copies a send request into the next entry. The producer (one thread).
     *
     * @return false when the ring is full.
     * @throws VerbsException if the ring holds receive requests or the request has more than maxSge entries (the
     *                        caller's own mistake, checked before anything is written).
     */
    public boolean offerSend(final SendWorkRequest request)
    {
        final ScatterGatherList sgl = request.sgl;
        checkOffer(SEND, sgl);
        final long entry = claim();
        if (entry < 0)
        {
            return false;
        }
        final byte[] base = this.base;
        final AddressVector av = request.udAddress;
        UnsafeApi.putLong(base, entry + WR_ID_OFFSET, request.wrId);
        UnsafeApi.putLong(base, entry + REMOTE_ADDRESS_OFFSET, request.remoteAddress);
        UnsafeApi.putLong(base, entry + COMPARE_ADD_OFFSET, request.compareAdd);
        UnsafeApi.putLong(base, entry + SWAP_OFFSET, request.swap);
        UnsafeApi.putLong(base, entry + DGID_HIGH_OFFSET, av.destinationGidHigh());
        UnsafeApi.putLong(base, entry + DGID_LOW_OFFSET, av.destinationGidLow());
        UnsafeApi.putLong(base, entry + DESTINATION_MAC_OFFSET, av.destinationMac());
        UnsafeApi.putInt(base, entry + OPCODE_OFFSET, request.opcode);
        UnsafeApi.putInt(base, entry + SEND_FLAGS_OFFSET, request.sendFlags);
        UnsafeApi.putInt(base, entry + IMMEDIATE_OFFSET, request.immediateOrInvalidateRKey);
        UnsafeApi.putInt(base, entry + RKEY_OFFSET, request.rKey);
        UnsafeApi.putInt(base, entry + UD_REMOTE_QPN_OFFSET, request.udRemoteQpn);
        UnsafeApi.putInt(base, entry + UD_REMOTE_QKEY_OFFSET, request.udRemoteQkey);
        UnsafeApi.putInt(base, entry + SGID_INDEX_OFFSET, av.sourceGidIndex());
        UnsafeApi.putInt(base, entry + HOP_LIMIT_OFFSET, av.hopLimit());
        UnsafeApi.putInt(base, entry + TRAFFIC_CLASS_OFFSET, av.trafficClass());
        UnsafeApi.putInt(base, entry + FLOW_LABEL_OFFSET, av.flowLabel());
        UnsafeApi.putInt(base, entry + SERVICE_LEVEL_OFFSET, av.serviceLevel());
        UnsafeApi.putInt(base, entry + SEND_SGE_COUNT_OFFSET, sgl.count);
        UnsafeApi.putInt(base, entry + MW_RKEY_OFFSET, request.mwRKey);
        UnsafeApi.putInt(base, entry + MW_NEW_RKEY_OFFSET, request.mwNewRKey);
        UnsafeApi.putInt(base, entry + MW_MR_LKEY_OFFSET, request.mwMrLKey);
        UnsafeApi.putInt(base, entry + MW_ACCESS_OFFSET, request.mwAccess);
        UnsafeApi.putLong(base, entry + MW_ADDRESS_OFFSET, request.mwAddress);
        UnsafeApi.putLong(base, entry + MW_LENGTH_OFFSET, request.mwLength);
        UnsafeApi.putInt(base, entry + FLUSH_LENGTH_OFFSET, request.flushLength);
        UnsafeApi.putInt(base, entry + FLUSH_TYPE_AND_LEVEL_OFFSET,
            (request.flushPlacementType & 0xFF) | (request.flushSelectivityLevel & 0xFF) << 8);
        putSgl(entry + SEND_SGL_OFFSET, sgl);
        publish();
        return true;
    }

    /**
     * Copies a receive request into the next entry. The producer (one thread).
     *
     * @return false when the ring is full.
     * @throws VerbsException if the ring holds send requests or the request has more than maxSge entries.
     */
    public boolean offerRecv(final RecvWorkRequest request)
    {
        final ScatterGatherList sgl = request.sgl;
        checkOffer(RECV, sgl);
        final long entry = claim();
        if (entry < 0)
        {
            return false;
        }
        UnsafeApi.putLong(base, entry + WR_ID_OFFSET, request.wrId);
        UnsafeApi.putInt(base, entry + RECV_SGE_COUNT_OFFSET, sgl.count);
        putSgl(entry + RECV_SGL_OFFSET, sgl);
        publish();
        return true;
    }

    /**
     * Takes the oldest send request into {@code into}. The consumer (one thread).
     *
     * @param into a request with room for {@link #maxSge()} entries.
     * @return 1 when a request was taken, 0 when the ring is empty, -1 when the entry was malformed (it is consumed;
     * {@code into} holds part of it) or the producer position is not credible (nothing is consumed): either way the
     * caller puts the QP in the error state.
     */
    public int pollSend(final SendWorkRequest into)
    {
        checkPoll(SEND, into.sgl);
        final long entry = nextEntry();
        if (entry < 0)
        {
            return entry == EMPTY ? 0 : -1;
        }
        final byte[] base = this.base;
        into.wrId = UnsafeApi.getLong(base, entry + WR_ID_OFFSET);
        into.remoteAddress = UnsafeApi.getLong(base, entry + REMOTE_ADDRESS_OFFSET);
        into.compareAdd = UnsafeApi.getLong(base, entry + COMPARE_ADD_OFFSET);
        into.swap = UnsafeApi.getLong(base, entry + SWAP_OFFSET);
        into.flushLength = UnsafeApi.getInt(base, entry + FLUSH_LENGTH_OFFSET);
        final int flushTypeAndLevel = UnsafeApi.getInt(base, entry + FLUSH_TYPE_AND_LEVEL_OFFSET);
        into.flushPlacementType = flushTypeAndLevel & 0xFF;
        into.flushSelectivityLevel = (flushTypeAndLevel >>> 8) & 0xFF;
        into.opcode = UnsafeApi.getInt(base, entry + OPCODE_OFFSET);
        into.sendFlags = UnsafeApi.getInt(base, entry + SEND_FLAGS_OFFSET);
        into.immediateOrInvalidateRKey = UnsafeApi.getInt(base, entry + IMMEDIATE_OFFSET);
        into.rKey = UnsafeApi.getInt(base, entry + RKEY_OFFSET);
        into.udRemoteQpn = UnsafeApi.getInt(base, entry + UD_REMOTE_QPN_OFFSET);
        into.udRemoteQkey = UnsafeApi.getInt(base, entry + UD_REMOTE_QKEY_OFFSET);
        into.mwRKey = UnsafeApi.getInt(base, entry + MW_RKEY_OFFSET);
        into.mwNewRKey = UnsafeApi.getInt(base, entry + MW_NEW_RKEY_OFFSET);
        into.mwMrLKey = UnsafeApi.getInt(base, entry + MW_MR_LKEY_OFFSET);
        into.mwAccess = UnsafeApi.getInt(base, entry + MW_ACCESS_OFFSET);
        into.mwAddress = UnsafeApi.getLong(base, entry + MW_ADDRESS_OFFSET);
        into.mwLength = UnsafeApi.getLong(base, entry + MW_LENGTH_OFFSET);
        into.udAddress
            .destinationGid(
                UnsafeApi.getLong(base, entry + DGID_HIGH_OFFSET), UnsafeApi.getLong(base, entry + DGID_LOW_OFFSET))
            .destinationMac(UnsafeApi.getLong(base, entry + DESTINATION_MAC_OFFSET))
            .sourceGidIndex(UnsafeApi.getInt(base, entry + SGID_INDEX_OFFSET))
            .hopLimit(UnsafeApi.getInt(base, entry + HOP_LIMIT_OFFSET))
            .trafficClass(UnsafeApi.getInt(base, entry + TRAFFIC_CLASS_OFFSET))
            .flowLabel(UnsafeApi.getInt(base, entry + FLOW_LABEL_OFFSET))
            .serviceLevel(UnsafeApi.getInt(base, entry + SERVICE_LEVEL_OFFSET));
        final boolean wellFormed = getSgl(
            UnsafeApi.getInt(base, entry + SEND_SGE_COUNT_OFFSET), entry + SEND_SGL_OFFSET, into.sgl);
        release();
        return wellFormed ? 1 : -1;
    }

    /**
     * Takes the oldest receive request into {@code into}. The consumer (one thread).
     *
     * @param into a request with room for {@link #maxSge()} entries.
     * @return 1, 0 or -1 as {@link #pollSend}.
     */
    public int pollRecv(final RecvWorkRequest into)
    {
        checkPoll(RECV, into.sgl);
        final long entry = nextEntry();
        if (entry < 0)
        {
            return entry == EMPTY ? 0 : -1;
        }
        into.wrId = UnsafeApi.getLong(base, entry + WR_ID_OFFSET);
        final boolean wellFormed = getSgl(
            UnsafeApi.getInt(base, entry + RECV_SGE_COUNT_OFFSET), entry + RECV_SGL_OFFSET, into.sgl);
        release();
        return wellFormed ? 1 : -1;
    }

    /**
     * Requests posted and not yet taken, as the consumer sees them; 0 when the producer position is not credible
     * (then {@link #isEmpty()} is false, so a caller that polls only a ring that is not empty still gets the -1).
     */
    public int size()
    {
        final long available = buffer.getLongVolatile(PRODUCER_POSITION_OFFSET) - consumerPosition;
        return available < 0 || available > capacity ? 0 : (int)available;
    }

    /** Whether the producer has posted nothing the consumer has not taken. */
    public boolean isEmpty()
    {
        return buffer.getLongVolatile(PRODUCER_POSITION_OFFSET) == consumerPosition;
    }

    private void checkOffer(final int expectedKind, final ScatterGatherList sgl)
    {
        if (kind != expectedKind)
        {
            throw new VerbsException("a " + kindName(expectedKind) + " request offered to a " + kindName(kind) +
                " ring");
        }
        if (sgl.count > maxSge)
        {
            throw new VerbsException(sgl.count + " scatter/gather entries, the ring takes " + maxSge);
        }
    }

    private void checkPoll(final int expectedKind, final ScatterGatherList sgl)
    {
        if (kind != expectedKind)
        {
            throw new VerbsException("a " + kindName(expectedKind) + " request polled from a " + kindName(kind) +
                " ring");
        }
        if (sgl.capacity() < maxSge)
        {
            throw new VerbsException("a request of " + sgl.capacity() + " scatter/gather entries cannot take one of " +
                maxSge);
        }
    }

    /** The Unsafe offset of the entry to fill (positive: an address or an array offset), or -1 when full. */
    private long claim()
    {
        final long position = producerPosition;
        if (position - consumerPositionCache >= capacity)
        {
            consumerPositionCache = UnsafeApi.getLongVolatile(base, baseOffset + CONSUMER_POSITION_OFFSET);
            if (position - consumerPositionCache >= capacity)
            {
                return -1;
            }
        }
        return baseOffset + HEADER_LENGTH + ((int)position & mask) * entryLength;
    }

    private void publish()
    {
        UnsafeApi.putLongRelease(base, baseOffset + PRODUCER_POSITION_OFFSET, ++producerPosition);
    }

    private void putSgl(final long offset, final ScatterGatherList sgl)
    {
        for (int i = 0, count = sgl.count; i < count; i++)
        {
            final long sge = offset + i * SGE_LENGTH;
            UnsafeApi.putLong(base, sge + SGE_ADDRESS_OFFSET, sgl.addresses[i]);
            UnsafeApi.putInt(base, sge + SGE_LENGTH_OFFSET, sgl.lengths[i]);
            UnsafeApi.putInt(base, sge + SGE_LKEY_OFFSET, sgl.lKeys[i]);
        }
    }

    /** The Unsafe offset of the entry to take (positive), {@link #EMPTY} or {@link #NOT_CREDIBLE}. */
    private long nextEntry()
    {
        final long available = UnsafeApi.getLongAcquire(base, baseOffset + PRODUCER_POSITION_OFFSET) - consumerPosition;
        if (available == 0)
        {
            return EMPTY;
        }
        if (available < 0 || available > capacity)
        {
            return NOT_CREDIBLE;
        }
        return baseOffset + HEADER_LENGTH + ((int)consumerPosition & mask) * entryLength;
    }

    private void release()
    {
        UnsafeApi.putLongRelease(base, baseOffset + CONSUMER_POSITION_OFFSET, ++consumerPosition);
    }

    /** Reads {@code count} entries into {@code sgl}, each field once; false if the count or a length is invalid. */
    private boolean getSgl(final int count, final long offset, final ScatterGatherList sgl)
    {
        if (count < 0 || count > maxSge)
        {
            sgl.count = 0;
            sgl.total = 0;
            return false;
        }
        long total = 0;
        for (int i = 0; i < count; i++)
        {
            final long sge = offset + i * SGE_LENGTH;
            final int length = UnsafeApi.getInt(base, sge + SGE_LENGTH_OFFSET);
            if (length < 0)
            {
                sgl.count = i;
                sgl.total = total;
                return false;
            }
            sgl.addresses[i] = UnsafeApi.getLong(base, sge + SGE_ADDRESS_OFFSET);
            sgl.lengths[i] = length;
            sgl.lKeys[i] = UnsafeApi.getInt(base, sge + SGE_LKEY_OFFSET);
            total += length;
        }
        sgl.count = count;
        sgl.total = total;
        return true;
    }
}
