package io.rnic.datapath.agent;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** {@link EngineThreadAllocationTest} over DPDK net_ring ports, in a JVM of its own. */
class DpdkEngineAllocationTest
{
    @Test
    void shouldNotAllocateOnEngineThreadsOverDpdkRingPorts() throws Exception
    {
        if (!Boolean.getBoolean("rnic.require.dpdk"))
        {
            assumeTrue(io.rnic.dpdkbindings.DpdkBindings.unavailableReason() == null, "needs DPDK");
        }
        final java.util.List<String> eal = java.util.List.of("--no-huge", "-m", "512", "--no-shconf", "--no-pci");
        io.rnic.dpdkbindings.Eal.init(eal);
        try (Arena arena = Arena.ofShared())
        {
            final long aToB = io.rnic.dpdkbindings.DpdkBindings.rte_ring_create(arena.allocateFrom("alloc_ab"), 4096,
                -1, 3);
            final long bToA = io.rnic.dpdkbindings.DpdkBindings.rte_ring_create(arena.allocateFrom("alloc_ba"), 4096,
                -1, 3);
            final String a = io.rnic.dpdkbindings.EthDevice.fromRings("alloc_a", bToA, aToB).name();
            final String b = io.rnic.dpdkbindings.EthDevice.fromRings("alloc_b", aToB, bToA).name();
            final io.rnic.datapath.dpdk.DpdkPort portA =
                io.rnic.datapath.dpdk.DpdkPort.open(io.rnic.datapath.dpdk.DpdkConfig.of(a, eal).withMtu(4096))[0];
            final io.rnic.datapath.dpdk.DpdkPort portB =
                io.rnic.datapath.dpdk.DpdkPort.open(io.rnic.datapath.dpdk.DpdkConfig.of(b, eal).withMtu(4096))[0];
            EngineThreadAllocationTest.measure(portA, portB,
                EngineThreadAllocationTest.port(portA.macAddress(), 0x0A0E_0001),
                EngineThreadAllocationTest.port(portB.macAddress(), 0x0A0E_0002),
                0x0A0E_0001, 0x0A0E_0002);
        }
    }

}
