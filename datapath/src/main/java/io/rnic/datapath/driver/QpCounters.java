package io.rnic.datapath.driver;

import io.rnic.cc.QpCongestion;
import io.rnic.device.EngineQueuePair;
import io.rnic.status.CounterTypes;
import io.rnic.transport.QpContext;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersManager;

/**
 * One client QP's counters in the CnC, for operators ({@code bin/rnic stat}): its state, PSNs, retransmissions and
 * DCQCN rate, each a counter labelled {@code qp 0x<qpn> client <id> <type>: <what>}, refreshed by the conductor from
 * the engine's view of the QP (a recent value, read without stopping the engine). Freed with the QP. When the CnC has
 * no room left the QP simply has none (counted by the caller).
 */
final class QpCounters
{
    private static final int STATE = 0;
    private static final int SQ_PSN = 1;
    private static final int RQ_PSN = 2;
    private static final int RETRANSMITTED = 3;
    private static final int RATE = 4;
    private static final String[] NAMES = { "state", "sq_psn", "rq_psn", "retransmitted_pkts", "dcqcn_rate_bps" };

    private final CountersManager manager;
    private final EngineQueuePair qp;
    private final String prefix;
    private final AtomicCounter[] counters = new AtomicCounter[NAMES.length];
    private int labelledState = -1;

    private QpCounters(final CountersManager manager, final EngineQueuePair qp, final long clientId)
    {
        this.manager = manager;
        this.qp = qp;
        this.prefix = "qp 0x" + Integer.toHexString(qp.qpn()) + " client " + Long.toHexString(clientId) + " " +
            qp.type() + ": ";
    }

    /** The QP's counters, or null when the CnC has no room for them. */
    static QpCounters allocate(final CountersManager manager, final EngineQueuePair qp, final long clientId)
    {
        final QpCounters qpCounters = new QpCounters(manager, qp, clientId);
        try
        {
            for (int i = 0; i < NAMES.length; i++)
            {
                final int index = i;
                qpCounters.counters[i] = manager.newCounter(qpCounters.prefix + NAMES[i], CounterTypes.QP,
                    key ->
                    {
                        key.putInt(CounterTypes.KEY_INDEX_OFFSET, index);
                        key.putInt(CounterTypes.KEY_INSTANCE_OFFSET, qp.qpn());
                    });
            }
            return qpCounters;
        }
        catch (final IllegalStateException full)
        {
            qpCounters.free();
            return null;
        }
    }

    /** Copies the QP's current values in; the state's label names the state. Conductor thread. */
    void refresh()
    {
        final QpContext context = qp.context();
        final int state = context.state().ordinal();
        counters[STATE].setRelease(state);
        if (state != labelledState)
        {
            labelledState = state;
            counters[STATE].updateLabel(prefix + NAMES[STATE] + " (" + context.state() + ")");
        }
        counters[SQ_PSN].setRelease(context.sendPsn());
        counters[RQ_PSN].setRelease(context.expectedPsn());
        counters[RETRANSMITTED].setRelease(context.retransmittedPackets());
        final QpCongestion congestion = context.congestion();
        counters[RATE].setRelease(congestion == null ? -1 : congestion.rateBitsPerSec());
    }

    void free()
    {
        for (final AtomicCounter counter : counters)
        {
            if (counter != null)
            {
                counter.close(); // frees the record in its manager
            }
        }
    }
}
