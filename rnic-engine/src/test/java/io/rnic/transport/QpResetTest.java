package io.rnic.transport;

import io.rnic.device.ConnectParameters;
import io.rnic.device.QueuePair;
import io.rnic.sim.LinkConditions;
import io.rnic.sim.TwoNodeFabric;
import io.rnic.verbs.PathMtu;
import io.rnic.verbs.QpAttrMask;
import io.rnic.verbs.QpAttributes;
import io.rnic.verbs.QpState;
import io.rnic.verbs.RecvWorkRequest;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.WcStatus;
import io.rnic.verbs.WrOpcode;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A QP taken to RESET with work requests still posted gets back its whole send and receive queues. */
class QpResetTest extends ArenaScopedTest
{
    @Test
    void shouldFreeEveryPostedWorkRequestWhenTheQpIsReset()
    {
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), 1);
        final Connection[] pair = Connection.rcPair(fabric, arena, 8192, PathMtu.MTU_1024);
        final Connection requester = pair[0];
        final Connection responder = pair[1];
        final int capacity = responder.qp.context().rq.capacity();
        final RecvWorkRequest recv = new RecvWorkRequest();
        recv.sgl.add(responder.mr.address(), 64, responder.mr.lKey());
        final SendWorkRequest write = new SendWorkRequest();
        write.opcode = WrOpcode.RDMA_WRITE;
        write.sgl.add(requester.mr.address(), 8, requester.mr.lKey());
        write.remoteAddress = responder.mr.address();
        write.rKey = responder.mr.rKey();

        for (int round = 0; round < 3; round++)
        {
            // more than half of each queue posted and never consumed: the engine does not run before the reset
            for (int i = 0; i < capacity * 3 / 4; i++)
            {
                assertEquals(QueuePair.POST_OK, responder.qp.postRecv(recv), "round " + round + ", receive " + i);
                assertEquals(QueuePair.POST_OK, requester.qp.postSend(write), "round " + round + ", send " + i);
            }
            final QpAttributes attr = new QpAttributes();
            attr.state = QpState.RESET;
            requester.qp.modify(attr, QpAttrMask.STATE);
            responder.qp.modify(attr, QpAttrMask.STATE);
            reconnect(requester, responder, TwoNodeFabric.IP_B, TwoNodeFabric.MAC_B);
            reconnect(responder, requester, TwoNodeFabric.IP_A, TwoNodeFabric.MAC_A);
        }

        // and the queues still work: a SEND lands in a receive posted after the resets
        assertEquals(QueuePair.POST_OK, responder.qp.postRecv(recv));
        final SendWorkRequest send = new SendWorkRequest();
        send.opcode = WrOpcode.SEND;
        send.sgl.add(requester.mr.address(), 64, requester.mr.lKey());
        assertEquals(QueuePair.POST_OK, requester.qp.postSend(send));
        assertTrue(fabric.runUntil(() -> responder.recvCq.poll(responder.completions, 1) == 1, SECOND_NS));
        assertEquals(WcStatus.SUCCESS, responder.completions[0].status());
    }

    private static void reconnect(final Connection c, final Connection peer, final int peerIp, final long peerMac)
    {
        final ConnectParameters parameters = new ConnectParameters().remote(peer.qp.qpn(), 0x700).localPsn(0x700);
        parameters.addressVector.destinationIpv4(peerIp).destinationMac(peerMac).sourceGidIndex(0);
        parameters.applyTo(c.qp);
    }
}
