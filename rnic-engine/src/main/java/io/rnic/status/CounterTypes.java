package io.rnic.status;

import org.agrona.BufferUtil;
import org.agrona.concurrent.CachedEpochClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersManager;
import org.agrona.concurrent.status.CountersReader;

import java.nio.charset.StandardCharsets;

/**
 * The kinds of rnic's counters, as the type ids of their {@link CountersManager} records, and the managers they live
 * in. A reader that has only the buffers (another thread now, another process once they are mapped from a file, as
 * Aeron's {@code AeronStat} reads the CnC file) tells the kinds apart by type id and finds each counter by its key:
 * the counter's index within its kind ({@code int}), then the instance it belongs to (the engine shard; {@code int}).
 */
public final class CounterTypes
{
    /** {@link io.rnic.transport.TransportCounter}s of one engine. */
    public static final int TRANSPORT = 1001;
    /** Inbound validation verdicts of one engine, one per {@link io.rnic.wire.DropReason}. */
    public static final int INBOUND = 1002;
    /** The connection manager's {@link io.rnic.cm.CmCounter}s. */
    public static final int CONNECTION_MANAGER = 1003;
    /** A port's frames and drops. */
    public static final int PORT = 1004;
    /** What an engine thread did with frames that are not RoCEv2 for its engine. */
    public static final int ENGINE_AGENT = 1005;
    /** ARP and neighbour discovery. */
    public static final int NEIGHBOUR = 1006;
    /** The driver's own: commands from clients, clients attached and timed out, resources held for them. */
    public static final int DRIVER = 1008;
    /**
     * A QP's counters in a driver: several per QP, each label beginning {@code qp 0x<qpn> } (then the client, the
     * state, the PSNs, what the counter counts), so that a reader groups them by QP without knowing their number.
     */
    public static final int QP = 1007;

    /** Offset in a record's key of the counter's index within its kind. */
    public static final int KEY_INDEX_OFFSET = 0;
    /** Offset in a record's key of the instance (engine shard) the counter belongs to. */
    public static final int KEY_INSTANCE_OFFSET = 4;

    /** Counters of an engine made without an endpoint: its transport and inbound counters, and a CM's. */
    public static final int ENGINE_CAPACITY = 128;

    private CounterTypes()
    {
    }

    /**
     * A manager for up to {@code maxCounters} counters over buffers of its own, off-heap and aligned as a mapped file
     * would be. Freed records are never reused, so that a block of counters allocated together stays contiguous.
     */
    public static CountersManager newManager(final int maxCounters)
    {
        final UnsafeBuffer values = new UnsafeBuffer(
            BufferUtil.allocateDirectAligned(maxCounters * CountersReader.COUNTER_LENGTH, 64));
        final UnsafeBuffer metaData = new UnsafeBuffer(
            BufferUtil.allocateDirectAligned(maxCounters * CountersReader.METADATA_LENGTH, 64));
        return new CountersManager(metaData, values, StandardCharsets.US_ASCII, new CachedEpochClock(), Long.MAX_VALUE);
    }
}
