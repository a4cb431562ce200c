package io.rnic.datapath.endpoint;

import io.rnic.datapath.agent.EngineAgent;
import io.rnic.datapath.port.InMemoryPort;
import io.rnic.datapath.port.PacketPort;
import io.rnic.device.ConnectParameters;
import io.rnic.device.EngineQueuePair;
import io.rnic.transport.LocalPort;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.MemoryRegion;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.QpInitAttributes;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.WcStatus;
import io.rnic.verbs.WorkCompletion;
import io.rnic.verbs.WrOpcode;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two endpoints of two engine threads each. Port queue i of one side is wired to queue i of the other, so a frame
 * arrives on the queue of the sender's shard, not necessarily the receiver's: it must be handed over to the owner.
 */
class ShardedEndpointTest
{
    private static final long MAC_A = 0x02_00_00_00_01_0AL;
    private static final long MAC_B = 0x02_00_00_00_01_0BL;
    private static final int IP_A = 0x0A0B_0001;
    private static final int IP_B = 0x0A0B_0002;
    private static final int QPS = 6;
    private static final int BYTES = 40_000;

    @Test
    void shouldShardQpsAndHandOverFramesForAnotherEngine() throws Exception
    {
        final InMemoryPort[] queue0 = InMemoryPort.pair(MAC_A, MAC_B, 4096, 1 << 22);
        final InMemoryPort[] queue1 = InMemoryPort.pair(MAC_A, MAC_B, 4096, 1 << 22);
        final EndpointOptions options = EndpointOptions.defaults().withIdleStrategy("yield").withHoldRocePort(false);
        try (Arena arena = Arena.ofShared();
            Endpoint a = Endpoint.start(new PacketPort[]{ queue0[0], queue1[0] }, port(MAC_A, IP_A), options);
            Endpoint b = Endpoint.start(new PacketPort[]{ queue0[1], queue1[1] }, port(MAC_B, IP_B), options))
        {
            final ProtectionDomain pdA = a.device().allocPd();
            final ProtectionDomain pdB = b.device().allocPd();
            final MemorySegment memA = arena.allocate((long)QPS * BYTES, 4096);
            final MemorySegment memB = arena.allocate((long)QPS * BYTES, 4096);
            final MemoryRegion mrA = a.device().registerMemoryRegion(pdA, memA, AccessFlags.ALL);
            final MemoryRegion mrB = b.device().registerMemoryRegion(pdB, memB, AccessFlags.ALL);
            final CompletionQueue cqA = a.device().createCq(256); // shared by QPs of both shards
            final CompletionQueue cqB = b.device().createCq(256);
            // B gets one QP more first, so that A's QP n (shard n % 2) talks to B's QP n + 1 (the other shard)
            b.device().createQp(new QpInitAttributes().pd(pdB).cqs(cqB, cqB));
            final EngineQueuePair[] qpsA = new EngineQueuePair[QPS];
            final EngineQueuePair[] qpsB = new EngineQueuePair[QPS];
            final Set<Integer> shards = new HashSet<>();
            for (int i = 0; i < QPS; i++)
            {
                qpsA[i] = a.device().createQp(new QpInitAttributes().pd(pdA).cqs(cqA, cqA));
                qpsB[i] = b.device().createQp(new QpInitAttributes().pd(pdB).cqs(cqB, cqB));
                shards.add(qpsA[i].qpn() % 2);
            }
            assertEquals(Set.of(0, 1), shards, "QPs spread over both engines");
            for (int i = 0; i < QPS; i++)
            {
                connect(qpsA[i], qpsB[i], IP_B, MAC_B);
                connect(qpsB[i], qpsA[i], IP_A, MAC_A);
            }
            for (long k = 0; k < memA.byteSize(); k++)
            {
                memA.set(ValueLayout.JAVA_BYTE, k, (byte)(k * 13 + 5));
            }
            final SendWorkRequest wr = new SendWorkRequest();
            for (int i = 0; i < QPS; i++)
            {
                wr.opcode = WrOpcode.RDMA_WRITE;
                wr.wrId = i;
                wr.sgl.clear().add(mrA.address() + (long)i * BYTES, BYTES, mrA.lKey());
                wr.remoteAddress = mrB.address() + (long)i * BYTES;
                wr.rKey = mrB.rKey();
                assertEquals(0, qpsA[i].postSend(wr));
            }
            final WorkCompletion[] wc = { new WorkCompletion() };
            final long deadline = System.nanoTime() + 10_000_000_000L;
            for (int done = 0; done < QPS; )
            {
                if (cqA.poll(wc, 1) == 1)
                {
                    assertEquals(WcStatus.SUCCESS, wc[0].status(), wc[0].toString());
                    done++;
                }
                assertTrue(System.nanoTime() < deadline, "writes did not complete:\n" + a.countersReport());
                Thread.onSpinWait();
            }
            assertEquals(-1, memB.mismatch(memA));
            long handedOver = 0;
            for (final EngineAgent agent : b.agents())
            {
                handedOver += agent.framesHandedOver();
            }
            assertTrue(handedOver > 0, "frames reached the wrong engine and were handed over:\n" + b.countersReport());
            assertEquals(0, a.engineErrors() + b.engineErrors());
        }
    }

    private static LocalPort port(final long mac, final int ip)
    {
        final LocalPort port = new LocalPort(mac).ethernetMtu(4096);
        port.addIpv4(ip);
        return port;
    }

    private static void connect(final EngineQueuePair local, final EngineQueuePair remote, final int remoteIp, final long mac)
    {
        final ConnectParameters parameters = new ConnectParameters().remote(remote.qpn(), 7).localPsn(7);
        parameters.addressVector.destinationIpv4(remoteIp).destinationMac(mac);
        parameters.applyTo(local);
    }
}
