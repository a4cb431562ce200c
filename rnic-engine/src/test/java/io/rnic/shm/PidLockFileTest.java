package io.rnic.shm;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The lock of a driver's directory and of an AF_PACKET interface: one holder at a time, in this JVM too; its file
 * removed when let go, never under a holder; whether it is held, asked without taking it.
 */
class PidLockFileTest
{
    @TempDir
    Path dir;

    @Test
    void shouldWriteThePidAndRemoveTheFileWhenLetGo() throws Exception
    {
        final Path path = dir.resolve("driver.lock");
        final PidLockFile lock = PidLockFile.tryAcquire(path);
        assertNotNull(lock);
        assertEquals(ProcessHandle.current().pid(), PidLockFile.holder(path));
        assertTrue(PidLockFile.isHeld(path));

        lock.close();

        assertFalse(Files.exists(path), "a lock let go leaves nothing behind");
        assertFalse(PidLockFile.isHeld(path));
        lock.close(); // idempotent
    }

    @Test
    void shouldRefuseASecondTakerInTheSameProcessAndTellAProbeUntilLetGo() throws Exception
    {
        final Path path = dir.resolve("afpacket-1-eth0.lock");
        try (PidLockFile.Probe probe = openedAfter(PidLockFile.tryAcquire(path), path))
        {
            assertTrue(probe.held());
            assertNull(PidLockFile.tryAcquire(path), "the kernel refuses a second open file its lock");
            assertTrue(probe.held(), "closing the refused taker's descriptor released nothing");
        }
    }

    private PidLockFile.Probe openedAfter(final PidLockFile lock, final Path path) throws Exception
    {
        assertNotNull(lock);
        final PidLockFile.Probe probe = PidLockFile.Probe.open(path);
        assertTrue(probe.held());
        lock.close();
        assertFalse(probe.held(), "its holder let go: the probe's file is held by nobody");
        assertNotNull(PidLockFile.tryAcquire(path)); // a new file: the probe's stays free
        assertFalse(probe.held());
        probe.close();
        return PidLockFile.Probe.open(path);
    }

    /**
     * Takers that lock and let go as fast as they can: without the check that the path still names the file locked,
     * one takes the file another has just removed while a third takes the new one, and two hold "the" lock at once.
     */
    @Test
    void shouldNeverLetTwoTakersHoldTheLockAtOnceWhileItsFileIsRemovedAndMadeAgain() throws Exception
    {
        final Path path = dir.resolve("driver.lock");
        final int takers = 4;
        final int rounds = 10_000;
        final AtomicInteger holding = new AtomicInteger();
        final AtomicInteger overlaps = new AtomicInteger();
        final AtomicLong taken = new AtomicLong();
        final CyclicBarrier start = new CyclicBarrier(takers);
        final List<Thread> threads = new ArrayList<>();
        final List<Throwable> failures = new ArrayList<>();
        for (int t = 0; t < takers; t++)
        {
            threads.add(Thread.ofPlatform().start(() ->
            {
                try
                {
                    start.await();
                    for (int i = 0; i < rounds; i++)
                    {
                        final PidLockFile lock = PidLockFile.tryAcquire(path);
                        if (lock == null)
                        {
                            continue;
                        }
                        if (holding.incrementAndGet() > 1)
                        {
                            overlaps.incrementAndGet();
                        }
                        taken.incrementAndGet();
                        holding.decrementAndGet();
                        lock.close();
                    }
                }
                catch (final Throwable ex)
                {
                    synchronized (failures)
                    {
                        failures.add(ex);
                    }
                }
            }));
        }
        for (final Thread thread : threads)
        {
            thread.join();
        }
        assertEquals(List.of(), failures);
        assertTrue(taken.get() > 0);
        assertEquals(0, overlaps.get(), "two takers held the lock at once, in " + taken.get() + " takes");
        assertFalse(Files.exists(path));
    }
}
