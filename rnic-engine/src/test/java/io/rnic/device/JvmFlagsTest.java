package io.rnic.device;

import io.rnic.testing.ForkedJvm;
import io.rnic.testing.TestVectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An embedder who forgets a JVM flag: a JVM of its own started with this one's flags but some (see
 * {@link JvmFlagsMain}). A required flag missing is one line naming it, not a library's error; the Vector API module
 * missing is a note, and the ICRC is still right.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class JvmFlagsTest
{
    @Test
    void shouldComputeEveryIcrcWithoutTheVectorApiModule() throws IOException, InterruptedException
    {
        final ForkedJvm.Result result = ForkedJvm.run(JvmFlagsMain.class, Set.of(JvmFlags.VECTOR_MODULE));

        assertEquals(0, result.exit(), result.toString());
        final int valid = TestVectors.valid().size();
        assertEquals("vector API absent: accepted " + valid + " of " + valid + " vectors, 1 bad ICRCs refused\n",
            result.stdout(), result.toString());
        assertTrue(result.stderr().contains("rnic: no " + JvmFlags.VECTOR_MODULE + ": the ICRC runs without the " +
            "Vector API\n"), result.toString());
    }

    @Test
    void shouldNameTheMissingAddOpensInOneLine() throws IOException, InterruptedException
    {
        final ForkedJvm.Result result = ForkedJvm.run(JvmFlagsMain.class, Set.of(JvmFlags.OPEN_MISC));

        assertEquals(0, result.exit(), result.toString());
        assertEquals("rnic needs the JVM flags: " + JvmFlags.OPEN_MISC +
            "; start java with all of rnic's: " + JvmFlags.ALL + "\n", result.stdout(), result.toString());
        assertFalse(result.stderr().contains("Error"), result.toString());
    }

    @Test
    void shouldNameEveryMissingFlagAtOnce() throws IOException, InterruptedException
    {
        final ForkedJvm.Result result = ForkedJvm.run(JvmFlagsMain.class,
            Set.of(JvmFlags.OPEN_MISC, JvmFlags.OPEN_NIO, JvmFlags.NATIVE_ACCESS, JvmFlags.VECTOR_MODULE));

        assertEquals(0, result.exit(), result.toString());
        assertEquals("rnic needs the JVM flags: " + JvmFlags.OPEN_MISC + " " + JvmFlags.OPEN_NIO + " " +
            JvmFlags.NATIVE_ACCESS + "; start java with all of rnic's: " + JvmFlags.ALL + "\n", result.stdout(),
            result.toString());
    }

    @Test
    void shouldFindNothingMissingInThisJvm()
    {
        assertEquals("", JvmFlags.missing(), "surefire's argLine is rnic.jvm.flags");
    }
}
