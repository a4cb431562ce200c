package io.rnic.datapath.affinity;

import org.junit.jupiter.api.Test;

import java.util.BitSet;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ThreadAffinityTest
{
    @Test
    void shouldPinThreadToEachAllowedCpu() throws Exception
    {
        final BitSet allowed = ThreadAffinity.allowedCpus();
        assertFalse(allowed.isEmpty());
        for (int cpu = allowed.nextSetBit(0); cpu >= 0; cpu = allowed.nextSetBit(cpu + 1))
        {
            final int target = cpu;
            final AtomicReference<Object> result = new AtomicReference<>();
            final Thread thread = new Thread(() ->
            {
                try
                {
                    ThreadAffinity.pinCurrentThread(target);
                    final BitSet now = ThreadAffinity.allowedCpus();
                    result.set(now.cardinality() == 1 && now.get(target) && ThreadAffinity.currentCpu() == target);
                }
                catch (final RuntimeException ex)
                {
                    result.set(ex);
                }
            });
            thread.start();
            thread.join();
            assertEquals(Boolean.TRUE, result.get(), "pinned to CPU " + target);
        }
    }

    @Test
    void shouldExplainACpuThatDoesNotExist()
    {
        final IllegalArgumentException error =
            assertThrows(IllegalArgumentException.class, () -> ThreadAffinity.pinCurrentThread(1000));
        assertTrue(error.getMessage().contains("1000") && error.getMessage().contains("allowed"), error.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ThreadAffinity.pinCurrentThread(-1));
    }
}
