package io.rnic.client;

import io.rnic.shm.SharedMemory;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.RecvWorkRequest;
import io.rnic.verbs.SharedReceiveQueue;
import io.rnic.verbs.SrqAttributes;
import io.rnic.verbs.WorkRequestRing;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * An SRQ of a driver's engine as its client sees it: posting writes the request into the SRQ's receive ring in shared
 * memory (no system call, no wait on the driver), from which the driver's engine takes it when a message arrives for
 * one of the SRQ's QPs; {@code modify} and {@code query} are commands to the driver, which holds the limit.
 * <p>
 * Any number of threads may post at once, as to an embedded SRQ: the ring is the same.
 */
final class ClientSharedReceiveQueue implements SharedReceiveQueue
{
    private final DriverContext context;
    private final DriverConnection connection;
    private final int handle;
    private final ProtectionDomain pd;
    private final int maxSge;
    private final SharedMemory memory;
    private final WorkRequestRing ring;
    private volatile boolean destroyed;

    ClientSharedReceiveQueue(
        final DriverContext context, final DriverConnection connection, final int handle, final ProtectionDomain pd,
        final SharedMemory memory, final int ringLength)
    {
        this.context = context;
        this.connection = connection;
        this.handle = handle;
        this.pd = pd;
        this.memory = memory;
        this.ring = WorkRequestRing.attach(WorkRequestRing.RECV,
            new UnsafeBuffer(memory.segment().address(), ringLength));
        this.maxSge = ring.maxSge();
    }

    public int handle()
    {
        return handle;
    }

    public ProtectionDomain pd()
    {
        return pd;
    }

    public int maxSge()
    {
        return maxSge;
    }

    SharedMemory memory()
    {
        return memory;
    }

    /** Destroyed through the context: posts are refused from now on, before the ring is unmapped. */
    void destroyed()
    {
        destroyed = true;
    }

    public int postRecv(final RecvWorkRequest wr)
    {
        connection.checkAlive();
        return SharedReceiveQueue.post(destroyed, wr, ring);
    }

    public void modify(final SrqAttributes attributes, final int mask)
    {
        context.modifySrq(this, attributes, mask);
    }

    public SrqAttributes query(final SrqAttributes into)
    {
        return context.querySrq(this, into);
    }

    public String toString()
    {
        return "SharedReceiveQueue{handle=" + handle + ", maxWr=" + ring.capacity() + ", maxSge=" + maxSge +
            ", driver client}";
    }
}
