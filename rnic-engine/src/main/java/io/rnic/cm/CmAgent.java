package io.rnic.cm;

import io.rnic.device.QueuePair;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.ManyToManyConcurrentArrayQueue;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;
import org.agrona.concurrent.NanoClock;

import java.util.Map;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import java.util.function.Supplier;

/**
 * A {@link ConnectionManager} run as an application of the engine's duty cycle ({@code Endpoint.addApplication}):
 * the thread that calls {@link #doWork} owns the manager and everything it holds; other threads (a tool's) queue
 * commands to it and wait, parked, until the duty cycle reports a change, as a librdmacm application blocks in
 * {@code rdma_get_cm_event}. So the CM's state has one owner, its MADs are answered and retransmitted on time
 * whatever the application does, and no application thread spins a poll loop of its own.
 * <p>
 * The manager's QP transitions then run on the engine thread, where the device applies them inline. Its
 * {@link ConnectionManager.MacResolver} must not wait there (the engine thread would be the one to receive the
 * answer): {@link #connect} resolves the peer on the caller's thread first with a resolver that may wait, so that the
 * engine thread's finds the MAC known; a REQ from a peer whose MAC is not known yet is dropped and retried by the peer.
 */
public final class CmAgent implements Agent, CmService
{
    /** How long a command may wait for the duty cycle to run it before the caller gives up. */
    public static final long COMMAND_TIMEOUT_NS = 10_000_000_000L;
    private static final int COMMAND_CAPACITY = 64;
    private static final int COMMAND_LIMIT = 16;
    private static final int REQUEST_CAPACITY = 64;
    private static final int MAX_WAITERS = 8;

    private final ConnectionManager cm;
    private final NanoClock clock;
    private final ConnectionManager.MacResolver callerResolver;
    private final ManyToOneConcurrentArrayQueue<Runnable> commands =
        new ManyToOneConcurrentArrayQueue<>(COMMAND_CAPACITY);
    private final Consumer<Runnable> runCommand = Runnable::run;
    /** Connect requests handed over from the manager to whichever application thread waits for one. */
    private final ManyToManyConcurrentArrayQueue<CmConnection> connectRequests =
        new ManyToManyConcurrentArrayQueue<>(REQUEST_CAPACITY);
    /** The threads parked in {@link #await}, each in a slot of its own; the duty cycle unparks them on a change. */
    private final AtomicReferenceArray<Thread> waiters = new AtomicReferenceArray<>(MAX_WAITERS);
    private volatile Thread owner;
    /** Duty cycles that did something: a reader that saw it move looks at the connections again. */
    private volatile long changes;
    private Runnable beforeClose = () -> { };

    /**
     * @param cm             the manager the duty cycle drives; nobody else may call it once the agent runs.
     * @param clock          the duty cycle's clock, which the manager's timers run on.
     * @param callerResolver resolves a peer's MAC on the thread that calls {@link #connect}, waiting if it must
     *                       (null: the manager's own resolver finds every peer without waiting).
     */
    public CmAgent(final ConnectionManager cm, final NanoClock clock,
        final ConnectionManager.MacResolver callerResolver)
    {
        this.cm = cm;
        this.clock = clock;
        this.callerResolver = callerResolver;
    }

    @Override
    public String roleName()
    {
        return "connection-manager";
    }

    /**
     * The duty cycle: runs the queued commands, then the manager's own ({@link ConnectionManager#poll}), hands the
     * new connect requests over and wakes the waiting threads if anything happened.
     */
    @Override
    public int doWork()
    {
        if (owner == null)
        {
            owner = Thread.currentThread();
        }
        int work = commands.drain(runCommand, COMMAND_LIMIT);
        work += cm.poll(clock.nanoTime());
        CmConnection request;
        while (connectRequests.remainingCapacity() > 0 && (request = cm.pollConnectRequest()) != null)
        {
            connectRequests.offer(request);
            work++;
        }
        if (work > 0)
        {
            changes = changes + 1; // one writer, the duty cycle; after the changes it announces
            signal();
        }
        return work;
    }

    /** Accept REQs for this RDMA_PS_TCP port; in effect when this returns. */
    @Override
    public void listen(final int port)
    {
        run(nowNs -> cm.listen(port));
    }

    /** {@link ConnectionManager#stopListening}; in effect when this returns. */
    @Override
    public void stopListening(final int port)
    {
        run(nowNs -> cm.stopListening(port));
    }

    /**
     * {@link ConnectionManager#connect}: the REQ is out when this returns; wait for {@link CmConnection#isEstablished}
     * with {@link #await}.
     */
    public CmConnection connect(final QueuePair qp, final long peerGidHigh, final long peerGidLow, final int port,
        final int responderResources, final int initiatorDepth)
    {
        return connect(qp, peerGidHigh, peerGidLow, port, responderResources, initiatorDepth, new byte[0]);
    }

    /** {@link #connect(QueuePair, long, long, int, int, int)} with the consumer's private data in the REQ. */
    public CmConnection connect(final QueuePair qp, final long peerGidHigh, final long peerGidLow, final int port,
        final int responderResources, final int initiatorDepth, final byte[] privateData)
    {
        if (callerResolver != null)
        {
            callerResolver.resolve(peerGidHigh, peerGidLow); // here, where waiting for the answer blocks no engine
        }
        return call(() -> cm.connect(qp, peerGidHigh, peerGidLow, port, responderResources, initiatorDepth,
            privateData, clock.nanoTime()));
    }

    /**
     * {@link CmService#connect}: from the GID at {@code sgidIndex}; the peer's MAC is resolved here first when this
     * agent has a resolver for the caller's thread, else the manager's own resolver must find it without waiting.
     */
    @Override
    public CmConnection connect(final QueuePair qp, final int sgidIndex, final long peerGidHigh,
        final long peerGidLow, final int port, final int responderResources, final int initiatorDepth,
        final byte[] privateData)
    {
        if (callerResolver != null)
        {
            callerResolver.resolve(peerGidHigh, peerGidLow);
        }
        return call(() -> cm.connect(qp, sgidIndex, peerGidHigh, peerGidLow, port, responderResources,
            initiatorDepth, privateData, clock.nanoTime()));
    }

    @Override
    public void accept(final CmId request, final QueuePair qp, final int responderResources,
        final int initiatorDepth, final byte[] privateData)
    {
        accept(own(request), qp, responderResources, initiatorDepth, privateData);
    }

    @Override
    public void reject(final CmId request, final byte[] privateData)
    {
        reject(own(request), privateData);
    }

    @Override
    public void disconnect(final CmId connection)
    {
        disconnect(own(connection));
    }

    @Override
    public void release(final CmId connection)
    {
        release(own(connection));
    }

    /**
     * {@link #connect(QueuePair, int, long, long, int, int, int, byte[])} with its own type of service (0..255), or the
     * manager's (-1).
     */
    @Override
    public CmConnection connect(final QueuePair qp, final int sgidIndex, final long peerGidHigh,
        final long peerGidLow, final int port, final int responderResources, final int initiatorDepth,
        final byte[] privateData, final int typeOfService)
    {
        if (typeOfService < 0)
        {
            return connect(qp, sgidIndex, peerGidHigh, peerGidLow, port, responderResources,
                initiatorDepth, privateData);
        }
        if (callerResolver != null)
        {
            callerResolver.resolve(peerGidHigh, peerGidLow);
        }
        return call(() -> cm.connect(qp, sgidIndex, peerGidHigh, peerGidLow, port, responderResources,
            initiatorDepth, privateData, typeOfService, clock.nanoTime()));
    }

    /** {@link ConnectionManager#detach}: released, its QP left to its owner. */
    public void detach(final CmConnection c)
    {
        run(nowNs -> cm.detach(c, nowNs));
    }

    /**
     * How many duty cycles did something so far (any thread): what a cycle changed is visible to a reader that saw
     * the count it left.
     */
    public long changes()
    {
        return changes;
    }

    /** The next REQ handed over by the duty cycle, without waiting; null if none. */
    public CmConnection pollConnectRequest()
    {
        return connectRequests.poll();
    }

    /**
     * Closes the manager (its GSI QP, and the QPs of the connections released to it), after {@link #beforeClose}'s
     * action, which must leave the agent run by no duty cycle: the manager then has no other owner. Idempotent.
     */
    @Override
    public void close()
    {
        final Runnable detach = beforeClose;
        beforeClose = null;
        if (detach != null)
        {
            detach.run();
            cm.close();
        }
    }

    /**
     * What {@link #close} does first, once: take this agent out of the duty cycle that runs it (e.g. the endpoint's
     * {@code removeApplication}), so that {@code close} alone ends a CM its opener added to an engine.
     */
    public CmAgent beforeClose(final Runnable detach)
    {
        this.beforeClose = detach;
        return this;
    }

    private static CmConnection own(final CmId id)
    {
        if (!(id instanceof CmConnection c))
        {
            throw new IllegalArgumentException("not a connection of this CM: " + id);
        }
        return c;
    }

    /** {@link ConnectionManager#accept}: the QP is in RTS and the REP sent when this returns. */
    public void accept(final CmConnection c, final QueuePair qp, final int responderResources,
        final int initiatorDepth)
    {
        accept(c, qp, responderResources, initiatorDepth, new byte[0]);
    }

    /** {@link #accept(CmConnection, QueuePair, int, int)} with the consumer's private data in the REP. */
    public void accept(final CmConnection c, final QueuePair qp, final int responderResources,
        final int initiatorDepth, final byte[] privateData)
    {
        run(nowNs -> cm.accept(c, qp, responderResources, initiatorDepth, privateData, nowNs));
    }

    /** {@link ConnectionManager#reject}. */
    public void reject(final CmConnection c)
    {
        reject(c, new byte[0]);
    }

    /** {@link ConnectionManager#reject(CmConnection, byte[], long)}: with the consumer's private data in the REJ. */
    public void reject(final CmConnection c, final byte[] privateData)
    {
        run(nowNs -> cm.reject(c, privateData, nowNs));
    }

    /**
     * {@link ConnectionManager#disconnect}: the DREQ is out when this returns; wait for {@link CmConnection#isClosed}
     * with {@link #await}.
     */
    public void disconnect(final CmConnection c)
    {
        run(nowNs -> cm.disconnect(c, nowNs));
    }

    /** {@link ConnectionManager#releaseAndDestroyQp}: the QP destroyed now, its QPN held through the timewait. */
    public void release(final CmConnection c)
    {
        run(nowNs -> cm.releaseAndDestroyQp(c, nowNs));
    }

    /** One of the manager's counters: they live in the counters manager, readable from any thread. */
    public long counter(final CmCounter counter)
    {
        return cm.counter(counter);
    }

    /** The manager's counters that are not zero, read from the counters manager (any thread). */
    @Override
    public Map<CmCounter, Long> counters()
    {
        return cm.counters();
    }

    /** The next REQ to a port we listen on, waiting up to {@code timeoutNs}; null if none came. */
    @Override
    public CmConnection awaitConnectRequest(final long timeoutNs)
    {
        final CmConnection[] request = new CmConnection[1];
        return await(() -> (request[0] = connectRequests.poll()) != null, timeoutNs) ? request[0] : null;
    }

    /**
     * Waits until {@code condition} holds (a connection {@linkplain CmConnection#isEstablished established} or
     * {@linkplain CmConnection#isClosed closed}), looking again each time the duty cycle did something, or until
     * {@code timeoutNs} passed. A condition that never holds makes this a pause during which the CM keeps answering.
     *
     * @return whether the condition holds.
     */
    @Override
    public boolean await(final BooleanSupplier condition, final long timeoutNs)
    {
        if (Thread.currentThread() == owner)
        {
            throw new IllegalStateException("the CM's own thread cannot wait for it");
        }
        final int slot = enlist();
        try
        {
            final long deadlineNs = System.nanoTime() + timeoutNs;
            while (!condition.getAsBoolean())
            {
                final long leftNs = deadlineNs - System.nanoTime();
                if (leftNs <= 0)
                {
                    return false;
                }
                LockSupport.parkNanos(this, leftNs); // unparked by signal(); a wake-up too early only looks again
            }
            return true;
        }
        finally
        {
            waiters.set(slot, null);
        }
    }

    /** Runs an action on the duty cycle, with the duty cycle's time, and waits until it ran. */
    private void run(final LongConsumer action)
    {
        call(() ->
        {
            action.accept(clock.nanoTime());
            return null;
        });
    }

    /**
     * Runs a command on the duty cycle and waits for its result; at once when called from the duty cycle's own
     * thread (an application of the same engine).
     */
    private <T> T call(final Supplier<T> command)
    {
        if (Thread.currentThread() == owner)
        {
            return command.get();
        }
        final Command<T> queued = new Command<>(command);
        if (!commands.offer(queued))
        {
            throw new IllegalStateException("the connection manager's command queue is full");
        }
        if (!await(queued::isDone, COMMAND_TIMEOUT_NS))
        {
            throw new IllegalStateException("the connection manager did not run a command within " +
                COMMAND_TIMEOUT_NS / 1_000_000 + " ms: is it added to a running endpoint?");
        }
        return queued.result();
    }

    /** A call queued to the duty cycle: its result or failure, published by the volatile {@code done}. */
    private static final class Command<T> implements Runnable
    {
        private final Supplier<T> body;
        private T value;
        private RuntimeException failure;
        private volatile boolean done;

        Command(final Supplier<T> body)
        {
            this.body = body;
        }

        @Override
        public void run()
        {
            try
            {
                value = body.get();
            }
            catch (final RuntimeException ex)
            {
                failure = ex;
            }
            done = true;
        }

        boolean isDone()
        {
            return done;
        }

        T result()
        {
            if (failure != null)
            {
                throw failure;
            }
            return value;
        }
    }

    private int enlist()
    {
        final Thread me = Thread.currentThread();
        while (true)
        {
            for (int i = 0; i < MAX_WAITERS; i++)
            {
                if (waiters.compareAndSet(i, null, me))
                {
                    return i;
                }
            }
            Thread.onSpinWait(); // more than MAX_WAITERS threads wait at once: the next one to leave makes room
        }
    }

    private void signal()
    {
        for (int i = 0; i < MAX_WAITERS; i++)
        {
            final Thread waiter = waiters.get(i);
            if (waiter != null)
            {
                LockSupport.unpark(waiter);
            }
        }
    }
}
