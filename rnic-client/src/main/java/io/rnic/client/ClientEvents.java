package io.rnic.client;

import io.rnic.shm.SharedMemory;
import io.rnic.verbs.AsyncEvent;
import io.rnic.verbs.EventRing;
import io.rnic.verbs.SharedReceiveQueue;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.IntFunction;

/**
 * A driver's client's end of its {@link EventRing}, in a file the client made and the driver formatted
 * ({@code OPEN_ASYNC_EVENTS}): the one consumer of the ring. It hands each CM record to the connection manager whose
 * id it names (a new request to the first one open) and keeps the asynchronous events for
 * {@link #pollAsyncEvent}, so that a thread waiting for a connection and one polling for events never take each
 * other's records. Thread-safe: one drains at a time; waiting ({@link #await}) holds no lock.
 */
final class ClientEvents implements AutoCloseable
{
    /** Asynchronous events taken off the ring while draining for the CM and not polled yet, at most. */
    private static final int PENDING_CAPACITY = EventRing.CAPACITY;

    private final SharedMemory memory;
    private final EventRing ring;
    /** The pending events, from {@link #pendingHead}, {@link #pendingCount} of them: type, QP number, SRQ handle. */
    private final int[] pending = new int[3 * PENDING_CAPACITY];
    private int pendingHead;
    private int pendingCount;
    private final CopyOnWriteArrayList<ClientConnectionManager> managers = new CopyOnWriteArrayList<>();
    /** Asynchronous events taken off the ring with no room left among the pending ones. */
    private long droppedHere;
    private boolean closed;

    ClientEvents(final SharedMemory memory)
    {
        this.memory = memory;
        this.ring = EventRing.attach(new UnsafeBuffer(memory.segment().address(), (int)memory.segment().byteSize()));
    }

    void add(final ClientConnectionManager manager)
    {
        managers.add(manager);
    }

    void remove(final ClientConnectionManager manager)
    {
        managers.remove(manager);
    }

    /** The futex word's value: read it before {@link #drain}, then {@link #await} it if what is awaited is missing. */
    synchronized int wakeups()
    {
        return closed ? 0 : ring.wakeups(); // closed: its memory is unmapped, and the caller finds the context closed
    }

    /**
     * Sleeps until the driver pushes a record after {@code seenWakeups} was read, the driver is found gone
     * ({@link #wakeConsumers}), or {@code timeoutNs} passes. Holds no lock while it sleeps; a closed ring is not
     * touched (its memory is unmapped: the futex call then fails at once, harmlessly).
     */
    void await(final int seenWakeups, final long timeoutNs)
    {
        synchronized (this)
        {
            if (closed || !ring.arm())
            {
                return;
            }
        }
        ring.sleep(seenWakeups, timeoutNs);
    }

    /** Wakes the threads waiting for an event: the driver is gone, and they should say so. */
    synchronized void wakeConsumers()
    {
        if (!closed)
        {
            ring.wakeConsumers();
        }
    }

    /** Takes every record the driver published: CM records to their managers, asynchronous events aside. */
    synchronized int drain()
    {
        if (closed)
        {
            return 0;
        }
        int taken = 0;
        int slot;
        while ((slot = ring.peek()) >= 0)
        {
            final int kind = ring.kind(slot);
            final int handle = ring.handle(slot);
            if (kind == EventRing.KIND_ASYNC_EVENT)
            {
                if (pendingCount < PENDING_CAPACITY)
                {
                    final int at = 3 * ((pendingHead + pendingCount++) % PENDING_CAPACITY);
                    pending[at] = ring.payloadInt(slot, EventRing.EVENT_TYPE_OFFSET);
                    pending[at + 1] = ring.payloadInt(slot, EventRing.QP_NUM_OFFSET);
                    pending[at + 2] = handle;
                }
                else
                {
                    droppedHere++;
                }
            }
            else if (kind == EventRing.KIND_CM_REQUEST || kind == EventRing.KIND_CM_UPDATE)
            {
                for (final ClientConnectionManager manager : managers)
                {
                    if (manager.onCmEvent(kind, handle, ring.buffer(), slot + EventRing.PAYLOAD_OFFSET))
                    {
                        break;
                    }
                }
            }
            ring.take(); // a kind this client does not know is skipped: a newer driver's
            taken++;
        }
        return taken;
    }

    /** The oldest asynchronous event into {@code event}, its SRQ found by handle with {@code srqs}. */
    synchronized boolean pollAsyncEvent(final AsyncEvent event, final IntFunction<SharedReceiveQueue> srqs)
    {
        if (pendingCount == 0)
        {
            drain();
            if (pendingCount == 0)
            {
                return false;
            }
        }
        final int at = 3 * pendingHead;
        pendingHead = (pendingHead + 1) % PENDING_CAPACITY;
        pendingCount--;
        event.eventType = pending[at];
        event.qpNum = pending[at + 1];
        final int srqHandle = pending[at + 2];
        event.srq = srqHandle == 0 ? null : srqs.apply(srqHandle);
        return true;
    }

    /** Asynchronous events lost because the ring was full (the driver's count) or none polled them here. */
    synchronized long droppedEvents()
    {
        return closed ? droppedHere : ring.droppedEvents() + droppedHere;
    }

    public synchronized void close()
    {
        if (!closed)
        {
            closed = true;
            memory.close();
        }
    }
}
