package io.rnic.transport;

import io.rnic.device.QueuePair;
import io.rnic.sim.LinkConditions;
import io.rnic.sim.TwoNodeFabric;
import io.rnic.verbs.PathMtu;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.WcStatus;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The responder's positive ACKs: one per QP per receive burst, for the last packet that asked. */
class AcknowledgeCoalescerTest extends ArenaScopedTest
{
    private static final int WRITES = 8;

    @Test
    void shouldAcknowledgeABurstOfRequestsWithOneAckForTheLast()
    {
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), 1);
        final Connection[] pair = Connection.rcPair(fabric, arena, 1 << 16, PathMtu.MTU_1024);
        final SendWorkRequest write = pair[0].signalledWriteTo(pair[1], 64);
        for (int i = 0; i < WRITES; i++)
        {
            write.wrId = i;
            assertEquals(QueuePair.POST_OK, pair[0].qp.postSend(write));
        }
        final int[] completed = new int[1];
        assertTrue(fabric.runUntil(() ->
        {
            final int n = pair[0].sendCq.poll(pair[0].completions, pair[0].completions.length);
            for (int i = 0; i < n; i++)
            {
                assertEquals(WcStatus.SUCCESS, pair[0].completions[i].status());
            }
            completed[0] += n;
            return completed[0] == WRITES;
        }, SECOND_NS));
        assertEquals(WRITES, fabric.aToB().framesIn(), "one packet per WRITE, none resent");
        assertEquals(1, fabric.b().engine().counters().get(TransportCounter.ACKS_SENT));
        assertEquals(1, fabric.bToA().framesIn(), "one ACK completed every WRITE before it");
    }
}
