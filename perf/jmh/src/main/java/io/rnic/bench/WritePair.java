package io.rnic.bench;

import io.rnic.device.ConnectParameters;
import io.rnic.device.QueuePair;
import io.rnic.device.RnicDevice;
import io.rnic.sim.LinkConditions;
import io.rnic.sim.TwoNodeFabric;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.MemoryRegion;
import io.rnic.verbs.PathMtu;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.QpInitAttributes;
import io.rnic.verbs.SendFlags;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.WrOpcode;

import java.lang.foreign.Arena;

/**
 * Two engines on a simulated wire (no delay, jumbo frames so that the link carries IB MTU 4096) with one connected
 * RC QP pair, and the WRITE requests a bandwidth test posts on it: the benchmarks' common set-up. {@link #fabric}
 * steps both engines on the calling thread.
 */
final class WritePair implements AutoCloseable
{
    final TwoNodeFabric fabric;
    final QueuePair requester;
    final CompletionQueue sendCq;
    final SendWorkRequest unsignaled = new SendWorkRequest();
    final SendWorkRequest signaled = new SendWorkRequest();
    private final Arena arena = Arena.ofShared();

    WritePair(final int messageBytes)
    {
        fabric = new TwoNodeFabric(new LinkConditions().delayNs(0), 1);
        fabric.a().engine().port().ethernetMtu(9000);
        fabric.b().engine().port().ethernetMtu(9000);
        final RnicDevice a = fabric.a();
        final RnicDevice b = fabric.b();
        final ProtectionDomain pdA = a.allocPd();
        final ProtectionDomain pdB = b.allocPd();
        sendCq = a.createCq(1024);
        final CompletionQueue cqB = b.createCq(1024);
        requester = a.createQp(new QpInitAttributes().pd(pdA).cqs(sendCq, a.createCq(16)).capacity(1024, 16));
        final QueuePair responder = b.createQp(new QpInitAttributes().pd(pdB).cqs(cqB, cqB).capacity(16, 16));
        final MemoryRegion source = a.registerMemoryRegion(pdA, arena.allocate(1 << 16, 4096), AccessFlags.LOCAL_WRITE);
        final MemoryRegion target = b.registerMemoryRegion(pdB, arena.allocate(1 << 16, 4096), AccessFlags.ALL);
        connect(requester, responder.qpn(), TwoNodeFabric.IP_B, TwoNodeFabric.MAC_B);
        connect(responder, requester.qpn(), TwoNodeFabric.IP_A, TwoNodeFabric.MAC_A);
        for (final SendWorkRequest wr : new SendWorkRequest[]{ unsignaled, signaled })
        {
            wr.opcode = WrOpcode.RDMA_WRITE;
            wr.sgl.add(source.address(), messageBytes, source.lKey());
            wr.remoteAddress = target.address();
            wr.rKey = target.rKey();
        }
        unsignaled.sendFlags = 0;
        signaled.sendFlags = SendFlags.SIGNALED;
    }

    private static void connect(final QueuePair qp, final int remoteQpn, final int remoteIp, final long remoteMac)
    {
        final ConnectParameters parameters = new ConnectParameters().remote(remoteQpn, 0).localPsn(0)
            .pathMtu(PathMtu.MTU_4096).accessFlags(AccessFlags.REMOTE_WRITE);
        parameters.addressVector.destinationIpv4(remoteIp).destinationMac(remoteMac);
        parameters.applyTo(qp);
    }

    @Override
    public void close()
    {
        arena.close();
    }
}
