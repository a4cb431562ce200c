package io.rnic.tools.perftest;

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

    /** Polls a CQ, checking every completion; returns how many arrived, or -1 after a failure. */
    protected int drain(final CompletionQueue cq)
    {
        final int n = cq.poll(completions, completions.length);
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
