package io.rnic.transport;

import io.rnic.device.RnicDevice;
import io.rnic.sim.VirtualClock;
import io.rnic.verbs.QpInitAttributes;
import io.rnic.verbs.QpType;
import io.rnic.verbs.VerbsException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A verb that needs the engine thread (create a QP, modify it, deregister) while that thread never reaches its
 * commands — its duty cycle fails before them every time, or it hangs — fails with one line after the engine's
 * command timeout, never waits for ever.
 */
class EngineCommandTimeoutTest
{
    @Test
    @Timeout(value = 1, unit = TimeUnit.MINUTES)
    void shouldFailAVerbWhoseEngineThreadNeverRunsItsCommands()
    {
        final RnicDevice device = new RnicDevice(new LocalPort(0x02_00_00_00_00_01L), new VirtualClock(0), 1);
        final RnicEngine engine = device.engine();
        engine.engineThread(new Thread(() -> { }, "engine-0")); // owns the engine, and never runs a duty cycle
        engine.commandTimeoutNs(TimeUnit.MILLISECONDS.toNanos(200));

        final QpInitAttributes init = new QpInitAttributes().type(QpType.RC).pd(device.allocPd())
            .cqs(device.createCq(4), device.createCq(4));
        final VerbsException error = assertThrows(VerbsException.class, () -> device.createQp(init));
        assertEquals("the engine thread engine-0 did not run the command within 200 ms: it is stuck or failing " +
            "(its errors are counted and logged)", error.getMessage());
    }
}
