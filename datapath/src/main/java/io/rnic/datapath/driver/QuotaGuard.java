package io.rnic.datapath.driver;

import io.rnic.verbs.Errno;
import io.rnic.verbs.VerbsException;
import org.agrona.concurrent.status.AtomicCounter;

/**
 * Holds each client to its {@link ClientQuotas}: a create that would take a client past one fails with ENOMEM, one
 * line naming the quota and its flag, and the quota's counter counts it. Checked before anything is mapped or made.
 * Conductor thread only.
 */
final class QuotaGuard
{
    private final ClientQuotas quotas;
    private final DriverCounters counters;

    QuotaGuard(final ClientQuotas quotas, final DriverCounters counters)
    {
        this.quotas = quotas;
        this.counters = counters;
    }

    ClientQuotas quotas()
    {
        return quotas;
    }

    /** A QP whose work queues take {@code queueBytes} of the driver's memory. */
    void checkQp(final ClientSession session, final long queueBytes)
    {
        check(session.qps.size() < quotas.qps(), counters.quotaQpsRefused, "ibv_create_qp: this client holds " +
            quotas.qps() + " QPs, its quota (rnic driver --max-client-qps)");
        checkQueueBytes(session, queueBytes, "ibv_create_qp");
    }

    void checkCq(final ClientSession session)
    {
        check(session.cqs.size() < quotas.cqs(), counters.quotaCqsRefused, "ibv_create_cq: this client holds " +
            quotas.cqs() + " CQs, its quota (rnic driver --max-client-cqs)");
    }

    /** An SRQ (its ring is in the client's memory). */
    void checkSrq(final ClientSession session)
    {
        check(session.srqs.size() < quotas.srqs(), counters.quotaSrqsRefused, "ibv_create_srq: this client holds " +
            quotas.srqs() + " SRQs, its quota (rnic driver --max-client-srqs)");
    }

    /** A region of {@code lengthBytes}. */
    void checkMr(final ClientSession session, final long lengthBytes)
    {
        check(session.mrs.size() < quotas.mrs(), counters.quotaMrsRefused, "ibv_reg_mr: this client holds " +
            quotas.mrs() + " memory regions, its quota (rnic driver --max-client-mrs)");
        check(lengthBytes <= quotas.registeredBytes() - session.registeredBytes, counters.quotaRegisteredBytesRefused,
            "ibv_reg_mr: " + lengthBytes + " bytes more would take this client past its " + quotas.registeredBytes() +
            " registered bytes (rnic driver --max-client-mr-bytes; it has " + session.registeredBytes + ")");
    }

    private void checkQueueBytes(final ClientSession session, final long queueBytes, final String verb)
    {
        check(queueBytes <= quotas.queueBytes() - session.queueBytes, counters.quotaQueueBytesRefused, verb + ": " +
            "its work queues would take this client's driver memory past " + quotas.queueBytes() + " bytes (rnic " +
            "driver --max-client-queue-bytes; it has " + session.queueBytes + ", this one " + queueBytes + ")");
    }

    private static void check(final boolean within, final AtomicCounter refusals, final String message)
    {
        if (!within)
        {
            refusals.increment();
            throw new VerbsException(Errno.ENOMEM, message);
        }
    }
}
