package io.rnic.datapath.driver;

import io.rnic.client.DriverContext;
import io.rnic.cnc.CncException;
import io.rnic.cnc.CncFile;
import io.rnic.datapath.endpoint.EndpointPairScenario;
import io.rnic.device.QueuePair;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.MemoryRegion;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.QpAttrMask;
import io.rnic.verbs.QpAttributes;
import io.rnic.verbs.QpInitAttributes;
import io.rnic.verbs.QpState;
import io.rnic.verbs.VerbsException;
import io.rnic.verbs.WcStatus;
import io.rnic.verbs.WorkCompletion;
import org.agrona.concurrent.status.CountersReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DriverTest
{
    private DriverFixture fixture;

    @BeforeEach
    void start() throws Exception
    {
        fixture = DriverFixture.withTimeoutMs(2_000);
    }

    @AfterEach
    void stop() throws Exception
    {
        fixture.close();
    }

    @Test
    void shouldRunTheSameVerbsCodeThroughTheDriverAsEmbedded() throws Exception
    {
        try (DriverContext client = DriverContext.open(fixture.directory))
        {
            EndpointPairScenario.rcOperations(client, fixture.peer, DriverFixture.IP_DRIVER, DriverFixture.IP_PEER);
            EndpointPairScenario.rcOperations(fixture.peer, client, DriverFixture.IP_PEER, DriverFixture.IP_DRIVER);
        }
        assertEquals(0, fixture.driver.endpoint().engineErrors());
    }

    @Test
    void shouldBindAccessAndInvalidateMemoryWindowsThroughTheDriver() throws Exception
    {
        try (DriverContext client = DriverContext.open(fixture.directory))
        {
            EndpointPairScenario.memoryWindows(client, fixture.peer, DriverFixture.IP_DRIVER, DriverFixture.IP_PEER);
            EndpointPairScenario.memoryWindows(fixture.peer, client, DriverFixture.IP_PEER, DriverFixture.IP_DRIVER);
        }
        assertEquals(0, fixture.driver.endpoint().engineErrors());
    }

    @Test
    void shouldNumberQpsOnceAcrossClients()
    {
        try (DriverContext first = DriverContext.open(fixture.directory);
            DriverContext second = DriverContext.open(fixture.directory))
        {
            final Set<Integer> qpns = new HashSet<>();
            for (final DriverContext client : new DriverContext[]{ first, second, first, second })
            {
                final ProtectionDomain pd = client.allocPd();
                final CompletionQueue cq = client.createCq(16);
                final QueuePair qp = client.createQp(new QpInitAttributes().pd(pd).cqs(cq, cq).capacity(4, 4));
                assertTrue(qpns.add(qp.qpn()), "QPN " + qp.qpn() + " given twice");
            }
            assertEquals(2, fixture.driver.clientCount());
        }
        assertEquals(0, fixture.driver.clientCount(), "closing a context detaches it");
    }

    @Test
    void shouldShowEachClientQpInTheCountersUntilItIsDestroyed()
    {
        try (DriverContext client = DriverContext.open(fixture.directory);
            CncFile cnc = CncFile.open(fixture.directory))
        {
            final CountersReader counters = new CountersReader(cnc.countersMetadataBuffer(),
                cnc.countersValuesBuffer(), StandardCharsets.US_ASCII);
            final ProtectionDomain pd = client.allocPd();
            final CompletionQueue cq = client.createCq(16);
            final QueuePair qp = client.createQp(new QpInitAttributes().pd(pd).cqs(cq, cq).capacity(4, 4));
            final String prefix = "qp 0x" + Integer.toHexString(qp.qpn()) + " client " +
                Long.toHexString(client.clientId()) + " RC: ";
            assertEquals(List.of(prefix + "state (RESET)", prefix + "sq_psn", prefix + "rq_psn",
                prefix + "retransmitted_pkts", prefix + "dcqcn_rate_bps"), labels(counters, prefix));
            assertEquals(3, counterValue(counters, "driver client resources (PDs, MRs, CQs, QPs)"), "PD, CQ, QP");

            final QpAttributes init = new QpAttributes();
            init.state = QpState.INIT;
            init.accessFlags = AccessFlags.ALL;
            qp.modify(init, QpAttrMask.STATE | QpAttrMask.ACCESS_FLAGS | QpAttrMask.PORT | QpAttrMask.PKEY_INDEX);
            assertEquals(QpState.INIT, qp.state(), "the client sees the state at once");
            final long deadlineNs = System.nanoTime() + 5_000_000_000L;
            while (!labels(counters, prefix).contains(prefix + "state (INIT)"))
            {
                assertTrue(System.nanoTime() < deadlineNs, "state label still " + labels(counters, prefix));
                Thread.onSpinWait();
            }

            client.destroyQp(qp);
            assertEquals(List.of(), labels(counters, prefix), "freed with the QP");
        }
    }

    private static List<String> labels(final CountersReader counters, final String prefix)
    {
        final List<String> labels = new ArrayList<>();
        counters.forEach((id, typeId, key, label) ->
        {
            if (label.startsWith(prefix))
            {
                labels.add(label);
            }
        });
        return labels;
    }

    private static long counterValue(final CountersReader counters, final String label)
    {
        final long[] value = { Long.MIN_VALUE };
        counters.forEach((counterId, label1) ->
        {
            if (label1.equals(label))
            {
                value[0] = counters.getCounterValue(counterId);
            }
        });
        return value[0];
    }

    @Test
    void shouldKeepADeregisteredKeyInvalidAcrossTheClientsNextRegistrations()
    {
        // the driver registers its clients' memory into its device's table: the same walk of the key indexes
        try (DriverContext client = DriverContext.open(fixture.directory))
        {
            final RcEnd end = new RcEnd(client, 1 << 16);
            final RcEnd peer = new RcEnd(fixture.peer, 4096);
            end.connect(peer.qp.qpn(), DriverFixture.IP_PEER, 14, 7);
            peer.connect(end.qp.qpn(), DriverFixture.IP_DRIVER, 14, 7);
            final MemoryRegion stale = client.registerMemoryRegion(end.pd, end.memory, AccessFlags.ALL);
            final int staleKey = stale.rKey();
            client.deregisterMemoryRegion(stale);
            int previousIndex = staleKey >>> 8;
            MemoryRegion live = null;
            for (int i = 0; i < 500; i++)
            {
                live = client.registerMemoryRegion(end.pd, end.memory, AccessFlags.ALL);
                final int index = live.rKey() >>> 8;
                assertTrue(index > previousIndex && live.rKey() != staleKey, "registration " + i + " took key 0x" +
                    Integer.toHexString(live.rKey()) + " after index 0x" + Integer.toHexString(previousIndex));
                previousIndex = index;
                if (i < 499)
                {
                    client.deregisterMemoryRegion(live);
                }
            }
            peer.memory.fill((byte)0x5A);
            assertEquals(0, peer.postWrite(1, live.address(), staleKey, 4096));
            final WorkCompletion refused = peer.poll(peer.sendCq, TimeUnit.SECONDS.toNanos(10));
            assertNotNull(refused, "the WRITE with a stale key neither completed nor failed");
            assertEquals(WcStatus.REM_ACCESS_ERR, refused.status());
            assertEquals(-1L, end.memory.asSlice(0, 4096).mismatch(MemorySegment.ofArray(new byte[4096])),
                "the driver wrote through a stale key");
        }
    }

    @Test
    void shouldRefuseMemoryNotFromTheContext()
    {
        try (DriverContext client = DriverContext.open(fixture.directory); Arena arena = Arena.ofConfined())
        {
            final ProtectionDomain pd = client.allocPd();
            final VerbsException refused = assertThrows(VerbsException.class,
                () -> client.registerMemoryRegion(pd, arena.allocate(4096, 4096), AccessFlags.ALL));
            assertTrue(refused.getMessage().contains("allocate()"), refused.getMessage());
        }
    }

    @Test
    void shouldRefuseASecondDriverOnTheDirectory()
    {
        final CncException refused = assertThrows(CncException.class, () -> fixture.startDriver(1_000_000_000L));
        assertTrue(refused.getMessage().startsWith("another rnic driver (pid " + ProcessHandle.current().pid() +
            ") serves " + fixture.directory), refused.getMessage());
    }

    @Test
    void shouldFailClientsClearlyOnceTheDriverStopsAndServeNewOnesAfterARestart() throws Exception
    {
        final DriverContext client = DriverContext.open(fixture.directory);
        client.allocPd();
        fixture.driver.close();
        final CncException gone = assertThrows(CncException.class, client::allocPd);
        assertTrue(gone.getMessage().contains("has stopped") || gone.getMessage().contains("did not answer") ||
            gone.getMessage().contains("stopped beating"), gone.getMessage());
        client.close();

        final CncException none = assertThrows(CncException.class, () -> DriverContext.open(fixture.directory));
        assertTrue(none.getMessage().startsWith("no rnic driver at " + fixture.directory), none.getMessage());

        fixture.restart(2_000_000_000L);
        try (DriverContext again = DriverContext.open(fixture.directory))
        {
            EndpointPairScenario.rcOperations(again, fixture.peer, DriverFixture.IP_DRIVER, DriverFixture.IP_PEER);
        }
    }
}
