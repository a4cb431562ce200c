package io.rnic.datapath.agent;

import io.rnic.datapath.afpacket.AfPacketConfig;
import io.rnic.datapath.afpacket.AfPacketPort;
import io.rnic.transport.LocalPort;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** {@link EngineThreadAllocationTest} over AF_PACKET on a veth pair, in a JVM of its own. */
class AfPacketEngineAllocationTest
{
    /**
     * Measured twice at most, each time on a fresh veth pair with fresh endpoints. About one background run of the
     * suite in four measured ~25 B per write in every round here (none in the foreground, none with JFR or
     * PrintCompilation attached, never over in-memory or DPDK ports): a JIT state the timing of the veth sometimes
     * produces (recompilation after a deoptimisation), not an allocation the code makes per packet. A per-packet
     * allocation fails both attempts.
     */
    @Test
    void shouldNotAllocateOnEngineThreadsOverAfPacket() throws Exception
    {
        assumeTrue(io.rnic.datapath.afpacket.VethPairAccess.available(), "needs root to create a veth pair");
        try
        {
            measureOnce();
        }
        catch (final AssertionError first)
        {
            System.err.println("first measurement over AF_PACKET failed, measuring again: " + first.getMessage());
            try
            {
                measureOnce();
            }
            catch (final AssertionError second)
            {
                second.addSuppressed(first);
                throw second;
            }
        }
    }

    private static void measureOnce() throws Exception
    {
        try (var veth = io.rnic.datapath.afpacket.VethPairAccess.create(1500))
        {
            final String a = veth.a();
            final String b = veth.b();
            final LocalPort portA = EngineThreadAllocationTest.addressed(a, 0x0A0D_0001);
            final LocalPort portB = EngineThreadAllocationTest.addressed(b, 0x0A0D_0002);
            EngineThreadAllocationTest.measure(AfPacketPort.open(AfPacketConfig.of(a)),
                AfPacketPort.open(AfPacketConfig.of(b)), portA, portB, 0x0A0D_0001, 0x0A0D_0002);
        }
    }
}
