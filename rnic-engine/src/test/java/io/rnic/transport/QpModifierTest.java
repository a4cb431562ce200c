package io.rnic.transport;

import io.rnic.device.ConnectParameters;
import io.rnic.device.QueuePair;
import io.rnic.sim.LinkConditions;
import io.rnic.sim.TwoNodeFabric;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.PathMtu;
import io.rnic.verbs.QpAttrMask;
import io.rnic.verbs.QpAttributes;
import io.rnic.verbs.QpState;
import io.rnic.verbs.QpType;
import io.rnic.verbs.RecvWorkRequest;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.VerbsException;
import io.rnic.verbs.WcStatus;
import io.rnic.verbs.WrOpcode;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** modify_qp checks before it copies anything, and the engine visits a QP that a transition gave work. */
class QpModifierTest extends ArenaScopedTest
{
    private final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), 1);

    @Test
    void shouldChangeNoAttributeWhenTheTransitionIsRefused()
    {
        final Connection[] pair = Connection.rcPair(fabric, arena, 8192, PathMtu.MTU_1024);
        final QpContext qp = pair[0].qp.context();
        final int accessFlags = qp.accessFlags;
        final int minRnrTimer = qp.minRnrTimer;
        final int sendPsn = qp.reqPsn;
        final QpAttributes attr = new QpAttributes();
        attr.state = QpState.RTS;
        attr.accessFlags = AccessFlags.LOCAL_WRITE;
        attr.minRnrTimer = minRnrTimer + 1;
        attr.sqPsn = sendPsn + 100;

        // access flags and the RNR timer may change in RTS, the send PSN may not: the whole call is refused
        final VerbsException refused = assertThrows(VerbsException.class, () -> pair[0].qp.modify(attr,
            QpAttrMask.STATE | QpAttrMask.ACCESS_FLAGS | QpAttrMask.MIN_RNR_TIMER | QpAttrMask.SQ_PSN));

        assertTrue(refused.getMessage().contains("modify QP " + qp.qpn), refused.getMessage());
        assertEquals(QpState.RTS, qp.state);
        assertEquals(accessFlags, qp.accessFlags);
        assertEquals(minRnrTimer, qp.minRnrTimer);
        assertEquals(sendPsn, qp.reqPsn);
    }

    @Test
    void shouldAcknowledgeWhatWasReceivedBeforeEnteringErr()
    {
        final Connection[] pair = Connection.rcPair(fabric, arena, 8192, PathMtu.MTU_1024);
        final Connection requester = pair[0];
        final Connection responder = pair[1];
        final RecvWorkRequest recv = new RecvWorkRequest();
        recv.sgl.add(responder.mr.address(), 64, responder.mr.lKey());
        assertEquals(QueuePair.POST_OK, responder.qp.postRecv(recv));
        final SendWorkRequest send = requester.signalledWriteTo(responder, 64);
        send.opcode = WrOpcode.SEND;
        assertEquals(QueuePair.POST_OK, requester.qp.postSend(send));

        // the SEND has landed, its ACK waits for the end of the responder's receive burst: then the application,
        // having its message, moves the QP to ERR (as a DREQ does)
        assertTrue(fabric.runUntil(() -> responder.recvCq.poll(responder.completions, 1) == 1, SECOND_NS));
        final QpAttributes attr = new QpAttributes();
        attr.state = QpState.ERR;
        responder.qp.modify(attr, QpAttrMask.STATE);

        assertTrue(fabric.runUntil(() -> requester.sendCq.poll(requester.completions, 1) == 1, SECOND_NS));
        assertEquals(WcStatus.SUCCESS, requester.completions[0].status(), "the delivered SEND was never acknowledged");
        assertEquals(0, requester.device.engine().counters().get(TransportCounter.RETRANSMITTED_PACKETS));
    }

    @Test
    void shouldSendWhatWasPostedInSqdOnceTheQpIsBackInRts()
    {
        final Connection[] pair = Connection.rcPair(fabric, arena, 8192, PathMtu.MTU_1024);
        final Connection requester = pair[0];
        final Connection responder = pair[1];
        final RnicEngine engine = requester.device.engine();
        final QpAttributes attr = new QpAttributes();
        attr.state = QpState.SQD;
        requester.qp.modify(attr, QpAttrMask.STATE);

        assertEquals(QueuePair.POST_OK, requester.qp.postSend(requester.signalledWriteTo(responder, 8)));
        final long sentBefore = engine.counters().get(TransportCounter.PACKETS_SENT);
        for (int i = 0; i < 10; i++)
        {
            fabric.step();
        }
        assertEquals(sentBefore, engine.counters().get(TransportCounter.PACKETS_SENT), "nothing starts in SQD");
        assertEquals(0, engine.activeQpCount(), "a drained QP leaves the active list");

        attr.state = QpState.RTS;
        requester.qp.modify(attr, QpAttrMask.STATE);

        assertEquals(1, engine.activeQpCount(), "back in RTS with a WRITE waiting: no post is needed to visit it");
        assertTrue(fabric.runUntil(() -> requester.sendCq.poll(requester.completions, 1) == 1, SECOND_NS));
        assertEquals(WcStatus.SUCCESS, requester.completions[0].status());
    }

    @Test
    void shouldRefuseAPathMtuLargerThanThePortCarries()
    {
        final Connection a = new Connection(fabric.a(), arena, QpType.RC, 8192, AccessFlags.ALL);
        final ConnectParameters parameters = new ConnectParameters().remote(2, 0).pathMtu(PathMtu.MTU_2048);
        parameters.addressVector.destinationIpv4(TwoNodeFabric.IP_B).destinationMac(TwoNodeFabric.MAC_B);

        // the fabric's ports have an Ethernet MTU of 1500: IB MTU 1024 at most
        final VerbsException refused = assertThrows(VerbsException.class, () -> parameters.applyTo(a.qp));

        final String message = refused.getMessage();
        assertTrue(message.contains("path MTU 2048") && message.contains("Ethernet MTU 1500") &&
            message.contains("IB MTU 1024") && message.contains("raise the interface's MTU"), message);
        assertEquals(QpState.INIT, a.qp.state());
        assertEquals(1024, a.qp.context().mtuBytes, "nothing of the refused attributes was copied");
    }

    @Test
    void shouldRefuseAUcPathMtuLargerThanThePortCarriesAndAcceptTheLargestItDoes()
    {
        final Connection a = new Connection(fabric.a(), arena, QpType.UC, 8192, AccessFlags.ALL);
        final ConnectParameters parameters = new ConnectParameters().remote(2, 0).pathMtu(PathMtu.MTU_4096);
        parameters.addressVector.destinationIpv4(TwoNodeFabric.IP_B).destinationMac(TwoNodeFabric.MAC_B);
        assertThrows(VerbsException.class, () -> parameters.applyTo(a.qp));

        parameters.pathMtu(PathMtu.forEthernetMtu(fabric.a().engine().port().ethernetMtu()));
        parameters.applyTo(a.qp);

        assertEquals(QpState.RTS, a.qp.state());
        assertEquals(1024, a.qp.context().mtuBytes);
    }
}
