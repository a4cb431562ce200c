package io.rnic.transport;

import org.junit.jupiter.api.AfterEach;

import java.lang.foreign.Arena;

/**
 * A test over the simulated fabric whose registered memory comes from one shared arena, closed after each test so
 * that no test's regions outlive it, and whose waits are bounded in virtual time.
 */
abstract class ArenaScopedTest
{
    /** One second of virtual time, the usual bound of a wait on the fabric. */
    static final long SECOND_NS = 1_000_000_000L;

    final Arena arena = Arena.ofShared();

    @AfterEach
    void closeArena()
    {
        arena.close();
    }
}
