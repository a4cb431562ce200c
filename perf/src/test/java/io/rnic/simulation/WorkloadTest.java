package io.rnic.simulation;

import io.rnic.sim.LinkConditions;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Mixed RC workloads between two engines: every operation completes exactly once, in order, with byte-exact memory,
 * on a clean link and on one that loses, reorders, duplicates and corrupts frames.
 */
class WorkloadTest
{
    @Test
    void shouldCompleteAMixedWorkloadOnACleanLink()
    {
        final Workload.Config config = new Workload.Config();
        config.operations = 3_000;
        config.qps = 3;
        config.maxSize = 256 * 1024;
        final SimulationReport report = Workload.run(config);
        System.out.println(report.summary());
        assertTrue(report.passed(), report.summary());
        assertEquals(3_000, report.operations());
        assertEquals(0, Workload.retransmissions(report));
    }

    @Test
    void shouldRecoverEveryOperationFromLossReorderingDuplicationAndCorruption()
    {
        final Workload.Config config = new Workload.Config();
        config.operations = Long.getLong("rnic.workload.operations", 100_000L);
        config.qps = 4;
        config.maxSize = 1 << 20;
        config.seed = 42;
        config.conditions = new LinkConditions().loss(0.05).reorder(0.05).duplicate(0.02).corrupt(0.01);
        final SimulationReport report = Workload.run(config);
        System.out.println(report.summary());
        assertTrue(report.passed(), report.summary());
        assertEquals(config.operations, report.operations());
        assertTrue(Workload.retransmissions(report) > 0, "a lossy link must cause retransmissions");
    }

    @Test
    void shouldKeepAtomicWritesAndFlushesByteExactAndInOrderUnderLoss()
    {
        final Workload.Config config = new Workload.Config();
        config.operations = 20_000;
        config.qps = 2;
        config.maxSize = 64 * 1024;
        config.seed = 17;
        config.reads = false;
        config.sends = false;
        config.atomics = false;
        config.conditions = new LinkConditions().loss(0.05).reorder(0.05).duplicate(0.02).corrupt(0.01);
        final SimulationReport report = Workload.run(config);
        System.out.println(report.summary());
        assertTrue(report.passed(), report.summary());
        assertEquals(config.operations, report.operations());
        assertTrue(report.atomicWrites > 0 && report.flushes > 0, report.summary());
        assertEquals(config.operations, report.writes + report.atomicWrites + report.flushes);
        assertTrue(Workload.retransmissions(report) > 0, "a lossy link must cause retransmissions");
    }

    /**
     * SENDs received through one SRQ shared by the responder's 4 QPs, among WRITEs, READs, atomics, ATOMIC WRITEs
     * and FLUSHes on a link
     * that loses, reorders, duplicates and corrupts: each SEND lands whole in whichever SRQ buffer its QP took
     * (checked byte for byte against the SEND that QP completed next), and every operation completes once.
     */
    @Test
    void shouldReceiveSendsOfSeveralQpsThroughOneSharedReceiveQueueOnALossyLink()
    {
        final Workload.Config config = new Workload.Config();
        config.operations = 10_000;
        config.qps = 4;
        config.maxSize = 64 * 1024;
        config.seed = 17;
        config.srq = true;
        config.conditions = new LinkConditions().loss(0.03).reorder(0.03).duplicate(0.02).corrupt(0.01);
        final SimulationReport report = Workload.run(config);
        System.out.println(report.summary());
        assertTrue(report.passed(), report.summary());
        assertEquals(config.operations, report.operations());
        assertTrue(report.sends > 1_000, report.summary()); // one operation in six
        assertTrue(Workload.retransmissions(report) > 0, "a lossy link must cause retransmissions");
    }
}
