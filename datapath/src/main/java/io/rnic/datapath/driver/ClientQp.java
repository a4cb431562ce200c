package io.rnic.datapath.driver;

import io.rnic.cnc.QpQueuesLayout;
import io.rnic.device.EngineQueuePair;
import io.rnic.shm.SharedMemory;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.QpInitAttributes;
import io.rnic.verbs.QpType;
import io.rnic.verbs.WorkRequestRing;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.AtomicCounter;

/**
 * The driver's side of a client's QP: the engine's QP, and the shared file the client posts into (its send and
 * receive rings, which the engine's QP takes its work from in place, and the state header the driver keeps current).
 */
final class ClientQp
{
    final int handle;
    final EngineQueuePair qp;
    final ProtectionDomain pd;
    final ClientCq sendCq;
    final ClientCq recvCq;
    final SharedMemory memory;
    final UnsafeBuffer header;
    final WorkRequestRing sendRing;
    /** Null for a QP of an SRQ: the engine takes its receives from the SRQ's ring. */
    final WorkRequestRing recvRing;
    int mirroredState = -1;
    /** Its counters in the CnC (conductor thread), or null when there was no room. */
    QpCounters counters;
    /** The driver's memory its work queues take, charged to its client ({@link ClientQuotas#queueBytes}). */
    long queueBytes;

    ClientQp(
        final int handle, final EngineQueuePair qp, final ProtectionDomain pd, final ClientCq sendCq, final ClientCq recvCq,
        final SharedMemory memory, final WorkRequestRing sendRing, final WorkRequestRing recvRing)
    {
        this.handle = handle;
        this.qp = qp;
        this.pd = pd;
        this.sendCq = sendCq;
        this.recvCq = recvCq;
        this.memory = memory;
        this.header = new UnsafeBuffer(memory.segment().address(), QpQueuesLayout.HEADER_LENGTH);
        this.sendRing = sendRing;
        this.recvRing = qp.context().srq() == null ? recvRing : null;
        header.putInt(QpQueuesLayout.QPN_OFFSET, qp.qpn());
        mirrorState();
    }

    /** Formats the send ring in a client's QP file (before the QP is made: the engine's QP takes from it). */
    static WorkRequestRing formatSendRing(
        final SharedMemory memory, final QpInitAttributes init, final AtomicCounter malformed)
    {
        return WorkRequestRing.format(WorkRequestRing.SEND, init.maxSendWr, init.maxSendSge, init.type == QpType.UD,
            new UnsafeBuffer(memory.segment().address() + QpQueuesLayout.sendQueueOffset(),
            QpQueuesLayout.sendQueueLength(init.maxSendWr, init.maxSendSge)), malformed);
    }

    /** Formats the receive ring in a client's QP file (a QP of an SRQ has one too, which nothing takes from). */
    static WorkRequestRing formatRecvRing(
        final SharedMemory memory, final QpInitAttributes init, final AtomicCounter malformed)
    {
        return WorkRequestRing.format(WorkRequestRing.RECV, init.maxRecvWr, init.maxRecvSge, false,
            new UnsafeBuffer(memory.segment().address() + QpQueuesLayout.recvQueueOffset(init.maxSendWr,
            init.maxSendSge), QpQueuesLayout.recvQueueLength(init.maxRecvWr, init.maxRecvSge)), malformed);
    }

    /** Publishes the QP's state to the client when it changed. Engine thread. */
    boolean mirrorState()
    {
        final int state = qp.state().ordinal();
        if (state != mirroredState)
        {
            mirroredState = state;
            header.putIntOrdered(QpQueuesLayout.STATE_OFFSET, state);
            return true;
        }
        return false;
    }
}
