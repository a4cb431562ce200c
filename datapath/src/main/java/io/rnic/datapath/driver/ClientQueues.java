package io.rnic.datapath.driver;

import io.rnic.verbs.QpAttrMask;
import io.rnic.verbs.QpAttributes;
import io.rnic.verbs.QpState;
import org.agrona.concurrent.Agent;

import java.util.Arrays;

/**
 * Work in the engine thread's duty cycle: finds what clients posted into their QPs' shared rings, which the engine's
 * QPs take their work from in place, and rings the doorbell of each QP that has new work (a client in another process
 * cannot ring it); and publishes each QP's state into its shared header. Clients never wait for it: they post into a
 * ring and go on. The set of QPs changes only through {@link #add}/{@link #remove}, which the conductor runs on the
 * engine thread ({@code RnicEngine.execute}), so the duty cycle reads it without a lock.
 * <p>
 * A malformed entry (more SGEs than the QP has, an unknown opcode, a scribbled ring) moves the QP to the error state,
 * as a hardware RNIC does with a bad WQE: the client sees flushed completions, the driver goes on.
 */
final class ClientQueues implements Agent
{
    /** Requests decoded from one ring per duty cycle at most, so that one busy client cannot starve the others. */
    private static final int BUDGET = 64;

    private final QpAttributes toError = new QpAttributes();
    private ClientQp[] qps = new ClientQp[0];

    ClientQueues()
    {
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
            work += notice(qp);
            if (qp.mirrorState())
            {
                work++;
            }
        }
        return work;
    }

    /**
     * Takes (decodes) what the client posted since the last look, at most {@link #BUDGET} of each queue, and rings
     * the QP's doorbell when the engine has something to do with it: sends to transmit, or receives to flush in ERR
     * (any other receive waits for its message).
     */
    private int notice(final ClientQp qp)
    {
        final int sends = qp.sendRing.decodeAhead(BUDGET);
        final int receives = qp.recvRing == null ? 0 : qp.recvRing.decodeAhead(BUDGET);
        if (sends < 0 || receives < 0)
        {
            fail(qp);
            return 1;
        }
        if (sends > 0 || receives > 0 && qp.qp.state() == QpState.ERR)
        {
            qp.qp.context().ringDoorbell();
        }
        return sends + receives;
    }

    private void fail(final ClientQp qp)
    {
        // counted by the ring that took the entry (the driver's malformed work requests)
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
