package io.rnic.datapath.driver;

import io.rnic.device.QueuePair;
import io.rnic.verbs.QpAttrMask;
import io.rnic.verbs.QpAttributes;
import io.rnic.verbs.QpState;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.status.AtomicCounter;

import java.util.Arrays;

/**
 * Work in the engine thread's duty cycle: takes what clients posted into their QPs' shared rings and posts it to the
 * engine's QPs, and publishes each QP's state into its shared header. Clients never wait for it: they post into a
 * ring and go on. The set of QPs changes only through {@link #add}/{@link #remove}, which the conductor runs on the
 * engine thread ({@code RnicEngine.execute}), so the duty cycle reads it without a lock.
 * <p>
 * A malformed entry (more SGEs than the QP has, a scribbled ring) or one the engine refuses moves the QP to the error
 * state, as a hardware RNIC does with a bad WQE: the client sees flushed completions, the driver goes on.
 */
final class ClientQueues implements Agent
{
    /** Requests taken from one ring per duty cycle at most, so that one busy client cannot starve the others. */
    private static final int BUDGET = 64;

    private final AtomicCounter malformed;
    private final QpAttributes toError = new QpAttributes();
    private ClientQp[] qps = new ClientQp[0];

    ClientQueues(final AtomicCounter malformed)
    {
        this.malformed = malformed;
        toError.state = QpState.ERR;
    }

    void add(final ClientQp qp)
    {
        final ClientQp[] next = Arrays.copyOf(qps, qps.length + 1);
        next[qps.length] = qp;
        qps = next;
    }

    void remove(final ClientQp qp)
    {
        final ClientQp[] current = qps;
        for (int i = 0; i < current.length; i++)
        {
            if (current[i] == qp)
            {
                final ClientQp[] next = new ClientQp[current.length - 1];
                System.arraycopy(current, 0, next, 0, i);
                System.arraycopy(current, i + 1, next, i, current.length - i - 1);
                qps = next;
                return;
            }
        }
    }

    public int doWork()
    {
        int work = 0;
        final ClientQp[] current = qps;
        for (final ClientQp qp : current)
        {
            work += takeSends(qp) + takeReceives(qp);
            if (qp.mirrorState())
            {
                work++;
            }
        }
        return work;
    }

    private int takeSends(final ClientQp qp)
    {
        int taken = 0;
        while (taken < BUDGET)
        {
            if (!qp.hasPendingSend)
            {
                final int polled = qp.sendRing.pollSend(qp.pendingSend);
                if (polled == 0)
                {
                    break;
                }
                if (polled < 0)
                {
                    fail(qp);
                    break;
                }
                qp.hasPendingSend = true;
            }
            final int result = qp.qp.postSend(qp.pendingSend);
            if (result == QueuePair.POST_QUEUE_FULL)
            {
                break; // the engine's queue has room again once completions are generated
            }
            qp.hasPendingSend = false;
            taken++;
            if (result != QueuePair.POST_OK)
            {
                fail(qp);
                break;
            }
        }
        return taken;
    }

    private int takeReceives(final ClientQp qp)
    {
        int taken = 0;
        while (taken < BUDGET)
        {
            if (!qp.hasPendingRecv)
            {
                final int polled = qp.recvRing.pollRecv(qp.pendingRecv);
                if (polled == 0)
                {
                    break;
                }
                if (polled < 0)
                {
                    fail(qp);
                    break;
                }
                qp.hasPendingRecv = true;
            }
            final int result = qp.qp.postRecv(qp.pendingRecv);
            if (result == QueuePair.POST_QUEUE_FULL)
            {
                break;
            }
            qp.hasPendingRecv = false;
            taken++;
            if (result != QueuePair.POST_OK)
            {
                fail(qp);
                break;
            }
        }
        return taken;
    }

    private void fail(final ClientQp qp)
    {
        malformed.increment();
        if (qp.qp.state() != QpState.ERR && qp.qp.state() != QpState.RESET)
        {
            qp.qp.modify(toError, QpAttrMask.STATE);
        }
    }

    public String roleName()
    {
        return "rnic-client-queues";
    }
}
