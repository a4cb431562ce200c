package io.rnic.transport;

import io.rnic.device.RnicDevice;
import io.rnic.sim.VirtualClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A duty cycle runs at most {@link RnicEngine#COMMANDS_PER_CYCLE} control commands, as Aeron's conductor drains a
 * bounded number: a burst of control calls from other threads is spread over cycles, each of which serves the
 * packets too, and every command still runs.
 */
class EngineCommandDrainTest
{
    private static final int CALLERS = 2 * RnicEngine.COMMANDS_PER_CYCLE + 5;

    @Test
    @Timeout(value = 1, unit = TimeUnit.MINUTES)
    void shouldRunABoundedNumberOfCommandsPerDutyCycleAndEveryCommandInTheEnd() throws Exception
    {
        final RnicDevice device = new RnicDevice(new LocalPort(0x02_00_00_00_00_01L), new VirtualClock(0), 1);
        final RnicEngine engine = device.engine();
        engine.engineThread(new Thread(() -> { }, "engine-0")); // callers queue; this test runs the cycles
        final AtomicInteger ran = new AtomicInteger();
        final List<Thread> callers = new ArrayList<>();
        for (int i = 0; i < CALLERS; i++)
        {
            final Thread caller = Thread.ofPlatform().start(() -> engine.execute(ran::incrementAndGet));
            callers.add(caller);
        }
        while (engine.commandsQueued() < CALLERS)
        {
            Thread.onSpinWait();
        }

        assertEquals(RnicEngine.COMMANDS_PER_CYCLE, engine.doWork());
        assertEquals(RnicEngine.COMMANDS_PER_CYCLE, ran.get());
        assertEquals(RnicEngine.COMMANDS_PER_CYCLE, engine.doWork());
        assertEquals(CALLERS - 2 * RnicEngine.COMMANDS_PER_CYCLE, engine.doWork());
        assertEquals(CALLERS, ran.get());
        assertEquals(0, engine.doWork());
        for (final Thread caller : callers)
        {
            caller.join();
        }
    }
}
