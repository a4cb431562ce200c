package io.rnic.device;

import io.rnic.sim.LinkConditions;
import io.rnic.sim.TwoNodeFabric;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.QpInitAttributes;
import io.rnic.verbs.RecvWorkRequest;
import io.rnic.verbs.ScatterGatherList;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.VerbsException;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** A QP's work queue slots hold the scatter/gather entries it was created for, and no post may bring more. */
class ScatterGatherCapacityTest
{
    private final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), 1);
    private final RnicDevice device = fabric.a();
    private final ProtectionDomain pd = device.allocPd();
    private final CompletionQueue cq = device.createCq(16);

    @Test
    void shouldRefusePostsWithMoreEntriesThanTheQpHolds()
    {
        final EngineQueuePair qp = device.createQp(new QpInitAttributes().pd(pd).cqs(cq, cq).capacity(4, 4).maxSge(2, 1));
        final ConnectParameters parameters = new ConnectParameters().remote(0x100, 0);
        parameters.addressVector.destinationIpv4(TwoNodeFabric.IP_B).destinationMac(TwoNodeFabric.MAC_B);
        parameters.applyTo(qp);

        final SendWorkRequest send = new SendWorkRequest();
        send.sgl.add(0x1000, 8, 1).add(0x2000, 8, 1).add(0x3000, 8, 1);
        assertEquals(QueuePair.POST_INVALID, qp.postSend(send));
        send.sgl.clear().add(0x1000, 8, 1).add(0x2000, 8, 1);
        assertEquals(QueuePair.POST_OK, qp.postSend(send));

        final RecvWorkRequest recv = new RecvWorkRequest();
        recv.sgl.add(0x1000, 8, 1).add(0x2000, 8, 1);
        assertEquals(QueuePair.POST_INVALID, qp.postRecv(recv));
        recv.sgl.clear().add(0x1000, 8, 1);
        assertEquals(QueuePair.POST_OK, qp.postRecv(recv));
    }

    @Test
    void shouldRefuseAQpOfNoneOrTooManyEntries()
    {
        assertThrows(VerbsException.class,
            () -> device.createQp(new QpInitAttributes().pd(pd).cqs(cq, cq).maxSge(0, 1)));
        assertThrows(VerbsException.class,
            () -> device.createQp(new QpInitAttributes().pd(pd).cqs(cq, cq).maxSge(1, ScatterGatherList.MAX_SGE + 1)));
        assertEquals(3, new ScatterGatherList(3).capacity());
        assertThrows(VerbsException.class, () -> new ScatterGatherList(2).add(1, 1, 1).add(2, 1, 1).add(3, 1, 1));
    }
}
