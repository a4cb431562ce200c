package io.rnic.transport;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Queue pairs by number, read by the engine thread with one volatile read and an index while the control plane
 * creates and destroys QPs (copy-on-write, published with a CAS). QPN 0 never exists on RoCE; QPN 1 is reserved
 * for the connection manager (GSI); application QPs are numbered from 2.
 */
public final class QpTable
{
    public static final int FIRST_QPN = 2;
    /** The general services interface QP (GSI, IBTA 13.4.6): the UD QP of the connection manager's MADs. */
    public static final int GSI_QPN = 1;
    public static final int MAX_QPN = 0xFF_FFFF;

    private final AtomicReference<QpContext[]> byQpn = new AtomicReference<>(new QpContext[64]);
    private final AtomicReference<QpContext[]> active = new AtomicReference<>(new QpContext[0]);

    /** The lowest free QPN from 2 up. Control path. */
    public int allocateQpn()
    {
        return allocateQpn(0, 1);
    }

    /**
     * The lowest free QPN from 2 up with {@code qpn % shards == shard}: engine shards number their QPs apart, so
     * that any engine thread finds a packet's owner from its destination QPN alone. Control path.
     */
    public int allocateQpn(final int shard, final int shards)
    {
        final QpContext[] current = byQpn.get();
        int qpn = FIRST_QPN + Math.floorMod(shard - FIRST_QPN, shards);
        for (; qpn < current.length; qpn += shards)
        {
            if (current[qpn] == null)
            {
                return qpn;
            }
        }
        if (qpn > MAX_QPN)
        {
            throw new IllegalStateException("no QPN left for shard " + shard + " of " + shards);
        }
        return qpn;
    }

    public void add(final QpContext qp)
    {
        if (qp.qpn < GSI_QPN || qp.qpn > MAX_QPN)
        {
            throw new IllegalArgumentException("QPN " + qp.qpn + " out of range " + GSI_QPN + ".." + MAX_QPN);
        }
        while (true)
        {
            final QpContext[] current = byQpn.get();
            final QpContext[] next = Arrays.copyOf(current, Math.max(current.length, Integer.highestOneBit(qp.qpn) * 2));
            if (next[qp.qpn] != null)
            {
                throw new IllegalStateException("QPN " + qp.qpn + " already in use");
            }
            next[qp.qpn] = qp;
            if (byQpn.compareAndSet(current, next))
            {
                break;
            }
        }
        while (true)
        {
            final QpContext[] current = active.get();
            final QpContext[] next = Arrays.copyOf(current, current.length + 1);
            next[current.length] = qp;
            if (active.compareAndSet(current, next))
            {
                return;
            }
        }
    }

    public void remove(final QpContext qp)
    {
        while (true)
        {
            final QpContext[] current = byQpn.get();
            if (qp.qpn >= current.length || current[qp.qpn] != qp)
            {
                return;
            }
            final QpContext[] next = current.clone();
            next[qp.qpn] = null;
            if (byQpn.compareAndSet(current, next))
            {
                break;
            }
        }
        while (true)
        {
            final QpContext[] current = active.get();
            final QpContext[] next = Arrays.stream(current).filter(q -> q != qp).toArray(QpContext[]::new);
            if (active.compareAndSet(current, next))
            {
                return;
            }
        }
    }

    /** The QP with this number, or null. Engine thread. */
    public QpContext get(final int qpn)
    {
        final QpContext[] current = byQpn.get();
        return qpn < current.length ? current[qpn] : null;
    }

    /** Every QP, for the engine's duty cycle. Do not modify the array. */
    public QpContext[] all()
    {
        return active.get();
    }
}
