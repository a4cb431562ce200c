package io.rnic.datapath.driver;

import io.rnic.cnc.QpQueuesLayout;
import io.rnic.device.EngineQueuePair;
import io.rnic.shm.SharedMemory;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.RecvWorkRequest;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.WorkRequestRing;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The driver's side of a client's QP: the engine's QP, and the shared file the client posts into (its send and
 * receive rings, and the state header the driver keeps current). One request of each kind may wait here when the
 * engine's queue is full: the client's ring and the engine's queue together hold what the client has posted.
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
    final WorkRequestRing recvRing;
    final SendWorkRequest pendingSend;
    final RecvWorkRequest pendingRecv;
    boolean hasPendingSend;
    boolean hasPendingRecv;
    int mirroredState = -1;
    /** Its counters in the CnC (conductor thread), or null when there was no room. */
    QpCounters counters;
    /** The driver's memory its work queues take, charged to its client ({@link ClientQuotas#queueBytes}). */
    long queueBytes;

    ClientQp(
        final int handle, final EngineQueuePair qp, final ProtectionDomain pd, final ClientCq sendCq, final ClientCq recvCq,
        final SharedMemory memory, final int maxSendWr, final int maxSendSge, final int maxRecvWr,
        final int maxRecvSge)
    {
        this.handle = handle;
        this.qp = qp;
        this.pd = pd;
        this.sendCq = sendCq;
        this.recvCq = recvCq;
        this.memory = memory;
        final UnsafeBuffer whole = new UnsafeBuffer(memory.segment().address(), (int)memory.lengthBytes());
        this.header = new UnsafeBuffer(whole, 0, QpQueuesLayout.HEADER_LENGTH);
        this.sendRing = WorkRequestRing.format(WorkRequestRing.SEND, maxSendWr, maxSendSge, new UnsafeBuffer(
            whole, QpQueuesLayout.sendQueueOffset(), QpQueuesLayout.sendQueueLength(maxSendWr, maxSendSge)));
        this.recvRing = WorkRequestRing.format(WorkRequestRing.RECV, maxRecvWr, maxRecvSge, new UnsafeBuffer(
            whole, QpQueuesLayout.recvQueueOffset(maxSendWr, maxSendSge),
            QpQueuesLayout.recvQueueLength(maxRecvWr, maxRecvSge)));
        this.pendingSend = new SendWorkRequest(maxSendSge);
        this.pendingRecv = new RecvWorkRequest(maxRecvSge);
        header.putInt(QpQueuesLayout.QPN_OFFSET, qp.qpn());
        mirrorState();
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
