package io.rnic.client;

import io.rnic.cc.DcqcnParameters;
import io.rnic.cnc.QpQueuesLayout;
import io.rnic.device.QueuePair;
import io.rnic.shm.SharedMemory;
import io.rnic.verbs.QpAttributes;
import io.rnic.verbs.QpState;
import io.rnic.verbs.QpType;
import io.rnic.verbs.RecvWorkRequest;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.WorkRequestRing;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * A QP of a driver's engine as its client sees it: posting writes the request into the QP's send or receive ring in
 * shared memory (no system call, no wait on the driver; the driver's engine thread takes it in its next duty cycle),
 * the state is the one the driver publishes in the QP's header, and {@code modify} is a command to the driver.
 */
final class ClientQueuePair implements QueuePair
{
    private static final QpState[] STATES = QpState.values();

    private final DriverContext context;
    private final int handle;
    private final int qpn;
    private final QpType type;
    private final SharedMemory memory;
    private final UnsafeBuffer header;
    private final WorkRequestRing sendRing;
    /** Null when it takes its receives from an SRQ: no receive queue to post into (EINVAL, as embedded). */
    private final WorkRequestRing recvRing;
    private final DriverConnection connection;

    ClientQueuePair(
        final DriverContext context, final DriverConnection connection, final int handle, final int qpn,
        final QpType type, final SharedMemory memory, final int maxSendWr, final int maxSendSge, final int maxRecvWr,
        final int maxRecvSge, final boolean hasSrq)
    {
        this.context = context;
        this.connection = connection;
        this.handle = handle;
        this.qpn = qpn;
        this.type = type;
        this.memory = memory;
        final UnsafeBuffer whole = new UnsafeBuffer(memory.segment().address(), (int)memory.lengthBytes());
        this.header = new UnsafeBuffer(whole, 0, QpQueuesLayout.HEADER_LENGTH);
        this.sendRing = WorkRequestRing.attach(WorkRequestRing.SEND, new UnsafeBuffer(
            whole, QpQueuesLayout.sendQueueOffset(), QpQueuesLayout.sendQueueLength(maxSendWr, maxSendSge)));
        this.recvRing = hasSrq ? null : WorkRequestRing.attach(WorkRequestRing.RECV, new UnsafeBuffer(
            whole, QpQueuesLayout.recvQueueOffset(maxSendWr, maxSendSge),
            QpQueuesLayout.recvQueueLength(maxRecvWr, maxRecvSge)));
    }

    int handle()
    {
        return handle;
    }

    SharedMemory memory()
    {
        return memory;
    }

    public int qpn()
    {
        return qpn;
    }

    public QpType type()
    {
        return type;
    }

    public QpState state()
    {
        final int ordinal = header.getIntVolatile(QpQueuesLayout.STATE_OFFSET);
        return ordinal >= 0 && ordinal < STATES.length ? STATES[ordinal] : QpState.ERR;
    }

    public int postSend(final SendWorkRequest wr)
    {
        connection.checkAlive();
        return QueuePair.postSend(state(), type, wr, sendRing);
    }

    public int postRecv(final RecvWorkRequest wr)
    {
        connection.checkAlive();
        return QueuePair.postRecv(state(), wr, recvRing);
    }

    public void modify(final QpAttributes attributes, final int mask)
    {
        final String invalid = attributes.validate(mask);
        if (invalid != null)
        {
            throw new io.rnic.verbs.VerbsException(invalid);
        }
        context.modify(this, attributes, mask);
    }

    /** Per-QP congestion control is the driver's (its {@code --dcqcn}): a client cannot change it. */
    public void congestionControl(final DcqcnParameters parameters)
    {
        throw new UnsupportedOperationException("congestion control of a driver's QPs is set on the driver " +
            "(bin/rnic driver --dcqcn), not by its clients");
    }

    public boolean isCongestionControlled()
    {
        throw new UnsupportedOperationException("a driver's DCQCN state is in its counters: bin/rnic stat");
    }

    public long rateBitsPerSec()
    {
        throw new UnsupportedOperationException("a driver's DCQCN rates are in its counters: bin/rnic stat");
    }

    public String describe()
    {
        return toString() + " (transport state: bin/rnic stat --dir " + context.directory() + ")";
    }

    public String toString()
    {
        return "QueuePair{qpn=" + qpn + ", type=" + type + ", state=" + state() + ", driver client}";
    }
}
