package io.rnic.datapath.dpdk;

import io.rnic.datapath.endpoint.EmbeddedContext;
import io.rnic.datapath.endpoint.Endpoint;
import io.rnic.datapath.endpoint.EndpointOptions;
import io.rnic.datapath.port.PortCounters;
import io.rnic.device.ConnectParameters;
import io.rnic.device.QueuePair;
import io.rnic.dpdkbindings.DpdkBindings;
import io.rnic.dpdkbindings.EthDevice;
import io.rnic.icrc.Icrc;
import io.rnic.icrc.IcrcCalculator;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.MemoryRegion;
import io.rnic.verbs.PathMtu;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.QpInitAttributes;
import io.rnic.verbs.QpType;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.VerbsException;
import io.rnic.verbs.WcStatus;
import io.rnic.verbs.WorkCompletion;
import io.rnic.verbs.WrOpcode;
import io.rnic.wire.EthernetFlyweight;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Memory lent to the driver for zero-copy transmit is never freed under it: a region's deregistration waits until
 * the driver has released every mbuf that sends from it, and fails in one line (never hangs) when the driver keeps
 * them. The driver here is net_ring with nobody reading the ring (a NIC that never completes), which holds the
 * frames until the test drains the ring through a port of the device at its other end: that port frees them as a
 * driver does after sending.
 */
class DpdkZeroCopyReleaseTest
{
    @BeforeAll
    static void dpdk()
    {
        if (!Boolean.getBoolean("rnic.require.dpdk"))
        {
            assumeTrue(DpdkBindings.unavailableReason() == null, () -> "DPDK: " + DpdkBindings.unavailableReason());
        }
        io.rnic.dpdkbindings.Eal.init(DpdkEndpointTest.EAL);
    }

    @Test
    void shouldWaitForTheDriverToReleaseARegionsMemoryBeforeDeregisteringItAndFailInOneLineWhenItKeepsIt()
        throws Exception
    {
        try (Arena arena = Arena.ofShared())
        {
            final long aToB = DpdkEndpointTest.ring(arena, "zc_ab");
            final long bToA = DpdkEndpointTest.ring(arena, "zc_ba");
            final String nameA = EthDevice.fromRings("zc_a", bToA, aToB).name();
            final String nameB = EthDevice.fromRings("zc_b", aToB, bToA).name();
            final DpdkPort portA = DpdkPort.open(DpdkConfig.of(nameA, DpdkEndpointTest.EAL).withMtu(4200)
                .withZeroCopy(DpdkConfig.ZeroCopy.ON))[0];
            final DpdkPort wireEnd = DpdkPort.open(DpdkConfig.of(nameB, DpdkEndpointTest.EAL).withMtu(4200))[0];
            final EndpointOptions options = EndpointOptions.defaults().withIdleStrategy("yield")
                .withAnswerNeighbours(true).withHoldRocePort(false);
            try (Endpoint a = Endpoint.start(portA, DpdkEndpointTest.addressing(portA, 1), options))
            {
                final EmbeddedContext context = EmbeddedContext.of(a);
                final ProtectionDomain pd = context.allocPd();
                final CompletionQueue cq = context.createCq(16);
                final QueuePair qp = context.createQp(new QpInitAttributes().type(QpType.UC).pd(pd).cqs(cq, cq));
                final ConnectParameters parameters = new ConnectParameters().remote(0x123, 0x100).localPsn(0x100)
                    .pathMtu(PathMtu.ofBytes(4096));
                parameters.addressVector.destinationIpv4(0x0A0B_0002).destinationMac(wireEnd.macAddress())
                    .sourceGidIndex(1);
                parameters.applyTo(qp);
                final MemorySegment memory = context.allocate(1 << 16);

                // the driver keeps the frame: the deregistration gives up after its limit, in one line
                final MemoryRegion kept = context.registerMemoryRegion(pd, memory.asSlice(0, 8192), AccessFlags.ALL);
                write(qp, cq, kept, 4096);
                assertEquals(1, portA.counters().get(PortCounters.TX_ZERO_COPY_SEGMENTS), "sent from the region");
                a.engine().payloadReleaseTimeoutNs(200_000_000L);
                final VerbsException refused = assertThrows(VerbsException.class,
                    () -> context.deregisterMemoryRegion(kept));
                assertTrue(refused.getMessage().contains("the port still sends from its memory 200 ms later") &&
                    refused.getMessage().contains("its memory must stay allocated") &&
                    !refused.getMessage().contains("\n"), refused.getMessage());

                // the driver releases the frames while the deregistration waits: it returns then, not before
                a.engine().payloadReleaseTimeoutNs(30_000_000_000L);
                final MemoryRegion released = context.registerMemoryRegion(pd, memory.asSlice(8192, 8192),
                    AccessFlags.ALL);
                write(qp, cq, released, 8192); // two frames at path MTU 4096
                assertEquals(3, portA.counters().get(PortCounters.TX_ZERO_COPY_SEGMENTS));
                final CompletableFuture<Void> deregistration =
                    CompletableFuture.runAsync(() -> context.deregisterMemoryRegion(released));
                final long deadlineNs = System.nanoTime() + 10_000_000_000L;
                while (a.engine().regions().byKey(released.lKey()) != null && System.nanoTime() < deadlineNs)
                {
                    Thread.onSpinWait(); // the key is gone first, then the wait for the driver begins
                }
                for (int i = 0; i < 3; i++)
                {
                    a.engine().execute(() -> null); // a few duty cycles of the engine while the ring holds them
                }
                assertFalse(deregistration.isDone(), "deregistered while the driver still held the frames");
                final IcrcCalculator icrc = Icrc.defaultCalculator();
                final int[] icrcMatches = { 0 };
                int drained = 0;
                while (drained < 3)
                {
                    // the other end joins each chain into one frame; its ICRC covers headers and payload in order
                    drained += wireEnd.receive((buffer, offset, length) -> icrcMatches[0] +=
                        icrc.compute(buffer, offset + EthernetFlyweight.LENGTH, false, offset + length - Icrc.LENGTH) ==
                        Icrc.readWire(buffer, offset + length - Icrc.LENGTH) ? 1 : 0, 16);
                }
                deregistration.get(10, TimeUnit.SECONDS);
                assertEquals(3, icrcMatches[0], "every frame sent zero-copy carries the right ICRC");
            }
            wireEnd.close();
            assertEquals(0, portA.mbufsInUseAtClose(), "every mbuf back in the pools");
            assertEquals(0, wireEnd.mbufsInUseAtClose());
            DpdkBindings.rte_ring_free(aToB);
            DpdkBindings.rte_ring_free(bToA);
        }
    }

    private static void write(final QueuePair qp, final CompletionQueue cq, final MemoryRegion region,
        final int length) throws InterruptedException
    {
        final SendWorkRequest write = new SendWorkRequest();
        write.opcode = WrOpcode.RDMA_WRITE;
        write.sgl.add(region.address(), length, region.lKey());
        write.remoteAddress = 0x10000;
        write.rKey = 0x4242;
        assertEquals(0, qp.postSend(write));
        final WorkCompletion[] completion = { new WorkCompletion() };
        final long deadlineNs = System.nanoTime() + 10_000_000_000L;
        while (cq.poll(completion, 1) == 0)
        {
            assertTrue(System.nanoTime() < deadlineNs, "no completion");
            Thread.onSpinWait();
        }
        assertEquals(WcStatus.SUCCESS, completion[0].status(), "a UC WRITE completes once on the wire");
    }
}
