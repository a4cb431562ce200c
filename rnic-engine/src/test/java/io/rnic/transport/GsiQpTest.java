package io.rnic.transport;

import io.rnic.device.ConnectParameters;
import io.rnic.device.EngineQueuePair;
import io.rnic.device.QueuePair;
import io.rnic.device.RnicDevice;
import io.rnic.sim.LinkConditions;
import io.rnic.sim.TwoNodeFabric;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.MemoryRegion;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.QpInitAttributes;
import io.rnic.verbs.QpType;
import io.rnic.verbs.RecvWorkRequest;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.VerbsException;
import io.rnic.verbs.WcStatus;
import io.rnic.verbs.WorkCompletion;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** QP1, the GSI: a UD QP numbered 1 that receives the MADs sent to destination QP 1 with the GSI's Q_Key. */
class GsiQpTest extends ArenaScopedTest
{
    private static final int GSI_QKEY = 0x8001_0000;

    @Test
    void shouldDeliverDatagramsToQpOneOnlyOnceTheGsiQpExists()
    {
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), 1);
        final Gsi a = new Gsi(fabric.a());
        assertEquals(1, a.qp.qpn());
        assertThrows(VerbsException.class, () -> new Gsi(fabric.a()), "one GSI QP per device");

        // nobody at QP1 on B yet: the datagram is counted and dropped
        a.send(256, (byte)0x11);
        fabric.runUntil(() -> fabric.aToB().isEmpty() && fabric.aToB().framesIn() > 0, SECOND_NS);
        fabric.step();
        assertEquals(1, fabric.b().engine().counters().get(TransportCounter.DROPPED_UNKNOWN_QP));

        final Gsi b = new Gsi(fabric.b());
        b.postReceive();
        a.send(256, (byte)0x22);
        final WorkCompletion wc = new WorkCompletion();
        final WorkCompletion[] out = { wc };
        fabric.runUntil(() -> b.recvCq.poll(out, 1) == 1, SECOND_NS);
        assertEquals(WcStatus.SUCCESS, wc.status());
        assertEquals(40 + 256, wc.byteLength());
        assertEquals(1, wc.sourceQp(), "sent from QP1");
        assertEquals(1, wc.qpNumber());
        for (int i = 0; i < 256; i++)
        {
            assertEquals((byte)0x22, b.memory.get(ValueLayout.JAVA_BYTE, 40 + i));
        }
        // the source address is in the GRH area (an IPv4 header in its second half)
        assertEquals(TwoNodeFabric.IP_A, b.memory.get(ValueLayout.JAVA_INT_UNALIGNED.withOrder(
            java.nio.ByteOrder.BIG_ENDIAN), 20 + 12));

        // a datagram to QP1 with another Q_Key is dropped
        b.postReceive();
        a.qkey = 0x1234;
        a.send(256, (byte)0x33);
        fabric.runUntil(() -> fabric.b().engine().counters().get(TransportCounter.DROPPED_QKEY) > 0, SECOND_NS);
        assertEquals(1, fabric.b().engine().counters().get(TransportCounter.DROPPED_QKEY));
        assertEquals(0, b.recvCq.poll(out, 1));
    }

    private final class Gsi
    {
        final CompletionQueue sendCq;
        final CompletionQueue recvCq;
        final EngineQueuePair qp;
        final MemorySegment memory = arena.allocate(4096, 4096);
        final MemoryRegion mr;
        int qkey = GSI_QKEY;

        Gsi(final RnicDevice device)
        {
            final ProtectionDomain pd = device.allocPd();
            sendCq = device.createCq(16);
            recvCq = device.createCq(16);
            qp = device.createGsiQp(new QpInitAttributes().type(QpType.UD).pd(pd).cqs(sendCq, recvCq)
                .capacity(8, 8));
            mr = device.registerMemoryRegion(pd, memory, AccessFlags.ALL);
            final ConnectParameters parameters = new ConnectParameters();
            parameters.qkey = GSI_QKEY;
            parameters.applyTo(qp);
        }

        void postReceive()
        {
            final RecvWorkRequest recv = new RecvWorkRequest();
            recv.sgl.add(mr.address(), 40 + 256, mr.lKey());
            assertEquals(QueuePair.POST_OK, qp.postRecv(recv));
        }

        void send(final int length, final byte fill)
        {
            memory.asSlice(2048, length).fill(fill);
            final SendWorkRequest send = new SendWorkRequest();
            send.sgl.add(mr.address() + 2048, length, mr.lKey());
            send.udRemoteQpn = 1;
            send.udRemoteQkey = qkey;
            send.udAddress.destinationIpv4(TwoNodeFabric.IP_B).sourceGidIndex(0).destinationMac(TwoNodeFabric.MAC_B);
            assertEquals(QueuePair.POST_OK, qp.postSend(send));
        }
    }
}
