package io.rnic.datapath.endpoint;

import io.rnic.testing.ForkedJvm;
import org.junit.jupiter.api.Test;

import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Arena before endpoint: closing an {@link EmbeddedContext} with regions still registered and a peer still writing
 * and reading them frees its memory only after its engine thread has stopped. Run in a forked JVM
 * ({@link EmbeddedCloseMain}), so that a use after free is a crash the test reports, not the end of the test run.
 */
class EmbeddedContextCloseTest
{
    @Test
    void shouldCloseAContextUnderStreamingWritesAndReadsWithoutCrashing() throws Exception
    {
        final ForkedJvm.Result result = ForkedJvm.run(EmbeddedCloseMain.class, Set.of());
        assertEquals(0, result.exit(), result.toString());
        assertEquals(2, result.stdout().lines().filter(line -> line.startsWith("ok   ")).count(), result.toString());
    }
}
