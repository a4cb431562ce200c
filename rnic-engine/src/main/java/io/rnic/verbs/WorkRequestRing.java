package io.rnic.verbs;

import org.agrona.BitUtil;
import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.AtomicCounter;

/**
 * The one ring behind every send queue, receive queue and SRQ, in an {@link AtomicBuffer}: heap memory of this
 * process for an embedded endpoint, a client's shared file for a driver. Application threads post ({@link
 * #offerSend}, {@link #offerRecv}: any number of threads, any number of processes, lock-free); the engine thread
 * takes the requests in place ({@link #postedSend}, {@link #postedRecv}) and gives each slot back only when it
 * releases it ({@link #release}), which may be much later (an RC send WQE stays until it is acknowledged). So the
 * ring's capacity is the queue's depth and a full ring is the post's ENOMEM, as in ibverbs.
 * <p>
 * Per-entry sequence numbers as in Vyukov's bounded queue: the entry at position p is free when its sequence is p,
 * posted when it is p + 1, and free for position p + capacity once released. A producer reads the shared producer
 * position p, sees sequence p in its entry and claims it with a CAS of the position to p + 1; it writes the fields,
 * then the sequence p + 1 with a release store. A sequence below p means the entry a lap back is not released yet:
 * the ring is full.
 * <p>
 * The engine does not trust the producer. It formats the ring and keeps the layout it formatted, never reading the
 * header back; it never reads the producer position on the data path; it takes position p only when p's sequence
 * reads p + 1, reads each field of the entry once into a request of its own for that slot (so that a retransmission
 * never sees a field the producer changed later) and checks it: SGE count within maxSge, lengths not negative, a
 * known opcode, a resolved destination on a UD send queue ({@code addressed}). A malformed entry is counted and
 * decoded as a request no transport accepts (an unknown opcode, no SGEs), and {@link #decodeAhead} reports it, so that
 * its QP, and only it, goes to the error state. Nothing is allocated per operation and no lock is taken.
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
 *  |       producer position (positions claimed, CAS by producers) |  128
 *  +---------------------------------------------------------------+
 *  |   capacity entries of entry length bytes from byte 256
 * </pre>
 * Every entry starts with its sequence (8). A send entry then: wrId, remote address, compare/add, swap, destination
 * GID (high, low), destination MAC (8 bytes each); opcode, send flags, immediate or R_Key to invalidate, R_Key, UD
 * remote QPN, UD remote Q_Key, source GID index, hop limit, traffic class, flow label, service level, SGE count (4
 * each); a memory window bind's window R_Key, new R_Key, region L_Key, rights (4 each), address and length (8 each);
 * FLUSH length, FLUSH placement type | selectivity level &lt;&lt; 8 (4 each); then maxSge entries of address (8),
 * length (4) and L_Key (4). A receive entry: sequence, wrId (8), SGE count (4), 4 spare, then the entries. Entries
 * are padded to 64 bytes.
 */
public final class WorkRequestRing
{
    /** The ring holds send work requests. */
    public static final int SEND = 1;
    /** The ring holds receive work requests. */
    public static final int RECV = 2;
    /** "RNW2" in little-endian ASCII: a ring of this layout (the single-producer "RNWQ" one is refused). */
    public static final int MAGIC = 0x3257_4E52;
    public static final int MAX_ENTRIES = 1 << 20;
    /** The opcode a malformed send entry is decoded with: no transport takes it (LOC_QP_OP_ERR). */
    public static final int MALFORMED_OPCODE = -1;

    static final int MAGIC_OFFSET = 0;
    static final int KIND_OFFSET = 4;
    static final int CAPACITY_OFFSET = 8;
    public static final int ENTRY_LENGTH_OFFSET = 12;
    static final int MAX_SGE_OFFSET = 16;
    public static final int PRODUCER_POSITION_OFFSET = 2 * BitUtil.CACHE_LINE_LENGTH;
    public static final int HEADER_LENGTH = 4 * BitUtil.CACHE_LINE_LENGTH;

    public static final int SEQUENCE_OFFSET = 0;
    static final int WR_ID_OFFSET = 8;
    static final int REMOTE_ADDRESS_OFFSET = 16;
    static final int COMPARE_ADD_OFFSET = 24;
    static final int SWAP_OFFSET = 32;
    static final int DGID_HIGH_OFFSET = 40;
    static final int DGID_LOW_OFFSET = 48;
    static final int DESTINATION_MAC_OFFSET = 56;
    public static final int OPCODE_OFFSET = 64;
    static final int SEND_FLAGS_OFFSET = 68;
    static final int IMMEDIATE_OFFSET = 72;
    static final int RKEY_OFFSET = 76;
    static final int UD_REMOTE_QPN_OFFSET = 80;
    static final int UD_REMOTE_QKEY_OFFSET = 84;
    static final int SGID_INDEX_OFFSET = 88;
    static final int HOP_LIMIT_OFFSET = 92;
    static final int TRAFFIC_CLASS_OFFSET = 96;
    static final int FLOW_LABEL_OFFSET = 100;
    static final int SERVICE_LEVEL_OFFSET = 104;
    public static final int SEND_SGE_COUNT_OFFSET = 108;
    static final int MW_RKEY_OFFSET = 112;
    static final int MW_NEW_RKEY_OFFSET = 116;
    static final int MW_MR_LKEY_OFFSET = 120;
    static final int MW_ACCESS_OFFSET = 124;
    static final int MW_ADDRESS_OFFSET = 128;
    static final int MW_LENGTH_OFFSET = 136;
    static final int FLUSH_LENGTH_OFFSET = 144;
    static final int FLUSH_TYPE_AND_LEVEL_OFFSET = 148;
    static final int SEND_SGL_OFFSET = 152;

    public static final int RECV_SGE_COUNT_OFFSET = 16;
    static final int RECV_SGL_OFFSET = 24;

    static final int SGE_LENGTH = 16;
    static final int SGE_ADDRESS_OFFSET = 0;
    static final int SGE_LENGTH_OFFSET = 8;
    static final int SGE_LKEY_OFFSET = 12;

    private final AtomicBuffer buffer;
    /**
     * The buffer's memory as Unsafe addresses it (the array, or null off-heap, and the offset of byte 0): offers and
     * takes go through these rather than the buffer, whose accessors check bounds on every call. Every offset is a
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

    // ---- the consumer's state: only on the side that formatted the ring (the engine's), engine thread
    /** Send entries must carry a destination MAC (a UD QP's send queue). */
    private final boolean addressed;
    /** The producers are threads of this process, which ring the engine's doorbell: see {@link #isPosted}. */
    private final boolean localProducers;
    /** The request decoded from each slot, valid for positions below {@link #decodedEnd} until released. */
    private final SendWorkRequest[] sends;
    private final RecvWorkRequest[] recvs;
    /** Malformed entries (the driver's counter), or null. */
    private final AtomicCounter malformed;
    /** One past the last position decoded. */
    private long decodedEnd;
    /** A malformed entry was decoded since {@link #decodeAhead} last said so. */
    private boolean malformedPending;

    private WorkRequestRing(
        final AtomicBuffer buffer, final boolean consumer, final boolean addressed, final AtomicCounter malformed,
        final boolean localProducers)
    {
        this.buffer = buffer;
        base = buffer.byteArray();
        baseOffset = buffer.addressOffset();
        kind = buffer.getInt(KIND_OFFSET);
        capacity = buffer.getInt(CAPACITY_OFFSET);
        mask = capacity - 1;
        entryLength = buffer.getInt(ENTRY_LENGTH_OFFSET);
        maxSge = buffer.getInt(MAX_SGE_OFFSET);
        this.addressed = addressed;
        this.localProducers = localProducers;
        this.malformed = malformed;
        sends = consumer && kind == SEND ? new SendWorkRequest[capacity] : null;
        recvs = consumer && kind == RECV ? new RecvWorkRequest[capacity] : null;
        for (int i = 0; consumer && i < capacity; i++)
        {
            if (sends != null)
            {
                sends[i] = new SendWorkRequest(maxSge);
            }
            else
            {
                recvs[i] = new RecvWorkRequest(maxSge);
            }
        }
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
        return requiredBytes(SEND, requestedEntries, maxSge);
    }

    /** Bytes a ring of {@code kind} of at least {@code requestedEntries} entries of up to {@code maxSge} SGEs takes. */
    public static int requiredBytes(final int kind, final int requestedEntries, final int maxSge)
    {
        return HEADER_LENGTH + capacityFor(requestedEntries) * entryLength(kind, maxSge);
    }

    /**
     * A ring of {@code kind} in memory of this process (an embedded endpoint's queue), its consumer side;
     * its producers are threads of this process, which ring the engine's doorbell ({@link #isPosted}). Control path
     * (allocates).
     */
    public static WorkRequestRing allocate(
        final int kind, final int requestedEntries, final int maxSge, final boolean addressed)
    {
        // on the heap (no direct buffer and cleaner per queue), from an 8-byte aligned offset of the array: objects
        // are 8-byte aligned and move whole, so the offset stays aligned
        final int length = requiredBytes(kind, requestedEntries, maxSge);
        final int misalignment = (int)(BufferUtil.ARRAY_BASE_OFFSET & (Long.BYTES - 1));
        final int padding = misalignment == 0 ? 0 : Long.BYTES - misalignment;
        final AtomicBuffer buffer = new UnsafeBuffer(new byte[length + padding], padding, length);
        return new WorkRequestRing(layOut(kind, requestedEntries, maxSge, buffer), true, addressed, null, true);
    }

    /** {@link #format(int, int, int, boolean, AtomicBuffer, AtomicCounter)} of an unaddressed ring, uncounted. */
    public static WorkRequestRing format(
        final int kind, final int requestedEntries, final int maxSge, final AtomicBuffer buffer)
    {
        return format(kind, requestedEntries, maxSge, false, buffer, null);
    }

    /**
     * Lays out an empty ring of {@code kind} ({@link #SEND} or {@link #RECV}) in {@code buffer}: the consumer's (the
     * engine's) side, which alone takes from it. The magic is written last, with a release store, so that {@link
     * #attach} never sees a half-formatted ring.
     *
     * @param addressed the send entries must carry a destination MAC (a UD QP's): one without is malformed.
     * @param malformed counts the malformed entries taken, or null.
     */
    public static WorkRequestRing format(
        final int kind, final int requestedEntries, final int maxSge, final boolean addressed,
        final AtomicBuffer buffer, final AtomicCounter malformed)
    {
        SharedRingHeaders.checkAlignment(buffer, "work request ring");
        return new WorkRequestRing(layOut(kind, requestedEntries, maxSge, buffer), true, addressed, malformed, false);
    }

    private static AtomicBuffer layOut(
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
        buffer.setMemory(0, required, (byte)0);
        buffer.putInt(KIND_OFFSET, kind);
        buffer.putInt(CAPACITY_OFFSET, capacity);
        buffer.putInt(ENTRY_LENGTH_OFFSET, entryLength);
        buffer.putInt(MAX_SGE_OFFSET, maxSge);
        for (int i = 0; i < capacity; i++)
        {
            buffer.putLong(HEADER_LENGTH + i * entryLength + SEQUENCE_OFFSET, i);
        }
        buffer.putIntRelease(MAGIC_OFFSET, MAGIC);
        return buffer;
    }

    /**
     * Opens a ring of {@code kind} another process formatted in {@code buffer}, to post into it: reads its layout
     * from the header once and checks it (kind, capacity a power of two, entry length matching maxSge, entries within
     * the buffer).
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
        return new WorkRequestRing(buffer, false, false, null, false);
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
     * Whether {@code request}'s fields are ones a ring of {@code maxSge} takes: a known opcode, no more SGEs than
     * {@code maxSge}, and on an {@code addressed} (UD) queue a resolved destination MAC. The post's check and the
     * engine's check of what it takes from a ring are this one.
     */
    public static boolean isWellFormedSend(final SendWorkRequest request, final int maxSge, final boolean addressed)
    {
        return WrOpcode.isKnown(request.opcode) && request.sgl.count <= maxSge &&
            (!addressed || request.udAddress.destinationMac() != 0);
    }

    /**
     * Copies a send request into the next free entry. Any thread; lock-free, allocates nothing.
     *
     * @return false when the ring is full.
     * @throws VerbsException if the ring holds receive requests or the request has more than maxSge entries (the
     *                        caller's own mistake, checked before anything is written).
     */
    public boolean offerSend(final SendWorkRequest request)
    {
        final ScatterGatherList sgl = request.sgl;
        checkOffer(SEND, sgl);
        final long position = claim();
        if (position < 0)
        {
            return false;
        }
        final long entry = entryAddress(position);
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
        if (request.opcode == WrOpcode.BIND_MW) // the engine reads these only for their opcodes
        {
            UnsafeApi.putInt(base, entry + MW_RKEY_OFFSET, request.mwRKey);
            UnsafeApi.putInt(base, entry + MW_NEW_RKEY_OFFSET, request.mwNewRKey);
            UnsafeApi.putInt(base, entry + MW_MR_LKEY_OFFSET, request.mwMrLKey);
            UnsafeApi.putInt(base, entry + MW_ACCESS_OFFSET, request.mwAccess);
            UnsafeApi.putLong(base, entry + MW_ADDRESS_OFFSET, request.mwAddress);
            UnsafeApi.putLong(base, entry + MW_LENGTH_OFFSET, request.mwLength);
        }
        else if (request.opcode == WrOpcode.FLUSH)
        {
            UnsafeApi.putInt(base, entry + FLUSH_LENGTH_OFFSET, request.flushLength);
            UnsafeApi.putInt(base, entry + FLUSH_TYPE_AND_LEVEL_OFFSET,
                (request.flushPlacementType & 0xFF) | (request.flushSelectivityLevel & 0xFF) << 8);
        }
        putSgl(entry + SEND_SGL_OFFSET, sgl);
        publish(entry, position);
        return true;
    }

    /**
     * Copies a receive request into the next free entry. Any thread; lock-free, allocates nothing.
     *
     * @return false when the ring is full.
     * @throws VerbsException if the ring holds send requests or the request has more than maxSge entries.
     */
    public boolean offerRecv(final RecvWorkRequest request)
    {
        final ScatterGatherList sgl = request.sgl;
        checkOffer(RECV, sgl);
        final long position = claim();
        if (position < 0)
        {
            return false;
        }
        final long entry = entryAddress(position);
        UnsafeApi.putLong(base, entry + WR_ID_OFFSET, request.wrId);
        UnsafeApi.putInt(base, entry + RECV_SGE_COUNT_OFFSET, sgl.count);
        putSgl(entry + RECV_SGL_OFFSET, sgl);
        publish(entry, position);
        return true;
    }

    /**
     * The send request posted at {@code position}, decoded once into the engine's copy for its slot, or null if
     * nothing is posted there yet. Positions are taken in order: {@code position} is at most one past the last one
     * taken. Engine thread; allocates nothing.
     */
    public SendWorkRequest postedSend(final long position)
    {
        return position < decodedEnd || position == decodedEnd && decodeNext() ?
            sends[(int)position & mask] : null;
    }

    /** The receive request posted at {@code position}, as {@link #postedSend}. Engine thread. */
    public RecvWorkRequest postedRecv(final long position)
    {
        return position < decodedEnd || position == decodedEnd && decodeNext() ?
            recvs[(int)position & mask] : null;
    }

    /**
     * Whether a request is posted at {@code position}: taken already, or its sequence published; or, in a ring of this
     * process's threads ({@link #allocate}), a position claimed up to there (a volatile read of the producer position,
     * which a poster moves with a CAS before it reads the engine's doorbell flag, see {@code Doorbell}: the post being
     * written is seen, and its QP visited until it is published). A client's ring in shared memory is never asked for
     * its producer position: the driver notices its posts by their sequences and rings the doorbell itself. Engine
     * thread.
     */
    public boolean isPosted(final long position)
    {
        return position < decodedEnd || position == decodedEnd && (isPublished(position) ||
            localProducers && UnsafeApi.getLongVolatile(base, baseOffset + PRODUCER_POSITION_OFFSET) != position);
    }

    /**
     * Gives the slot of {@code position} back to the producers, for position + capacity; positions are released in
     * order, each once, after it was taken. Engine thread.
     */
    public void release(final long position)
    {
        UnsafeApi.putLongRelease(base, entryAddress(position) + SEQUENCE_OFFSET, position + capacity);
    }

    /**
     * Releases every request posted from {@code oldest} on, taken or not (a QP's reset empties its queues), at most a
     * lap of the ring; returns the position after the last. Engine thread.
     */
    public long releaseFrom(final long oldest)
    {
        long position = oldest;
        final long end = oldest + capacity;
        while (position < end && (position < decodedEnd ||
            UnsafeApi.getLongAcquire(base, entryAddress(position) + SEQUENCE_OFFSET) == position + 1))
        {
            release(position++);
        }
        decodedEnd = Math.max(decodedEnd, position);
        return position;
    }

    /**
     * Takes up to {@code budget} newly posted requests (decodes them into the engine's copies), so that the engine
     * learns of posts nobody rang a doorbell for. Engine thread; allocates nothing.
     *
     * @return how many were taken, or -1 when a malformed entry was taken since the last call (this one or
     * {@link #postedSend}/{@link #postedRecv}): its QP goes to the error state.
     */
    public int decodeAhead(final int budget)
    {
        int decoded = 0;
        while (decoded < budget && isPublished(decodedEnd) && decodeNext())
        {
            decoded++;
        }
        if (malformedPending)
        {
            malformedPending = false;
            return -1;
        }
        return decoded;
    }

    /** Positions claimed by producers so far, as the producer position says (diagnostics: not to be trusted). */
    public long producerPosition()
    {
        return UnsafeApi.getLongVolatile(base, baseOffset + PRODUCER_POSITION_OFFSET);
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

    private long entryAddress(final long position)
    {
        return baseOffset + HEADER_LENGTH + (long)((int)position & mask) * entryLength;
    }

    /** Claims the next free position (CAS of the shared producer position), or -1 when the ring is full. */
    private long claim()
    {
        final long producerPositionAddress = baseOffset + PRODUCER_POSITION_OFFSET;
        while (true)
        {
            final long position = UnsafeApi.getLongVolatile(base, producerPositionAddress);
            final long sequence = UnsafeApi.getLongAcquire(base, entryAddress(position) + SEQUENCE_OFFSET);
            if (sequence == position)
            {
                if (UnsafeApi.compareAndSetLong(base, producerPositionAddress, position, position + 1))
                {
                    return position;
                }
            }
            else if (sequence < position ||
                UnsafeApi.getLongVolatile(base, producerPositionAddress) == position)
            {
                // the entry a lap back is not released yet; or a sequence ahead of a producer position that has not
                // moved, which no producer writes: a scribbled ring, refused as full rather than spun on
                return -1;
            }
            // else another producer claimed this position: retry with the new producer position
        }
    }

    /** The fields are written: the entry is the consumer's. */
    private void publish(final long entry, final long position)
    {
        UnsafeApi.putLongRelease(base, entry + SEQUENCE_OFFSET, position + 1);
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

    private boolean isPublished(final long position)
    {
        return UnsafeApi.getLongAcquire(base, entryAddress(position) + SEQUENCE_OFFSET) == position + 1;
    }

    /**
     * Decodes the entry at {@link #decodedEnd} if it is published; a malformed one is decoded too (as a request no
     * transport takes), counted and noted for {@link #decodeAhead}. Returns whether an entry was decoded.
     */
    private boolean decodeNext()
    {
        final long position = decodedEnd;
        if (!isPublished(position))
        {
            return false;
        }
        final long entry = entryAddress(position);
        final int index = (int)position & mask;
        final boolean wellFormed = kind == SEND ? decodeSend(entry, sends[index]) : decodeRecv(entry, recvs[index]);
        decodedEnd = position + 1;
        if (!wellFormed)
        {
            malformedPending = true;
            if (malformed != null)
            {
                malformed.increment();
            }
        }
        return true;
    }

    /**
     * Reads the fields the request's opcode and the queue use, each once: the memory window's only for BIND_MW, the
     * FLUSH's only for FLUSH, the UD address only on an {@code addressed} queue (the others keep what the slot held).
     */
    private boolean decodeSend(final long entry, final SendWorkRequest into)
    {
        final byte[] base = this.base;
        final int opcode = UnsafeApi.getInt(base, entry + OPCODE_OFFSET);
        into.opcode = opcode;
        into.wrId = UnsafeApi.getLong(base, entry + WR_ID_OFFSET);
        into.remoteAddress = UnsafeApi.getLong(base, entry + REMOTE_ADDRESS_OFFSET);
        into.compareAdd = UnsafeApi.getLong(base, entry + COMPARE_ADD_OFFSET);
        into.swap = UnsafeApi.getLong(base, entry + SWAP_OFFSET);
        into.sendFlags = UnsafeApi.getInt(base, entry + SEND_FLAGS_OFFSET);
        into.immediateOrInvalidateRKey = UnsafeApi.getInt(base, entry + IMMEDIATE_OFFSET);
        into.rKey = UnsafeApi.getInt(base, entry + RKEY_OFFSET);
        if (opcode == WrOpcode.BIND_MW)
        {
            into.mwRKey = UnsafeApi.getInt(base, entry + MW_RKEY_OFFSET);
            into.mwNewRKey = UnsafeApi.getInt(base, entry + MW_NEW_RKEY_OFFSET);
            into.mwMrLKey = UnsafeApi.getInt(base, entry + MW_MR_LKEY_OFFSET);
            into.mwAccess = UnsafeApi.getInt(base, entry + MW_ACCESS_OFFSET);
            into.mwAddress = UnsafeApi.getLong(base, entry + MW_ADDRESS_OFFSET);
            into.mwLength = UnsafeApi.getLong(base, entry + MW_LENGTH_OFFSET);
        }
        else if (opcode == WrOpcode.FLUSH)
        {
            into.flushLength = UnsafeApi.getInt(base, entry + FLUSH_LENGTH_OFFSET);
            final int flushTypeAndLevel = UnsafeApi.getInt(base, entry + FLUSH_TYPE_AND_LEVEL_OFFSET);
            into.flushPlacementType = flushTypeAndLevel & 0xFF;
            into.flushSelectivityLevel = (flushTypeAndLevel >>> 8) & 0xFF;
        }
        if (addressed)
        {
            into.udRemoteQpn = UnsafeApi.getInt(base, entry + UD_REMOTE_QPN_OFFSET);
            into.udRemoteQkey = UnsafeApi.getInt(base, entry + UD_REMOTE_QKEY_OFFSET);
            into.udAddress
                .destinationGid(UnsafeApi.getLong(base, entry + DGID_HIGH_OFFSET),
                    UnsafeApi.getLong(base, entry + DGID_LOW_OFFSET))
                .destinationMac(UnsafeApi.getLong(base, entry + DESTINATION_MAC_OFFSET))
                .sourceGidIndex(UnsafeApi.getInt(base, entry + SGID_INDEX_OFFSET))
                .hopLimit(UnsafeApi.getInt(base, entry + HOP_LIMIT_OFFSET))
                .trafficClass(UnsafeApi.getInt(base, entry + TRAFFIC_CLASS_OFFSET))
                .flowLabel(UnsafeApi.getInt(base, entry + FLOW_LABEL_OFFSET))
                .serviceLevel(UnsafeApi.getInt(base, entry + SERVICE_LEVEL_OFFSET));
        }
        if (getSgl(UnsafeApi.getInt(base, entry + SEND_SGE_COUNT_OFFSET), entry + SEND_SGL_OFFSET, into.sgl) &&
            isWellFormedSend(into, maxSge, addressed))
        {
            return true;
        }
        into.opcode = MALFORMED_OPCODE;
        into.sgl.count = 0;
        into.sgl.total = 0;
        return false;
    }

    private boolean decodeRecv(final long entry, final RecvWorkRequest into)
    {
        into.wrId = UnsafeApi.getLong(base, entry + WR_ID_OFFSET);
        return getSgl(UnsafeApi.getInt(base, entry + RECV_SGE_COUNT_OFFSET), entry + RECV_SGL_OFFSET, into.sgl);
    }

    /**
     * Reads {@code count} entries into {@code sgl}, each field once; false, and no entries, if the count or a length
     * is invalid.
     */
    private boolean getSgl(final int count, final long offset, final ScatterGatherList sgl)
    {
        sgl.count = 0;
        sgl.total = 0;
        if (count < 0 || count > maxSge)
        {
            return false;
        }
        long total = 0;
        for (int i = 0; i < count; i++)
        {
            final long sge = offset + i * SGE_LENGTH;
            final int length = UnsafeApi.getInt(base, sge + SGE_LENGTH_OFFSET);
            if (length < 0)
            {
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
