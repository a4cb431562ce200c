package io.rnic.sim;

import io.rnic.device.RnicDevice;
import io.rnic.transport.LocalPort;

import java.util.function.BooleanSupplier;

/**
 * Two RNICs joined by a simulated link in each direction, on one virtual clock: the harness of the transport tests
 * and of {@code rnic simulate}. {@link #step} runs one duty cycle of each engine and delivers every frame that is
 * due; when nothing happens the clock jumps to the next delivery (or by {@link #IDLE_STEP_NS}, so that timers
 * fire). Single-threaded and deterministic for a seed.
 */
public final class TwoNodeFabric
{
    public static final long IDLE_STEP_NS = 5_000;
    /** Frames a link can hold in flight (a switch buffer): beyond that it drops, as a real one does. */
    public static final int LINK_SLOTS = 4096;
    public static final long MAC_A = 0x02_00_00_00_0A_01L;
    public static final long MAC_B = 0x02_00_00_00_0B_02L;
    public static final int IP_A = 0x0A00_0001;
    public static final int IP_B = 0x0A00_0002;

    private final VirtualClock clock = new VirtualClock(1_000_000_000L);
    private final SimulatedLink aToB;
    private final SimulatedLink bToA;
    private final RnicDevice a;
    private final RnicDevice b;
    private final SimulatedLink.Receiver intoA;
    private final SimulatedLink.Receiver intoB;
    private long steps;

    public TwoNodeFabric(final LinkConditions conditions, final long seed)
    {
        this(conditions, conditions, seed);
    }

    public TwoNodeFabric(final LinkConditions aToBConditions, final LinkConditions bToAConditions, final long seed)
    {
        aToB = new SimulatedLink(aToBConditions, seed, clock, LINK_SLOTS);
        bToA = new SimulatedLink(bToAConditions, seed * 31 + 17, clock, LINK_SLOTS);
        final LocalPort portA = new LocalPort(MAC_A);
        portA.addIpv4(IP_A);
        portA.addGid(0xFD00_0000_0000_0000L, 0xA);
        final LocalPort portB = new LocalPort(MAC_B);
        portB.addIpv4(IP_B);
        portB.addGid(0xFD00_0000_0000_0000L, 0xB);
        a = new RnicDevice(portA, aToB, clock);
        b = new RnicDevice(portB, bToA, clock);
        intoA = a.engine()::onFrame; // held, so that a step allocates nothing
        intoB = b.engine()::onFrame;
    }

    public RnicDevice a()
    {
        return a;
    }

    public RnicDevice b()
    {
        return b;
    }

    public VirtualClock clock()
    {
        return clock;
    }

    public SimulatedLink aToB()
    {
        return aToB;
    }

    public SimulatedLink bToA()
    {
        return bToA;
    }

    public long steps()
    {
        return steps;
    }

    /** One round: both duty cycles, then delivery of everything due; moves the clock when idle. */
    public int step()
    {
        steps++;
        int work = a.engine().doWork() + b.engine().doWork();
        work += aToB.deliver(intoB);
        work += bToA.deliver(intoA);
        if (work == 0)
        {
            final long next = Math.min(aToB.nextDeliveryNs(), bToA.nextDeliveryNs());
            final long now = clock.nanoTime();
            clock.setNs(next == Long.MAX_VALUE ? now + IDLE_STEP_NS : Math.min(next, now + IDLE_STEP_NS));
        }
        else
        {
            clock.advanceNs(100); // a duty cycle takes time too
        }
        return work;
    }

    /**
     * Steps until {@code done} holds.
     *
     * @return false if {@code maxSimulatedNs} of virtual time passed first.
     */
    public boolean runUntil(final BooleanSupplier done, final long maxSimulatedNs)
    {
        final long deadline = clock.nanoTime() + maxSimulatedNs;
        while (!done.getAsBoolean())
        {
            if (clock.nanoTime() > deadline)
            {
                return false;
            }
            step();
        }
        return true;
    }
}
