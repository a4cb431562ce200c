package io.rnic.datapath.driver;

import io.rnic.client.DriverContext;
import io.rnic.cnc.CncFile;
import io.rnic.cnc.DeviceInfo;
import io.rnic.datapath.endpoint.EndpointPairScenario;
import io.rnic.device.QueuePair;
import io.rnic.device.ResourceCosts;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.Errno;
import io.rnic.verbs.MemoryRegion;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.QpInitAttributes;
import io.rnic.verbs.SharedReceiveQueue;
import io.rnic.verbs.SrqAttributes;
import io.rnic.verbs.VerbsException;
import org.agrona.concurrent.status.CountersReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A client that asks a driver for everything gets its quotas, then one-line ENOMEMs naming each quota's flag, each
 * counted; the driver and its other clients go on.
 */
class DriverQuotaTest
{
    private static final ClientQuotas QUOTAS = new ClientQuotas(8, 8, 2, 4, 1 << 20, 1 << 20);

    private DriverFixture fixture;

    @BeforeEach
    void start() throws Exception
    {
        fixture = new DriverFixture(Files.createTempDirectory("rnic-driver-test"), TimeUnit.SECONDS.toNanos(2),
            QUOTAS);
    }

    @AfterEach
    void stop() throws Exception
    {
        fixture.close();
    }

    @Test
    void shouldRefuseAGreedyClientAtEachQuotaWhileAnotherClientKeepsWorking() throws Throwable
    {
        try (DriverContext greedy = DriverContext.open(fixture.directory);
            DriverContext other = DriverContext.open(fixture.directory);
            CncFile cnc = CncFile.open(fixture.directory))
        {
            final ProtectionDomain pd = greedy.allocPd();
            final List<CompletionQueue> cqs = new ArrayList<>();
            refusedAfter(8, () -> cqs.add(greedy.createCq(16)),
                "ENOMEM: ibv_create_cq: this client holds 8 CQs, its quota (rnic driver --max-client-cqs)");
            final List<QueuePair> qps = new ArrayList<>();
            final QpInitAttributes small = new QpInitAttributes().pd(pd).cqs(cqs.get(0), cqs.get(0)).capacity(4, 4)
                .maxSge(1, 1);
            refusedAfter(8, () -> qps.add(greedy.createQp(small)),
                "ENOMEM: ibv_create_qp: this client holds 8 QPs, its quota (rnic driver --max-client-qps)");
            refusedAfter(2, () -> greedy.createSrq(pd, new SrqAttributes().maxWr(16).maxSge(1)),
                "ENOMEM: ibv_create_srq: this client holds 2 SRQs, its quota (rnic driver --max-client-srqs)");
            final MemorySegment memory = greedy.allocate(4 << 20);
            final List<MemoryRegion> mrs = new ArrayList<>();
            refusedAfter(4, () -> mrs.add(greedy.registerMemoryRegion(pd, memory.asSlice(0, 4096), AccessFlags.ALL)),
                "ENOMEM: ibv_reg_mr: this client holds 4 memory regions, its quota (rnic driver --max-client-mrs)");
            greedy.deregisterMemoryRegion(mrs.remove(0));
            refusedAfter(0, () -> greedy.registerMemoryRegion(pd, memory, AccessFlags.ALL),
                "ENOMEM: ibv_reg_mr: 4194304 bytes more would take this client past its 1048576 registered bytes " +
                "(rnic driver --max-client-mr-bytes; it has 12288)");
            for (final QueuePair qp : qps)
            {
                greedy.destroyQp(qp);
            }
            final long deep = ResourceCosts.queuePair(2048, 16, 2048, 16);
            refusedAfter(0, () -> greedy.createQp(new QpInitAttributes().pd(pd).cqs(cqs.get(0), cqs.get(0))
                .capacity(2048, 2048).maxSge(16, 16)), "ENOMEM: ibv_create_qp: its work queues would take this " +
                "client's driver memory past 1048576 bytes (rnic driver --max-client-queue-bytes; it has 0, this one " +
                deep + ")");

            final CountersReader counters = new CountersReader(cnc.countersMetadataBuffer(),
                cnc.countersValuesBuffer(), StandardCharsets.US_ASCII);
            for (final String quota : new String[]{ "QPs (--max-client-qps)", "CQs (--max-client-cqs)",
                "SRQs (--max-client-srqs)", "regions (--max-client-mrs)", "registered bytes (--max-client-mr-bytes)",
                "work queue memory (--max-client-queue-bytes)" })
            {
                assertEquals(1, DriverFixture.counter(counters, "driver refused: a client's " + quota), quota);
            }
            assertEquals("8", DeviceInfo.value(DeviceInfo.read(cnc.deviceInfoBuffer()), "max_client_qp"));
            assertEquals("1048576", DeviceInfo.value(DeviceInfo.read(cnc.deviceInfoBuffer()),
                "max_client_queue_bytes"));

            // the greedy client's context still works, within its quotas, and so does every other client's
            greedy.destroyCq(cqs.remove(cqs.size() - 1));
            cqs.add(greedy.createCq(16));
            EndpointPairScenario.rcOperations(other, fixture.peer, DriverFixture.IP_DRIVER, DriverFixture.IP_PEER);
            assertEquals(2, fixture.driver.clientCount());
            assertEquals(0, fixture.driver.endpoint().engineErrors());
        }
        assertEquals(0, fixture.driver.clientCount());
    }

    /** Runs {@code create} {@code times} times, then once more, which must fail with ENOMEM and {@code message}. */
    private static void refusedAfter(final int times, final Executable create, final String message) throws Throwable
    {
        for (int i = 0; i < times; i++)
        {
            create.execute();
        }
        final VerbsException refused = assertThrows(VerbsException.class, create);
        assertEquals(Errno.ENOMEM, refused.errno(), refused.getMessage());
        assertEquals(message, refused.getMessage());
        assertFalse(refused.getMessage().contains("\n"));
    }
}
