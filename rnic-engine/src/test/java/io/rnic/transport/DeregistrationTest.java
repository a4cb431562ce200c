package io.rnic.transport;

import io.rnic.device.RnicDevice;
import io.rnic.sim.VirtualClock;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.MemoryRegion;
import io.rnic.verbs.QpState;
import io.rnic.verbs.QpType;
import io.rnic.verbs.WcStatus;
import io.rnic.verbs.WrOpcode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Once {@code deregisterMemoryRegion} returns, no engine touches the region again, as with a hardware RNIC after
 * {@code ibv_dereg_mr}: a WRITE in progress into it is refused at its next packet, a retransmission gathering from
 * it completes with a local protection error, and the memory may be freed without the JVM crashing.
 */
class DeregistrationTest
{
    @Test
    void shouldNakTheRestOfAnRcWriteIntoARegionDeregisteredAfterItsFirstPacket()
    {
        final DeregistrationScenarios.ResponderOutcome outcome = writeAcrossDeregistration(QpType.RC);

        assertEquals(1, outcome.remoteAccessNaksSent());
        assertEquals(0, outcome.acksSent(), "nothing after the deregistration is acknowledged");
        assertEquals(QpState.ERR, outcome.responderState());
        assertEquals(WcStatus.REM_ACCESS_ERR, outcome.requesterCompletion().status());
        assertEquals(DeregistrationScenarios.WR_ID, outcome.requesterCompletion().wrId());
    }

    @Test
    void shouldDropTheRestOfAUcWriteIntoARegionDeregisteredAfterItsFirstPacket()
    {
        final DeregistrationScenarios.ResponderOutcome outcome = writeAcrossDeregistration(QpType.UC);

        assertEquals(QpState.RTS, outcome.responderState(), "UC drops the message, the QP goes on");
        assertEquals(1, outcome.ucMessagesDropped());
    }

    @Test
    void shouldCompleteARetransmittedWriteFromAFreedRegionWithALocalProtectionError()
    {
        assertRetransmissionFromAFreedRegionFailsLocally(WrOpcode.RDMA_WRITE);
    }

    @Test
    void shouldCompleteARetransmittedSendFromAFreedRegionWithALocalProtectionError()
    {
        assertRetransmissionFromAFreedRegionFailsLocally(WrOpcode.SEND);
    }

    @Test
    void shouldFailAReceiveWhoseBufferIsDeregisteredInTheMiddleOfASend()
    {
        assertEquals(List.of(), DeregistrationScenarios.sendAcrossDeregistration(false));
    }

    @Test
    void shouldNotScatterReadResponsesIntoARegionDeregisteredWhileTheyWereOnTheirWay()
    {
        assertEquals(List.of(), DeregistrationScenarios.readResponseIntoDeregistered(false));
    }

    @Test
    void shouldAbandonReadResponsesStillOwedFromARegionDeregisteredMeanwhile()
    {
        assertEquals(List.of(), DeregistrationScenarios.queuedReadResponsesOfDeregistered(false));
    }

    /**
     * The same scenarios with every region's memory freed right after deregistration, in a JVM of its own with the
     * flags of this one (surefire's argLine: native access, bounds checks on): a stray write into freed memory is
     * a SIGSEGV there, a non-zero exit here with the crash report in the message.
     */
    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void shouldSurviveDeregistrationAndFreeInTheMiddleOfTrafficInAJvmOfItsOwn() throws IOException, InterruptedException
    {
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        for (final String argument : ManagementFactory.getRuntimeMXBean().getInputArguments())
        {
            if (!argument.startsWith("-agentlib:jdwp")) // a debugger's port cannot be shared with the child
            {
                command.add(argument);
            }
        }
        command.add("-XX:-CreateCoredumpOnCrash");
        command.add("-XX:ErrorFile=" + Path.of("target", "hs_err_deregistration_%p.log").toAbsolutePath());
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(DeregistrationMain.class.getName());
        final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        final String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        final int exit = process.waitFor();

        assertEquals(0, exit, "the scenarios' JVM exited with " + exit + ":\n" + output);
        assertTrue(output.contains("ok   responder RC") && output.contains("ok   responder UC") &&
            output.contains("ok   requester WRITE") && output.contains("ok   requester SEND") &&
            output.contains("ok   responder SEND") && output.contains("ok   completer READ") && output.contains("ok   responder READ") &&
            output.contains("ok   engine thread streaming"), output);
    }

    /**
     * With engine threads declared, deregistration waits for a command each of them runs between two packets (two
     * shards here: both), so that no copy that found the region can still be running when it returns.
     */
    @Test
    @Timeout(value = 1, unit = TimeUnit.MINUTES)
    void shouldReturnFromDeregistrationOnlyOnceEveryEngineThreadHasAppliedIt() throws InterruptedException
    {
        final RnicDevice device = new RnicDevice(new LocalPort(0x02_00_00_00_00_01L), new VirtualClock(0), 2);
        final RnicEngine[] engines = device.engines();
        for (final RnicEngine engine : engines)
        {
            // declared owners that do not run: this test runs their duty cycles itself, when it chooses
            engine.engineThread(new Thread(() -> { }, "engine-" + engine.shard()));
        }
        try (Arena arena = Arena.ofShared())
        {
            final MemoryRegion mr = device.registerMemoryRegion(device.allocPd(), arena.allocate(64), AccessFlags.ALL);
            final AtomicBoolean deregistered = new AtomicBoolean();
            final Thread application = startDeregistering(device, mr, deregistered);
            assertNull(engines[0].regions().byKey(mr.rKey()), "the key misses at once");
            assertFalse(deregistered.get(), "returned before engine 0 ran a duty cycle");
            while (engines[0].doWork() == 0)
            {
                Thread.onSpinWait(); // the command is queued before the application parks: the first cycle runs it
            }
            assertFalse(deregistered.get(), "returned before engine 1 ran a duty cycle");
            while (!deregistered.get())
            {
                engines[1].doWork();
                Thread.onSpinWait();
            }
            application.join();
        }
    }

    /** An engine thread that stops while a deregistration waits for it runs the command as it goes: no hang. */
    @Test
    @Timeout(value = 1, unit = TimeUnit.MINUTES)
    void shouldNotLeaveADeregistrationWaitingForAnEngineThreadThatStopped() throws InterruptedException
    {
        final RnicDevice device = new RnicDevice(new LocalPort(0x02_00_00_00_00_01L), new VirtualClock(0), 1);
        final RnicEngine engine = device.engine();
        engine.engineThread(new Thread(() -> { }, "engine"));
        try (Arena arena = Arena.ofShared())
        {
            final MemoryRegion mr = device.registerMemoryRegion(device.allocPd(), arena.allocate(64), AccessFlags.ALL);
            final AtomicBoolean deregistered = new AtomicBoolean();
            final Thread application = startDeregistering(device, mr, deregistered);
            assertFalse(deregistered.get());

            engine.engineThread(null); // what EngineAgent.onClose does after the engine's last duty cycle
            application.join();
            assertTrue(deregistered.get());
        }
    }

    /**
     * A {@code type} WRITE whose target region is deregistered after its FIRST packet: MIDDLE and LAST leave the region
     * as it was, and nothing else differs from a hardware RNIC.
     */
    private static DeregistrationScenarios.ResponderOutcome writeAcrossDeregistration(final QpType type)
    {
        final DeregistrationScenarios.ResponderOutcome outcome =
            DeregistrationScenarios.writeAcrossDeregistration(type, false);

        assertArrayEquals(outcome.afterFirst(), outcome.atEnd(), "MIDDLE/LAST wrote into the deregistered region");
        assertEquals(List.of(), DeregistrationScenarios.problems(type, outcome));
        return outcome;
    }

    /** A retransmission that gathers from a region deregistered since the first send completes with LOC_PROT_ERR. */
    private static void assertRetransmissionFromAFreedRegionFailsLocally(final int opcode)
    {
        final DeregistrationScenarios.RequesterOutcome outcome =
            DeregistrationScenarios.retransmitFromDeregistered(opcode);

        assertEquals(WcStatus.LOC_PROT_ERR, outcome.completion().status());
        assertEquals(List.of(), DeregistrationScenarios.problems(outcome));
    }

    /**
     * Starts an application thread that deregisters {@code mr} and sets {@code deregistered} once that returns, and
     * waits until it is parked in the call (or done).
     */
    private static Thread startDeregistering(
        final RnicDevice device, final MemoryRegion mr, final AtomicBoolean deregistered)
    {
        final Thread application = new Thread(() ->
        {
            device.deregisterMemoryRegion(mr);
            deregistered.set(true);
        }, "application");
        application.start();
        awaitParkedOrDone(application);
        return application;
    }

    private static void awaitParkedOrDone(final Thread thread)
    {
        Thread.State state;
        // the engine's execute waits with a time limit: TIMED_WAITING
        while ((state = thread.getState()) != Thread.State.WAITING && state != Thread.State.TIMED_WAITING &&
            state != Thread.State.TERMINATED)
        {
            Thread.onSpinWait();
        }
    }
}
