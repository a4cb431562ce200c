package io.rnic.datapath.port;

import io.rnic.status.CounterBlock;
import io.rnic.status.CounterTypes;
import org.agrona.concurrent.status.CountersManager;

/**
 * What every port counts, written once for all of them: frames received and transmitted, and frames dropped either
 * way. A {@link CounterBlock} of type {@link CounterTypes#PORT}: the port's engine thread writes, any thread reads.
 * A port counts in a manager of its own from the moment it opens; an endpoint that takes it moves the counters into
 * its own manager ({@link #moveTo}) before its engine thread starts.
 */
public final class PortCounters
{
    public static final int FRAMES_RECEIVED = 0;
    public static final int FRAMES_TRANSMITTED = 1;
    public static final int RECEIVE_DROPS = 2;
    public static final int TRANSMIT_DROPS = 3;
    /** Payload segments sent from where they lie in a memory region, not copied (a DPDK port's external mbufs). */
    public static final int TX_ZERO_COPY_SEGMENTS = 4;
    /**
     * Received frames longer than the port takes (an AF_PACKET ring slot, a DPDK frame of ours): a drop reason of
     * its own, apart from {@link #RECEIVE_DROPS} (a full ring), because the two have different causes and fixes.
     */
    public static final int RECEIVE_TOO_LONG = 5;
    private static final String[] LABELS = { "frames received", "frames transmitted", "receive drops",
        "transmit drops", "tx zero-copy segments", "receive drops (frame too long)" };

    private final CounterBlock block = CounterBlock.standalone(CounterTypes.PORT, "port: ", LABELS);

    /** Into the endpoint's manager, as port {@code name} of engine {@code shard}. */
    public void moveTo(final CountersManager manager, final int shard, final String name)
    {
        block.moveTo(manager, shard, "port " + name + ": ");
    }

    public void addFramesReceived(final long delta)
    {
        block.add(FRAMES_RECEIVED, delta);
    }

    /** Negative to take back a frame counted as sent that could not go after all. */
    public void addFramesTransmitted(final long delta)
    {
        block.add(FRAMES_TRANSMITTED, delta);
    }

    public void addReceiveDrops(final long delta)
    {
        block.add(RECEIVE_DROPS, delta);
    }

    /** A received frame dropped for being longer than the port takes ({@link #RECEIVE_TOO_LONG}). */
    public void addReceiveTooLong(final long delta)
    {
        block.add(RECEIVE_TOO_LONG, delta);
    }

    public void addTransmitDrops(final long delta)
    {
        block.add(TRANSMIT_DROPS, delta);
    }

    public void addZeroCopySegments(final long delta)
    {
        block.add(TX_ZERO_COPY_SEGMENTS, delta);
    }

    /** One of the counters by index ({@link #FRAMES_RECEIVED} …): any thread. */
    public long get(final int index)
    {
        return block.get(index);
    }
}
