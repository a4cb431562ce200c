package io.rnic.datapath.agent;

import io.rnic.datapath.dpdk.DpdkConfig;
import io.rnic.datapath.dpdk.DpdkPort;
import io.rnic.datapath.port.PortCounters;
import io.rnic.dpdkbindings.DpdkBindings;
import io.rnic.dpdkbindings.Eal;
import io.rnic.dpdkbindings.EthDevice;
import io.rnic.verbs.PathMtu;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@link EngineThreadAllocationTest} over DPDK net_ring ports, in a JVM of its own: 256-byte WRITEs copied into the
 * frame, and 4096-byte ones at path MTU 2048 sent zero-copy (each packet's payload in an external mbuf chained after
 * the headers, the peer joining the chain it receives).
 */
class DpdkEngineAllocationTest
{
    @Test
    void shouldNotAllocateOnEngineThreadsOverDpdkRingPorts() throws Exception
    {
        measureOverRings("alloc", DpdkConfig.ZeroCopy.AUTO, 256, PathMtu.MTU_1024); // net_ring copies unless told
    }

    @Test
    void shouldNotAllocateOnEngineThreadsSendingPayloadZeroCopy() throws Exception
    {
        final DpdkPort[] ports = measureOverRings("allzc", DpdkConfig.ZeroCopy.ON, 4096, PathMtu.MTU_2048);
        assertTrue(ports[0].counters().get(PortCounters.TX_ZERO_COPY_SEGMENTS) > 100_000, "sent zero-copy");
    }

    private static DpdkPort[] measureOverRings(final String name, final DpdkConfig.ZeroCopy zeroCopy,
        final int messageBytes, final PathMtu pathMtu) throws Exception
    {
        if (!Boolean.getBoolean("rnic.require.dpdk"))
        {
            assumeTrue(DpdkBindings.unavailableReason() == null, "needs DPDK");
        }
        final List<String> eal = List.of("--no-huge", "-m", "512", "--no-shconf", "--no-pci");
        Eal.init(eal);
        try (Arena arena = Arena.ofShared())
        {
            final long aToB = DpdkBindings.rte_ring_create(arena.allocateFrom(name + "_ab"), 4096, -1, 3);
            final long bToA = DpdkBindings.rte_ring_create(arena.allocateFrom(name + "_ba"), 4096, -1, 3);
            final String a = EthDevice.fromRings(name + "_a", bToA, aToB).name();
            final String b = EthDevice.fromRings(name + "_b", aToB, bToA).name();
            final DpdkPort portA = DpdkPort.open(DpdkConfig.of(a, eal).withMtu(4096).withZeroCopy(zeroCopy))[0];
            final DpdkPort portB = DpdkPort.open(DpdkConfig.of(b, eal).withMtu(4096).withZeroCopy(zeroCopy))[0];
            EngineThreadAllocationTest.measure(portA, portB,
                EngineThreadAllocationTest.port(portA.macAddress(), 0x0A0E_0001),
                EngineThreadAllocationTest.port(portB.macAddress(), 0x0A0E_0002),
                0x0A0E_0001, 0x0A0E_0002, EngineThreadAllocationTest.LIMIT_BYTES, messageBytes, pathMtu);
            return new DpdkPort[]{ portA, portB };
        }
    }
}
