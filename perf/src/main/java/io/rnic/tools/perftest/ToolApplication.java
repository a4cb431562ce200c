package io.rnic.tools.perftest;

import io.rnic.tools.LocalQp;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.WcOpcode;
import io.rnic.verbs.WcStatus;
import io.rnic.verbs.WorkCompletion;
import org.agrona.concurrent.Agent;

/**
 * A tool's work, run inside the engine thread's duty cycle (no second spinning thread), or through a driver on the
 * tool's one application thread ({@link io.rnic.tools.ToolDevice}): a state machine advanced by {@link #doWork}. It ends by {@link #isDone} or by a failure message; the tool's main thread only waits.
 */
public abstract class ToolApplication implements Agent
{
    protected final WorkCompletion[] completions = new WorkCompletion[32];
    private volatile boolean done;
    private volatile String failure;
    private volatile long iterationsDone;
    /** With {@code -e}: the CQs of the run, each with its notification state; null: poll every cycle. */
    private CompletionQueue[] eventQueues;
    private boolean[] armed;
    private int[] seenNotifications;
    private long events;

    ToolApplication()
    {
        for (int i = 0; i < completions.length; i++)
        {
            completions[i] = new WorkCompletion();
        }
    }

    boolean isDone()
    {
        return done || failure != null;
    }

    String failure()
    {
        return failure;
    }

    long iterationsDone()
    {
        return iterationsDone;
    }

    protected void progress(final long iterations)
    {
        iterationsDone = iterations;
    }

    protected void finish()
    {
        done = true;
    }

    protected void fail(final String message)
    {
        if (failure == null)
        {
            failure = message;
        }
    }

    protected boolean running()
    {
        return !done && failure == null;
    }

    /** Fails on an unsuccessful completion; returns false then. */
    protected boolean checkCompletion(final WorkCompletion wc)
    {
        if (wc.status() != WcStatus.SUCCESS)
        {
            fail("work completion " + wc.status() + " (" + WcOpcode.name(wc.opcode()) + ", wr_id " + wc.wrId() +
                ", QP " + wc.qpNumber() + ", vendor error " + wc.vendorError() + ")");
            return false;
        }
        return true;
    }

    /**
     * {@code -e}: poll the run's CQs only when their completion channel says there is something, as perftest's
     * {@code ibv_req_notify_cq} / {@code ibv_get_cq_event} loop. The application runs in a duty cycle (the engine's,
     * or the driver client's thread) which it must not block, so where perftest sleeps in {@code ibv_get_cq_event}
     * it returns, and looks at the CQ's notification count in the next cycle.
     */
    void useEvents(final LocalQp[] qps)
    {
        eventQueues = new CompletionQueue[2 * qps.length];
        for (int i = 0; i < qps.length; i++)
        {
            eventQueues[2 * i] = qps[i].sendCq;
            eventQueues[2 * i + 1] = qps[i].recvCq;
        }
        armed = new boolean[eventQueues.length];
        seenNotifications = new int[eventQueues.length];
    }

    /** Completion events taken with {@code -e}: notifications that made the application poll. */
    long events()
    {
        return events;
    }

    /**
     * Up to {@code max} completions of {@code cq}, unchecked. With {@code -e}, nothing while the CQ is armed and has
     * raised no event; when a poll finds it empty, it asks for the next event and polls once more (a completion
     * added before the request raises none).
     */
    protected int poll(final CompletionQueue cq, final int max)
    {
        if (eventQueues == null)
        {
            return cq.poll(completions, max);
        }
        int index = 0;
        while (eventQueues[index] != cq)
        {
            index++;
        }
        if (armed[index])
        {
            if (cq.notifications() == seenNotifications[index])
            {
                return 0;
            }
            armed[index] = false;
            events++;
        }
        int n = cq.poll(completions, max);
        if (n == 0)
        {
            seenNotifications[index] = cq.notifications();
            cq.requestNotify();
            n = cq.poll(completions, max);
            armed[index] = n == 0;
        }
        return n;
    }

    /** Polls a CQ, checking every completion; returns how many arrived, or -1 after a failure. */
    protected int drain(final CompletionQueue cq)
    {
        final int n = poll(cq, completions.length);
        for (int i = 0; i < n; i++)
        {
            if (!checkCompletion(completions[i]))
            {
                return -1;
            }
        }
        return n;
    }

    /**
     * A ping-pong's duty cycle starts here: the send completions since the last cycle, checked, or -1 when the run
     * has ended or failed (the cycle then does nothing more).
     */
    protected int sendCompletions(final CompletionQueue sendCq)
    {
        return running() ? drain(sendCq) : -1;
    }

    @Override
    public String roleName()
    {
        return getClass().getSimpleName();
    }
}
