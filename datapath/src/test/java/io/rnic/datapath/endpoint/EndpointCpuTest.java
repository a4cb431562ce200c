package io.rnic.datapath.endpoint;

import io.rnic.datapath.affinity.ThreadAffinity;
import io.rnic.datapath.port.InMemoryPort;
import io.rnic.transport.LocalPort;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * An engine thread pinned to a CPU the process may not run on dies alone once started: the endpoint must refuse the
 * CPU in {@code start}, naming it and the CPUs allowed, instead of running without its engine (and a later
 * {@code resolveMac} blaming ARP).
 */
class EndpointCpuTest
{
    @Test
    void shouldRefuseToStartOnACpuThisProcessMayNotRunOn()
    {
        final int notAllowed = ThreadAffinity.allowedCpus().length(); // one past the last CPU allowed
        final InMemoryPort[] ports = InMemoryPort.pair(0x02_00_00_00_00_0AL, 0x02_00_00_00_00_0BL, 4096, 1 << 16);
        final EndpointOptions options = EndpointOptions.defaults().withIdleStrategy("yield").withHoldRocePort(false)
            .withCpu(notAllowed);
        try
        {
            final IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () ->
                Endpoint.start(ports[0], new LocalPort(0x02_00_00_00_00_0AL), options).close());
            assertEquals("cannot pin the engine thread to CPU " + notAllowed + ": CPU " + notAllowed + " is not one " +
                "this process may run on (allowed: " + ThreadAffinity.cpuList(ThreadAffinity.allowedCpus()) + ")",
                refused.getMessage());
        }
        finally
        {
            ports[1].close();
        }
    }
}
