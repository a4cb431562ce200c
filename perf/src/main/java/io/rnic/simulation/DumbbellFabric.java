package io.rnic.simulation;

import io.rnic.device.RnicDevice;
import io.rnic.sim.SimulatedLink;
import io.rnic.sim.VirtualClock;
import io.rnic.transport.LocalPort;
import org.agrona.DirectBuffer;

import java.nio.ByteOrder;

/**
 * Several sender RNICs and one receiver behind one switch, on one virtual clock: the incast where congestion
 * control earns its keep. Each sender's port serializes at its line rate (an uplink {@link BottleneckQueue} that
 * never marks); everything for the receiver leaves the switch through one {@link BottleneckQueue} (the bottleneck:
 * RED/ECN marking, tail drop); the receiver's ACKs and CNPs go back through its own port, uncongested.
 * {@link #step} runs every engine's duty cycle, moves the frames that are due, and advances the clock by
 * {@link #TICK_NS}: a fixed tick, so that a QP held back by its shaper is looked at again soon enough.
 */
public final class DumbbellFabric
{
    public static final long TICK_NS = 100;
    public static final long RECEIVER_MAC = 0x02_00_00_00_0F_01L;
    public static final int RECEIVER_IP = 0x0A00_0101; // 10.0.1.1
    private static final long SENDER_MAC_BASE = 0x02_00_00_00_01_00L;
    private static final int SENDER_IP_BASE = 0x0A00_0000; // 10.0.0.(i+1)
    private static final int IPV4_SOURCE_OFFSET = 14 + 12;
    private static final int PORT_CAPACITY_BYTES = 4 << 20;

    private final VirtualClock clock = new VirtualClock(1_000_000_000L);
    private final RnicDevice receiver;
    private final RnicDevice[] senders;
    private final BottleneckQueue[] uplinks;
    private final BottleneckQueue bottleneck;
    private final BottleneckQueue downlink;
    private final long[] bytesDelivered;
    private final SimulatedLink.Receiver intoBottleneck;
    private final SimulatedLink.Receiver intoReceiver = this::intoReceiver;
    private final SimulatedLink.Receiver intoSenders = this::intoSenders;

    /**
     * @param senderCount         how many sender nodes, 1 to 200.
     * @param lineRateBitsPerSec  every port's speed (senders' and receiver's).
     * @param bottleneckSettings  the switch port towards the receiver.
     */
    public DumbbellFabric(
        final int senderCount,
        final long lineRateBitsPerSec,
        final BottleneckQueue.Settings bottleneckSettings,
        final long seed)
    {
        if (senderCount < 1 || senderCount > 200)
        {
            throw new IllegalArgumentException("senders " + senderCount + " out of range 1..200");
        }
        final BottleneckQueue.Settings port = new BottleneckQueue.Settings().rateBitsPerSec(lineRateBitsPerSec)
            .capacityBytes(PORT_CAPACITY_BYTES).noMarking().propagationNs(500);
        bottleneck = new BottleneckQueue(bottleneckSettings, clock, seed);
        intoBottleneck = bottleneck::send;
        downlink = new BottleneckQueue(port, clock, seed + 1);
        final LocalPort receiverPort = new LocalPort(RECEIVER_MAC);
        receiverPort.addIpv4(RECEIVER_IP);
        receiver = new RnicDevice(receiverPort, downlink, clock);
        senders = new RnicDevice[senderCount];
        uplinks = new BottleneckQueue[senderCount];
        bytesDelivered = new long[senderCount];
        for (int i = 0; i < senderCount; i++)
        {
            final LocalPort senderPort = new LocalPort(senderMac(i));
            senderPort.addIpv4(senderIp(i));
            uplinks[i] = new BottleneckQueue(port, clock, seed + 2 + i);
            senders[i] = new RnicDevice(senderPort, uplinks[i], clock);
        }
    }

    public static long senderMac(final int index)
    {
        return SENDER_MAC_BASE + index;
    }

    public static int senderIp(final int index)
    {
        return SENDER_IP_BASE + index + 1;
    }

    public VirtualClock clock()
    {
        return clock;
    }

    public RnicDevice receiver()
    {
        return receiver;
    }

    public RnicDevice sender(final int index)
    {
        return senders[index];
    }

    public int senderCount()
    {
        return senders.length;
    }

    public BottleneckQueue bottleneck()
    {
        return bottleneck;
    }

    /** Bytes of frames from sender {@code index} that came out of the bottleneck (retransmissions included). */
    public long bytesDelivered(final int index)
    {
        return bytesDelivered[index];
    }

    /** One tick: every duty cycle, then every frame due moves one hop; the clock advances by {@link #TICK_NS}. */
    public int step()
    {
        int work = receiver.engine().doWork();
        for (int i = 0; i < senders.length; i++)
        {
            work += senders[i].engine().doWork();
            work += uplinks[i].deliver(intoBottleneck);
        }
        work += bottleneck.deliver(intoReceiver);
        work += downlink.deliver(intoSenders);
        clock.advanceNs(TICK_NS);
        return work;
    }

    private void intoReceiver(final DirectBuffer buffer, final int offset, final int length)
    {
        final int sender = buffer.getInt(offset + IPV4_SOURCE_OFFSET, ByteOrder.BIG_ENDIAN) - SENDER_IP_BASE - 1;
        if (sender >= 0 && sender < bytesDelivered.length)
        {
            bytesDelivered[sender] += length;
        }
        receiver.engine().onFrame(buffer, offset, length);
    }

    /** The switch forwards by destination MAC. */
    private void intoSenders(final DirectBuffer buffer, final int offset, final int length)
    {
        final long destination = ((long)(buffer.getShort(offset, ByteOrder.BIG_ENDIAN) & 0xFFFF) << 32) |
            (buffer.getInt(offset + 2, ByteOrder.BIG_ENDIAN) & 0xFFFF_FFFFL);
        final long index = destination - SENDER_MAC_BASE;
        if (index >= 0 && index < senders.length)
        {
            senders[(int)index].engine().onFrame(buffer, offset, length);
        }
    }
}
