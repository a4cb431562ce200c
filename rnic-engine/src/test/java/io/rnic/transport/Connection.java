package io.rnic.transport;

import io.rnic.device.ConnectParameters;
import io.rnic.device.EngineQueuePair;
import io.rnic.device.RnicDevice;
import io.rnic.sim.TwoNodeFabric;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.MemoryRegion;
import io.rnic.verbs.PathMtu;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.QpInitAttributes;
import io.rnic.verbs.QpType;
import io.rnic.verbs.SendFlags;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.SharedReceiveQueue;
import io.rnic.verbs.WorkCompletion;
import io.rnic.verbs.WrOpcode;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** One side of a connected pair of QPs in the simulated fabric, with a registered buffer and its CQs. */
final class Connection
{
    /** An Ethernet MTU that carries IB MTU 4096. */
    static final int JUMBO_ETHERNET_MTU = 9000;

    final RnicDevice device;
    final ProtectionDomain pd;
    final CompletionQueue sendCq;
    final CompletionQueue recvCq;
    final EngineQueuePair qp;
    final MemorySegment memory;
    final MemoryRegion mr;
    final WorkCompletion[] completions = new WorkCompletion[64];

    Connection(final RnicDevice device, final Arena arena, final QpType type, final long bytes, final int access)
    {
        this(device, arena, type, bytes, access, device.allocPd(), null);
    }

    /** A side whose QP and region are in {@code pd}, another side's protection domain (memory windows' tests). */
    Connection(
        final RnicDevice device, final ProtectionDomain pd, final Arena arena, final QpType type, final long bytes,
        final int access)
    {
        this(device, arena, type, bytes, access, pd, null);
    }

    /** A side whose QP is in {@code pd} and takes its receives from {@code srq} (of the same PD) unless null. */
    Connection(final RnicDevice device, final Arena arena, final QpType type, final long bytes, final int access,
        final ProtectionDomain pd, final SharedReceiveQueue srq)
    {
        this.device = device;
        this.pd = pd;
        sendCq = device.createCq(4096);
        recvCq = device.createCq(4096);
        qp = device.createQp(new QpInitAttributes().type(type).pd(pd).cqs(sendCq, recvCq).capacity(1024, 1024)
            .srq(srq));
        memory = arena.allocate(bytes, 4096);
        mr = device.registerMemoryRegion(pd, memory, access);
        for (int i = 0; i < completions.length; i++)
        {
            completions[i] = new WorkCompletion();
        }
    }

    /** The next completion of this side's receive CQ ({@code recv}) or send CQ, within a simulated second. */
    WorkCompletion awaitCompletion(final TwoNodeFabric fabric, final boolean recv)
    {
        final WorkCompletion[] slot = new WorkCompletion[1];
        assertTrue(fabric.runUntil(() ->
        {
            final int n = (recv ? recvCq : sendCq).poll(completions, 1);
            if (n == 1)
            {
                slot[0] = completions[0];
                return true;
            }
            return false;
        }, 1_000_000_000L), "no completion within a simulated second");
        return slot[0];
    }

    static Connection[] rcPair(final TwoNodeFabric fabric, final Arena arena, final long bytes, final PathMtu mtu)
    {
        return pair(fabric, arena, QpType.RC, bytes, mtu, AccessFlags.ALL);
    }

    static Connection[] pair(
        final TwoNodeFabric fabric, final Arena arena, final QpType type, final long bytes, final PathMtu mtu,
        final int access)
    {
        return pair(fabric, arena, type, bytes, mtu, access, 16, 16);
    }

    /** Both QPs with max_rd_atomic {@code maxReadAtomic} and max_dest_rd_atomic {@code maxDestReadAtomic}. */
    static Connection[] pair(
        final TwoNodeFabric fabric, final Arena arena, final QpType type, final long bytes, final PathMtu mtu,
        final int access, final int maxReadAtomic, final int maxDestReadAtomic)
    {
        final Connection a = new Connection(fabric.a(), arena, type, bytes, AccessFlags.ALL);
        final Connection b = new Connection(fabric.b(), arena, type, bytes, AccessFlags.ALL);
        a.connect(b, TwoNodeFabric.IP_B, TwoNodeFabric.MAC_B, mtu, 0x10_0000, access, maxReadAtomic, maxDestReadAtomic);
        b.connect(a, TwoNodeFabric.IP_A, TwoNodeFabric.MAC_A, mtu, 0x20_0000, access, maxReadAtomic, maxDestReadAtomic);
        return new Connection[]{ a, b };
    }

    /**
     * A connected pair whose address vectors, both ways, carry GRH traffic class {@code trafficClass} and service
     * level {@code serviceLevel}.
     */
    static Connection[] markedPair(
        final TwoNodeFabric fabric, final Arena arena, final QpType type, final long bytes, final PathMtu mtu,
        final int trafficClass, final int serviceLevel)
    {
        final Connection a = new Connection(fabric.a(), arena, type, bytes, AccessFlags.ALL);
        final Connection b = new Connection(fabric.b(), arena, type, bytes, AccessFlags.ALL);
        a.connect(b, TwoNodeFabric.IP_B, TwoNodeFabric.MAC_B, mtu, 0x10_0000, AccessFlags.ALL, 16, 16, trafficClass,
            serviceLevel);
        b.connect(a, TwoNodeFabric.IP_A, TwoNodeFabric.MAC_A, mtu, 0x20_0000, AccessFlags.ALL, 16, 16, trafficClass,
            serviceLevel);
        return new Connection[]{ a, b };
    }

    void connect(final Connection peer, final int peerIp, final long peerMac, final PathMtu mtu, final int sqPsn,
        final int access)
    {
        connect(peer, peerIp, peerMac, mtu, sqPsn, access, 16, 16);
    }

    void connect(final Connection peer, final int peerIp, final long peerMac, final PathMtu mtu, final int sqPsn,
        final int access, final int maxReadAtomic, final int maxDestReadAtomic)
    {
        connect(peer, peerIp, peerMac, mtu, sqPsn, access, maxReadAtomic, maxDestReadAtomic, 0, 0);
    }

    void connect(final Connection peer, final int peerIp, final long peerMac, final PathMtu mtu, final int sqPsn,
        final int access, final int maxReadAtomic, final int maxDestReadAtomic, final int trafficClass,
        final int serviceLevel)
    {
        if (PathMtu.forEthernetMtu(device.engine().port().ethernetMtu()).bytes() < mtu.bytes())
        {
            // the simulated link carries frames of any length: a test that asks for a path MTU its port's 1500 bytes
            // do not carry gets a jumbo-frame port, as it would on a real link (modify_qp refuses it otherwise)
            device.engine().port().ethernetMtu(JUMBO_ETHERNET_MTU);
        }
        final ConnectParameters parameters = new ConnectParameters()
            .remote(peer.qp.qpn(), sqPsn == 0x10_0000 ? 0x20_0000 : 0x10_0000)
            .localPsn(sqPsn)
            .pathMtu(mtu)
            .timers(8, 7, 7, 1) // timeout 8: ~1 ms of virtual time
            .readAtomic(maxReadAtomic, maxDestReadAtomic)
            .accessFlags(access);
        parameters.addressVector.destinationIpv4(peerIp).destinationMac(peerMac).sourceGidIndex(0).hopLimit(64)
            .trafficClass(trafficClass).serviceLevel(serviceLevel);
        parameters.applyTo(qp);
    }

    /** A signalled RDMA WRITE of the first {@code length} bytes of this side's region to the start of {@code to}'s. */
    SendWorkRequest signalledWriteTo(final Connection to, final int length)
    {
        final SendWorkRequest wr = new SendWorkRequest();
        wr.opcode = WrOpcode.RDMA_WRITE;
        wr.sendFlags = SendFlags.SIGNALED;
        wr.sgl.add(mr.address(), length, mr.lKey());
        wr.remoteAddress = to.mr.address();
        wr.rKey = to.mr.rKey();
        return wr;
    }
}
