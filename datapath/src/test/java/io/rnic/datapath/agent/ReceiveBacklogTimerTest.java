package io.rnic.datapath.agent;

import io.rnic.datapath.neighbour.NeighbourDiscovery;
import io.rnic.datapath.neighbour.NeighbourTable;
import io.rnic.datapath.port.InMemoryPort;
import io.rnic.device.ConnectParameters;
import io.rnic.device.EngineQueuePair;
import io.rnic.device.QueuePair;
import io.rnic.device.RnicDevice;
import io.rnic.sim.VirtualClock;
import io.rnic.transport.LocalPort;
import io.rnic.transport.RnicEngine;
import io.rnic.transport.TransportCounter;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.MemoryRegion;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.QpInitAttributes;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.WcStatus;
import io.rnic.verbs.WorkCompletion;
import io.rnic.verbs.WrOpcode;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An engine thread descheduled for longer than an ACK timeout wakes with the peer's answers waiting in its receive
 * ring, more of them than one burst takes: it must read them before it gives up on them. Two endpoints over
 * in-memory ports, driven cycle by cycle on a virtual clock, with a receive burst of one frame so that two answers
 * make a backlog. Seen in CI: a READ run on a clean veth link with one local ACK timeout and 16 READs resent.
 */
class ReceiveBacklogTimerTest
{
    private static final long MAC_A = 0x02_00_00_00_0B_01L;
    private static final long MAC_B = 0x02_00_00_00_0B_02L;
    private static final int IP_A = 0x0A0D_0001;
    private static final int IP_B = 0x0A0D_0002;
    /** ConnectParameters' default timeout 14: 4.096 us x 2^14 = 67 ms. */
    private static final long ACK_TIMEOUT_NS = 4096L << 14;

    private final VirtualClock clock = new VirtualClock(1_000_000_000L);
    private final InMemoryPort[] ports = InMemoryPort.pair(MAC_A, MAC_B, 4096, 1 << 20);
    private final Arena arena = Arena.ofConfined();
    private final Side a = new Side(MAC_A, IP_A, ports[0]);
    private final Side b = new Side(MAC_B, IP_B, ports[1]);

    @AfterEach
    void close()
    {
        arena.close();
    }

    @Test
    void shouldReadTheAnswersWaitingInTheRingBeforeFiringTimersAfterAStall() throws Exception
    {
        a.write(connectedQp(), b.region);
        a.write(connectedQp(), b.region);
        a.agent.doWork(); // both WRITEs leave
        runUntilIdle(b.agent); // both ACKs now wait in A's ring: two frames, a burst takes one

        clock.advanceNs(ACK_TIMEOUT_NS * 3); // A's engine thread was descheduled through both timers' deadlines
        runUntilIdle(a.agent);

        assertEquals(1, a.agent.stalls(), "the stall is counted");
        assertEquals(0, a.counter(TransportCounter.RETRANSMITTED_PACKETS), "answered WRITEs resent");
        assertEquals(0, a.counter(TransportCounter.LOCAL_ACK_TIMEOUT));
        assertEquals(WcStatus.SUCCESS, a.poll().status());
        assertEquals(WcStatus.SUCCESS, a.poll().status());
    }

    @Test
    void shouldFireTheTimerOfAnUnansweredRequestAfterAStall() throws Exception
    {
        a.write(connectedQp(), b.region);
        a.agent.doWork(); // B never runs: no answer comes

        clock.advanceNs(ACK_TIMEOUT_NS * 3);
        a.agent.doWork(); // the ring drains empty: what had arrived before the previous cycle's clock reading is in
        runUntilIdle(a.agent); // the next cycle knows nothing can have been missed

        assertEquals(1, a.counter(TransportCounter.LOCAL_ACK_TIMEOUT));
        assertEquals(1, a.counter(TransportCounter.RETRANSMITTED_PACKETS));
    }

    @Test
    void shouldFireTimersHeldByAReceiveRingThatNeverEmpties() throws Exception
    {
        a.write(connectedQp(), b.region);
        a.agent.doWork();
        clock.advanceNs(ACK_TIMEOUT_NS * 3);

        // a peer keeps A's ring full of frames that answer nothing: the timer waits, but not for ever
        final UnsafeBuffer noise = new UnsafeBuffer(new byte[64]); // EtherType 0: not ours, ignored
        final long stepNs = RnicEngine.TIMER_HOLD_MAX_NS / 10;
        long heldNs = 0;
        while (a.counter(TransportCounter.LOCAL_ACK_TIMEOUT) == 0 && heldNs <= 2 * RnicEngine.TIMER_HOLD_MAX_NS)
        {
            assertTrue(ports[1].transmit(noise, 0, noise.capacity()) && ports[1].transmit(noise, 0, noise.capacity()));
            a.agent.doWork();
            clock.advanceNs(stepNs);
            heldNs += stepNs;
        }
        assertEquals(1, a.counter(TransportCounter.LOCAL_ACK_TIMEOUT), "the timer never fired under a backlog");
        assertTrue(heldNs >= RnicEngine.TIMER_HOLD_MAX_NS, "held only " + heldNs + " ns");
    }

    @Test
    void shouldCountDutyCyclesFurtherApartThanTheStallThreshold() throws Exception
    {
        a.agent.doWork();
        clock.advanceNs(EngineAgent.STALL_NS);
        a.agent.doWork();
        assertEquals(0, a.agent.stalls(), "a gap of the threshold itself is no stall");
        clock.advanceNs(EngineAgent.STALL_NS + 1);
        a.agent.doWork();
        assertEquals(1, a.agent.stalls());
        assertEquals(0, b.agent.stalls(), "the other engine ran no cycle at all: nothing to compare");
        assertEquals(EngineAgent.STALL_NS + 1, a.agent.longestStallNs());
        clock.advanceNs(EngineAgent.STALL_NS * 3);
        a.agent.doWork();
        clock.advanceNs(EngineAgent.STALL_NS * 2);
        a.agent.doWork();
        assertEquals(3, a.agent.stalls());
        assertEquals(EngineAgent.STALL_NS * 3, a.agent.longestStallNs(), "the longest gap, not the last");
    }

    private static void runUntilIdle(final EngineAgent agent) throws Exception
    {
        for (int i = 0; i < 1_000; i++)
        {
            if (agent.doWork() == 0)
            {
                return;
            }
        }
        throw new AssertionError("still busy after 1000 duty cycles");
    }

    /** An RC QP of A's, connected to one of B's (and B's to it). */
    private EngineQueuePair connectedQp()
    {
        final EngineQueuePair qpA = a.qp();
        final EngineQueuePair qpB = b.qp();
        connect(qpA, qpB.qpn(), IP_B, MAC_B);
        connect(qpB, qpA.qpn(), IP_A, MAC_A);
        return qpA;
    }

    private static void connect(final EngineQueuePair qp, final int remoteQpn, final int remoteIp, final long mac)
    {
        final ConnectParameters parameters = new ConnectParameters().remote(remoteQpn, 0).localPsn(0);
        parameters.addressVector.destinationIpv4(remoteIp).destinationMac(mac);
        parameters.applyTo(qp);
    }

    /** One endpoint driven by the test's thread: a device, its engine agent (burst of one frame) and a region. */
    private final class Side
    {
        final RnicDevice device;
        final EngineAgent agent;
        final ProtectionDomain pd;
        final CompletionQueue cq;
        final MemoryRegion region;
        private final WorkCompletion[] completions = { new WorkCompletion() };

        Side(final long mac, final int ip, final InMemoryPort port)
        {
            final LocalPort localPort = new LocalPort(mac).ethernetMtu(4096);
            localPort.addIpv4(ip);
            device = new RnicDevice(localPort, (buffer, offset, length) -> { }, clock);
            agent = new EngineAgent(device.engine(), port,
                new NeighbourDiscovery(localPort, new NeighbourTable(16), true), 1, -1, clock, null);
            pd = device.allocPd();
            cq = device.createCq(16);
            region = device.registerMemoryRegion(pd, arena.allocate(4096, 4096), AccessFlags.ALL);
        }

        EngineQueuePair qp()
        {
            return device.createQp(new QpInitAttributes().pd(pd).cqs(cq, cq).capacity(4, 4));
        }

        void write(final EngineQueuePair qp, final MemoryRegion target)
        {
            final SendWorkRequest wr = new SendWorkRequest();
            wr.opcode = WrOpcode.RDMA_WRITE;
            wr.sgl.add(region.address(), 64, region.lKey());
            wr.remoteAddress = target.address();
            wr.rKey = target.rKey();
            assertEquals(QueuePair.POST_OK, qp.postSend(wr));
        }

        WorkCompletion poll()
        {
            assertEquals(1, cq.poll(completions, 1), "no completion");
            return completions[0];
        }

        long counter(final TransportCounter counter)
        {
            return device.engine().counters().get(counter);
        }
    }
}
