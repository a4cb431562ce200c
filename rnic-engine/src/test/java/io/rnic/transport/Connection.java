package io.rnic.transport;

import io.rnic.sim.TwoNodeFabric;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.MemoryRegion;
import io.rnic.verbs.PathMtu;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.QpAttrMask;
import io.rnic.verbs.QpAttributes;
import io.rnic.verbs.QpInitAttributes;
import io.rnic.verbs.QpState;
import io.rnic.verbs.QpType;
import io.rnic.verbs.QueuePair;
import io.rnic.verbs.RnicDevice;
import io.rnic.verbs.WorkCompletion;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/** One side of a connected pair of QPs in the simulated fabric, with a registered buffer and its CQs. */
final class Connection
{
    final RnicDevice device;
    final ProtectionDomain pd;
    final CompletionQueue sendCq;
    final CompletionQueue recvCq;
    final QueuePair qp;
    final MemorySegment memory;
    final MemoryRegion mr;
    final WorkCompletion[] completions = new WorkCompletion[64];

    Connection(final RnicDevice device, final Arena arena, final QpType type, final long bytes, final int access)
    {
        this.device = device;
        pd = device.allocPd();
        sendCq = device.createCq(4096);
        recvCq = device.createCq(4096);
        qp = device.createQp(new QpInitAttributes().type(type).pd(pd).cqs(sendCq, recvCq).capacity(1024, 1024));
        memory = arena.allocate(bytes, 4096);
        mr = device.registerMemoryRegion(pd, memory, access);
        for (int i = 0; i < completions.length; i++)
        {
            completions[i] = new WorkCompletion();
        }
    }

    static Connection[] rcPair(final TwoNodeFabric fabric, final Arena arena, final long bytes, final PathMtu mtu)
    {
        return pair(fabric, arena, QpType.RC, bytes, mtu, AccessFlags.ALL);
    }

    static Connection[] pair(
        final TwoNodeFabric fabric, final Arena arena, final QpType type, final long bytes, final PathMtu mtu,
        final int access)
    {
        final Connection a = new Connection(fabric.a(), arena, type, bytes, AccessFlags.ALL);
        final Connection b = new Connection(fabric.b(), arena, type, bytes, AccessFlags.ALL);
        a.connect(b, TwoNodeFabric.IP_B, TwoNodeFabric.MAC_B, mtu, 0x10_0000, access);
        b.connect(a, TwoNodeFabric.IP_A, TwoNodeFabric.MAC_A, mtu, 0x20_0000, access);
        return new Connection[]{ a, b };
    }

    void connect(final Connection peer, final int peerIp, final long peerMac, final PathMtu mtu, final int sqPsn,
        final int access)
    {
        final QpAttributes attr = new QpAttributes();
        attr.state = QpState.INIT;
        attr.pkeyIndex = 0;
        attr.portNumber = 1;
        attr.accessFlags = access;
        attr.qkey = 0x11111111;
        final QpType type = qp.type();
        qp.modify(attr, QpAttrMask.STATE | QpAttrMask.PKEY_INDEX | QpAttrMask.PORT |
            (type == QpType.UD ? QpAttrMask.QKEY : QpAttrMask.ACCESS_FLAGS));

        attr.state = QpState.RTR;
        attr.pathMtu = mtu;
        attr.destQpNumber = peer.qp.qpn();
        attr.rqPsn = peer == this ? 0 : (sqPsn == 0x10_0000 ? 0x20_0000 : 0x10_0000);
        attr.maxDestReadAtomic = 16;
        attr.minRnrTimer = 1;
        attr.addressVector.destinationIpv4(peerIp).destinationMac(peerMac).sourceGidIndex(0).hopLimit(64);
        qp.modify(attr, type == QpType.UD ? QpAttrMask.STATE : QpAttrMask.STATE | QpAttrMask.AV | QpAttrMask.PATH_MTU |
            QpAttrMask.DEST_QPN | QpAttrMask.RQ_PSN |
            (type == QpType.RC ? QpAttrMask.MAX_DEST_RD_ATOMIC | QpAttrMask.MIN_RNR_TIMER : 0));

        attr.state = QpState.RTS;
        attr.sqPsn = sqPsn;
        attr.timeout = 8; // ~1 ms of virtual time
        attr.retryCount = 7;
        attr.rnrRetry = 7;
        attr.maxReadAtomic = 16;
        qp.modify(attr, QpAttrMask.STATE | QpAttrMask.SQ_PSN | (type == QpType.RC ?
            QpAttrMask.TIMEOUT | QpAttrMask.RETRY_CNT | QpAttrMask.RNR_RETRY | QpAttrMask.MAX_QP_RD_ATOMIC : 0));
    }
}
