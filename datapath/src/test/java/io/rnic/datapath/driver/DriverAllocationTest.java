package io.rnic.datapath.driver;

import io.rnic.client.DriverContext;
import io.rnic.datapath.agent.EngineThreadAllocationTest;
import io.rnic.datapath.endpoint.InterfaceAddresses;
import io.rnic.device.ConnectParameters;
import io.rnic.device.QueuePair;
import io.rnic.device.RnicContext;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.MemoryRegion;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.QpInitAttributes;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.WorkCompletion;
import io.rnic.verbs.WrOpcode;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Through a driver, the steady state allocates nothing: not on the driver's engine thread (which takes the client's
 * requests from the shared ring and completes into the shared CQ), not on the client's thread (which posts into the
 * ring and polls the CQ). Measured with the JVM's per-thread allocation counter, as {@code EngineThreadAllocationTest}
 * does for an embedded endpoint (its own JVM: see the build's allocation-test execution).
 */
class DriverAllocationTest
{
    private static final int WARMUP_WRITES = 200_000;
    private static final int MEASURED_WRITES = 100_000;
    private static final int MEASURED_ROUNDS = 10;
    private static final long LIMIT_BYTES = 16 * 1024;

    @Test
    void shouldNotAllocateOnTheDriversEngineThreadNorOnTheClientsThread() throws Exception
    {
        try (DriverFixture fixture = DriverFixture.withTimeoutMs(10_000);
            DriverContext client = DriverContext.open(fixture.directory))
        {
            final Side a = new Side(client, 256);
            final Side b = new Side(fixture.peer, 16);
            a.connect(b, DriverFixture.IP_PEER, DriverFixture.MAC_PEER);
            b.connect(a, DriverFixture.IP_DRIVER, DriverFixture.MAC_DRIVER);

            final SendWorkRequest wr = new SendWorkRequest();
            wr.opcode = WrOpcode.RDMA_WRITE;
            wr.sgl.add(a.mr.address(), 256, a.mr.lKey());
            wr.remoteAddress = b.mr.address();
            wr.rKey = b.mr.rKey();
            final WorkCompletion[] wc = { new WorkCompletion() };
            EngineThreadAllocationTest.run(a.qp, a.cq, wr, wc, WARMUP_WRITES);
            final Thread[] threads = { fixture.driver.endpoint().agent().thread(), Thread.currentThread() };
            final long[] rounds = new long[MEASURED_ROUNDS];
            long least = Long.MAX_VALUE;
            for (int round = 0; round < MEASURED_ROUNDS && least >= LIMIT_BYTES; round++)
            {
                final long before = EngineThreadAllocationTest.allocated(threads);
                EngineThreadAllocationTest.run(a.qp, a.cq, wr, wc, MEASURED_WRITES);
                rounds[round] = EngineThreadAllocationTest.allocated(threads) - before;
                least = Math.min(least, rounds[round]);
            }
            assertEquals(0, fixture.driver.endpoint().engineErrors());
            assertTrue(least < LIMIT_BYTES, "driver engine + client threads allocated " + Arrays.toString(rounds) +
                " bytes in rounds of " + MEASURED_WRITES + " writes (engine " +
                EngineThreadAllocationTest.allocated(new Thread[]{ threads[0] }) + ", client " +
                EngineThreadAllocationTest.allocated(new Thread[]{ threads[1] }) +
                " bytes in all)");
        }
    }

    private static final class Side
    {
        final QueuePair qp;
        final CompletionQueue cq;
        final MemoryRegion mr;

        Side(final RnicContext context, final int sendQueue)
        {
            final ProtectionDomain pd = context.allocPd();
            cq = context.createCq(1024);
            qp = context.createQp(new QpInitAttributes().pd(pd).cqs(cq, cq).capacity(sendQueue, 16));
            mr = context.registerMemoryRegion(pd, context.allocate(4096), AccessFlags.ALL);
        }

        void connect(final Side remote, final InetAddress remoteIp, final long remoteMac)
        {
            final ConnectParameters parameters = new ConnectParameters().remote(remote.qp.qpn(), 0).localPsn(0);
            parameters.addressVector.destinationIpv4((int)InterfaceAddresses.gidOf(remoteIp)[1])
                .destinationMac(remoteMac).sourceGidIndex(1);
            parameters.applyTo(qp);
        }
    }
}
