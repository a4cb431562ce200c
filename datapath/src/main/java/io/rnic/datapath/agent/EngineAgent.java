package io.rnic.datapath.agent;

import io.rnic.datapath.affinity.ThreadAffinity;
import io.rnic.datapath.neighbour.NeighbourDiscovery;
import io.rnic.datapath.port.FrameHandler;
import io.rnic.datapath.port.PacketPort;
import io.rnic.pcap.PcapWriter;
import io.rnic.status.CounterBlock;
import io.rnic.status.CounterTypes;
import io.rnic.transport.PayloadAttachingSink;
import io.rnic.transport.LocalPort;
import io.rnic.transport.PacketSink;
import io.rnic.transport.RnicEngine;
import io.rnic.wire.BthFlyweight;
import io.rnic.wire.EthernetFlyweight;
import io.rnic.wire.FrameClassifier;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.MessageHandler;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.status.CountersManager;

import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * One engine thread's run-to-completion duty cycle: receive a burst from the port, classify each frame
 * ({@link FrameClassifier}: RoCEv2 to the transport, ARP and neighbour discovery to {@link NeighbourDiscovery}, the
 * rest ignored — the kernel's own traffic shares an AF_PACKET interface), run the application work that lives on
 * this thread, run the engine (commands, timers, requesters: what the applications just posted), then push every
 * queued frame to the wire in one flush.
 * <p>
 * Application work runs here rather than on a thread of its own because a second spinning thread on a small
 * machine takes a core from the peer (two spinners on one core starve each other).
 */
public final class EngineAgent implements Agent
{
    public static final int DEFAULT_BURST = 32;

    private final RnicEngine engine;
    private final PacketPort port;
    private final NeighbourDiscovery neighbours;
    private final int burst;
    private final int cpu;
    private final NanoClock clock;
    private final PcapWriter capture;
    private final FrameHandler onFrame = this::onFrame;
    private final PacketSink transmit = new TransmitSink();
    /** A tagged ARP or neighbour discovery frame without its tag ({@link #onTaggedNeighbourFrame}). */
    private final UnsafeBuffer untagged = new UnsafeBuffer(new byte[2048]);
    private final MessageHandler onHandedOver = this::onHandedOver;
    private final ShardRouter router;
    private final ManyToOneRingBuffer inbox;
    private final int shard;
    private volatile Agent[] applications = new Agent[0];
    private volatile Thread thread;
    private static final int FRAMES_IGNORED = 0;
    private static final int FRAMES_HANDED_OVER = 1;
    private static final int HAND_OVER_DROPS = 2;
    private static final int STALLS = 3;
    private static final int LONGEST_STALL_NS = 4;
    private final CounterBlock counters = CounterBlock.standalone(CounterTypes.ENGINE_AGENT, "agent: ",
        new String[]{ "frames not for rnic", "frames handed to another engine", "hand-over drops (inbox full)",
            "engine stalls over 10 ms", "longest engine stall ns" });
    /**
     * Duty cycles further apart than this count as a stall: the thread was descheduled (a core shared with other
     * work), or stopped by the JVM (a GC pause). Far above a cycle's own work (microseconds) and the longest park of
     * the backoff idle strategy; a user's {@code sleep:MICROS} that long counts too.
     */
    public static final long STALL_NS = 10_000_000;
    private long lastCycleNs;

    /**
     * @param cpu     the CPU to pin the engine thread to, or -1 to leave it to the scheduler.
     * @param capture where to copy every frame received and sent, or null.
     */
    public EngineAgent(
        final RnicEngine engine,
        final PacketPort port,
        final NeighbourDiscovery neighbours,
        final int burst,
        final int cpu,
        final NanoClock clock,
        final PcapWriter capture)
    {
        this(engine, port, neighbours, burst, cpu, clock, capture, null);
    }

    /**
     * @param router the shards' inboxes when several engine threads share the device (null for one): frames for
     *               QPs of another shard are handed over to it.
     */
    public EngineAgent(
        final RnicEngine engine,
        final PacketPort port,
        final NeighbourDiscovery neighbours,
        final int burst,
        final int cpu,
        final NanoClock clock,
        final PcapWriter capture,
        final ShardRouter router)
    {
        if (burst < 1 || burst > 1024)
        {
            throw new IllegalArgumentException("burst " + burst + " out of range 1..1024");
        }
        this.engine = engine;
        this.port = port;
        this.neighbours = neighbours;
        this.burst = burst;
        this.cpu = cpu;
        this.clock = clock;
        this.lastCycleNs = clock.nanoTime();
        this.capture = capture;
        this.router = router != null && router.shards() > 1 ? router : null;
        this.shard = engine.shard();
        this.inbox = this.router == null ? null : this.router.inbox(shard);
        engine.callerFlushesAcknowledges(true);
        if (this.router != null && this.router.shards() != engine.shards())
        {
            throw new IllegalArgumentException("router has " + router.shards() + " shards, the engine " +
                engine.shards());
        }
        engine.sink(transmit);
        if (neighbours != null)
        {
            engine.gsiSourceListener(neighbours::onGsiDatagram); // the requester of a REP we owe needs no ARP
        }
    }

    /** The sink that sends through the port (and the capture): for neighbour requests and other control frames. */
    public PacketSink transmitSink()
    {
        return transmit;
    }

    public NeighbourDiscovery neighbours()
    {
        return neighbours;
    }

    public PacketPort port()
    {
        return port;
    }

    public RnicEngine engine()
    {
        return engine;
    }

    /**
     * Moves this engine thread's counters (its own, its port's and its neighbour resolution's) into the endpoint's
     * counters manager, which then holds all of them. Before the engine thread starts.
     */
    public void moveCountersTo(final CountersManager manager)
    {
        counters.moveTo(manager, shard, "engine " + shard + " agent: ");
        port.counters().moveTo(manager, shard, port.name());
        neighbours.moveCountersTo(manager, shard);
    }

    /** Frames that were neither RoCEv2 nor neighbour traffic (the kernel's TCP, multicast noise …). */
    public long framesIgnored()
    {
        return counters.get(FRAMES_IGNORED);
    }

    /** Frames received here for a QP of another shard, and handed over to it. */
    public long framesHandedOver()
    {
        return counters.get(FRAMES_HANDED_OVER);
    }

    /** Frames for another shard dropped because its inbox was full. */
    public long handOverDrops()
    {
        return counters.get(HAND_OVER_DROPS);
    }

    /**
     * Duty cycles that began more than {@link #STALL_NS} after the one before. A software RNIC's answers wait while
     * its thread does not run: a peer's retransmission, a latency outlier or a DCQCN rate cut on a clean link is
     * explained when this moved.
     */
    public long stalls()
    {
        return counters.get(STALLS);
    }

    /**
     * The longest gap between two duty cycles so far, in ns. A peer gives up on this engine (RETRY_EXC_ERR) when it
     * is longer than the peer's retry count + 1 times its ACK timeout (8 x 67 ms with perftest's defaults).
     */
    public long longestStallNs()
    {
        return counters.get(LONGEST_STALL_NS);
    }

    /** Adds work run in every duty cycle on the engine thread (an application's poll loop). Any thread. */
    public void addApplication(final Agent application)
    {
        engine.execute(() ->
        {
            final Agent[] current = applications;
            final Agent[] next = Arrays.copyOf(current, current.length + 1);
            next[current.length] = application;
            applications = next;
            return null;
        });
    }

    /** Removes an application added earlier; it is not called again once this returns. Any thread. */
    public void removeApplication(final Agent application)
    {
        engine.execute(() ->
        {
            applications = Arrays.stream(applications).filter(a -> a != application).toArray(Agent[]::new);
            return null;
        });
    }

    @Override
    public void onStart()
    {
        if (cpu >= 0)
        {
            ThreadAffinity.pinCurrentThread(cpu);
        }
        port.onEngineThreadStart();
        thread = Thread.currentThread();
        engine.engineThread(thread);
        lastCycleNs = clock.nanoTime();
    }

    /** The engine thread, once started (null before). */
    public Thread thread()
    {
        return thread;
    }

    @Override
    public int doWork() throws Exception
    {
        final int received = port.receive(onFrame, burst);
        int work = received;
        boolean drained = received < burst;
        if (inbox != null)
        {
            final int handedOver = inbox.read(onHandedOver, burst);
            drained &= handedOver < burst;
            work += handedOver;
        }
        engine.receiveDrained(drained); // frames still waiting may be the answers a due timer would give up on
        // applications between receive and the engine: what they post on seeing a frame leaves in this cycle's
        // flush, together with the ACK the frame caused (one kick, not two)
        for (final Agent application : applications)
        {
            work += application.doWork();
        }
        work += engine.doWork();
        final long cycleNs = engine.nowNs();
        final long gapNs = cycleNs - lastCycleNs;
        if (gapNs > STALL_NS)
        {
            counters.increment(STALLS);
            if (gapNs > counters.get(LONGEST_STALL_NS))
            {
                counters.set(LONGEST_STALL_NS, gapNs);
            }
        }
        lastCycleNs = cycleNs;
        port.flush();
        // the ACKs last, in a kick of their own when there are any: the data of this cycle is already on its way
        final int acknowledges = engine.flushAcknowledges();
        if (acknowledges > 0)
        {
            port.flush();
        }
        return work + acknowledges;
    }

    @Override
    public void onClose()
    {
        engine.flushAcknowledges();
        port.flush();
        engine.engineThread(null);
        port.onEngineThreadStop();
        if (capture != null)
        {
            capture.flush();
        }
    }

    @Override
    public String roleName()
    {
        return "rnic-engine-" + port.name();
    }

    private void onFrame(final DirectBuffer buffer, final int offset, final int length)
    {
        if (capture != null)
        {
            capture.write(buffer, offset, length, clock.nanoTime());
        }
        final int bthOffset = FrameClassifier.classify(buffer, offset, length);
        if (bthOffset >= 0)
        {
            roce(buffer, offset, length, bthOffset);
        }
        else if (bthOffset == FrameClassifier.ARP)
        {
            neighbours.onArp(buffer, offset, length, transmit);
        }
        else if (bthOffset == FrameClassifier.ICMPV6)
        {
            neighbours.onIcmpv6(buffer, offset, length, transmit);
        }
        else if (bthOffset != FrameClassifier.NOT_ROCE || !onTaggedNeighbourFrame(buffer, offset, length))
        {
            counters.increment(FRAMES_IGNORED);
        }
    }

    /**
     * ARP and neighbour discovery on the VLAN the port tags (a DPDK port hands frames over with their tag; the kernel
     * takes it off before AF_PACKET sees them): read from a copy without the tag.
     *
     * @return whether the frame was one.
     */
    private boolean onTaggedNeighbourFrame(final DirectBuffer buffer, final int offset, final int length)
    {
        final int vlanId = engine.port().vlanId();
        if (vlanId == LocalPort.NO_VLAN || length < EthernetFlyweight.TAGGED_LENGTH ||
            length - EthernetFlyweight.VLAN_TAG_LENGTH > untagged.capacity() ||
            (buffer.getShort(offset + EthernetFlyweight.TYPE_OFFSET, ByteOrder.BIG_ENDIAN) & 0xFFFF) !=
            EthernetFlyweight.TPID_8021Q ||
            (buffer.getShort(offset + EthernetFlyweight.TYPE_OFFSET + 2, ByteOrder.BIG_ENDIAN) & 0xFFF) != vlanId)
        {
            return false;
        }
        untagged.putBytes(0, buffer, offset, EthernetFlyweight.TYPE_OFFSET);
        untagged.putBytes(EthernetFlyweight.TYPE_OFFSET, buffer, offset + EthernetFlyweight.INNER_TYPE_OFFSET,
            length - EthernetFlyweight.INNER_TYPE_OFFSET);
        final int untaggedLength = length - EthernetFlyweight.VLAN_TAG_LENGTH;
        final int kind = FrameClassifier.classify(untagged, 0, untaggedLength);
        if (kind == FrameClassifier.ARP)
        {
            neighbours.onArp(untagged, 0, untaggedLength, transmit);
            return true;
        }
        if (kind == FrameClassifier.ICMPV6)
        {
            neighbours.onIcmpv6(untagged, 0, untaggedLength, transmit);
            return true;
        }
        return false;
    }

    private void roce(final DirectBuffer buffer, final int offset, final int length, final int bthOffset)
    {
        if (router != null && bthOffset + BthFlyweight.ACK_REQ_OFFSET <= offset + length)
        {
            // the 24-bit DestQP, read with the byte before it
            final int qpn = buffer.getInt(bthOffset + BthFlyweight.FECN_BECN_OFFSET, ByteOrder.BIG_ENDIAN) &
                BthFlyweight.QPN_MASK;
            final int owner = router.ownerOf(qpn);
            if (owner != shard)
            {
                if (router.handOver(owner, buffer, offset, length))
                {
                    counters.increment(FRAMES_HANDED_OVER);
                }
                else
                {
                    counters.increment(HAND_OVER_DROPS);
                }
                return;
            }
        }
        engine.onFrame(buffer, offset, length);
    }

    private void onHandedOver(final int type, final MutableDirectBuffer buffer, final int index, final int length)
    {
        engine.onFrame(buffer, index, length);
    }

    /**
     * To the port (and the capture); frames are built in the port's memory when it lends some, their payload sent
     * from where it lies when the port can (not while capturing: the capture writes each frame whole).
     */
    private final class TransmitSink implements PayloadAttachingSink
    {
        private UnsafeBuffer claimed;

        @Override
        public void send(final DirectBuffer buffer, final int offset, final int length)
        {
            if (capture != null)
            {
                capture.write(buffer, offset, length, clock.nanoTime());
            }
            port.transmit(buffer, offset, length);
        }

        @Override
        public boolean hasRoom()
        {
            return port.canTransmit();
        }

        @Override
        public long pushes()
        {
            return port.pushes();
        }

        @Override
        public UnsafeBuffer claimFrame()
        {
            return claimed = port.claimFrame();
        }

        @Override
        public void commitFrame(final int length)
        {
            if (capture != null)
            {
                capture.write(claimed, 0, length, clock.nanoTime());
            }
            port.commitFrame(length);
        }

        @Override
        public boolean attachesPayload()
        {
            return capture == null && port.attachesPayload();
        }

        @Override
        public boolean attachPayload(final long address, final int length)
        {
            return port.attachPayload(address, length);
        }

        @Override
        public void detachPayload()
        {
            port.detachPayload();
        }

        @Override
        public void commitAttached(final int headerBytes, final int trailerBytes)
        {
            port.commitAttached(headerBytes, trailerBytes);
        }

        @Override
        public long payloadFence()
        {
            return port.payloadFence();
        }

        @Override
        public boolean payloadReleased(final long fence)
        {
            return port.payloadReleased(fence);
        }
    }
}
