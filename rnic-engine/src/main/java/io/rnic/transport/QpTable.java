package io.rnic.transport;

import org.agrona.collections.IntHashSet;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Queue pairs by number. The engine thread finds a packet's QP with two acquiring array reads, while the control plane
 * creates and destroys QPs; adding, removing and allocating a number cost the same with 10 or 100 000 QPs.
 * <p>
 * The 24-bit QPN space is a directory of pages of {@value #PAGE_SIZE} slots, a page allocated when its first QP
 * arrives and kept (16 KiB each): no copy of the table on a change, no lock on the read path. Writers (the control
 * path) serialise on the table.
 * <p>
 * Numbers are handed out from a random start, then round robin: a cursor moves forward past the numbers in use and
 * wraps, so that two runs do not number their QPs alike and a destroyed QP's number is not given again before the
 * cursor has gone all the way round (a late packet for the old QP then finds no QP rather than a stranger).
 * QPN 0 never exists on RoCE; QPN 1 is reserved for the connection manager (GSI).
 * <p>
 * A number may also be {@linkplain #hold held} with no QP under it: the allocator skips it until it is
 * {@linkplain #release released}. The connection manager holds the QPN of a connection in its timewait whose QP its
 * owner (a driver's client) destroyed at once, so that the number is not handed out again before the timewait ends,
 * whatever the cursor does.
 */
public final class QpTable
{
    public static final int FIRST_QPN = 2;
    /** The general services interface QP (GSI, IBTA 13.4.6): the UD QP of the connection manager's MADs. */
    public static final int GSI_QPN = 1;
    public static final int MAX_QPN = 0xFF_FFFF;

    static final int PAGE_SHIFT = 12;
    static final int PAGE_SIZE = 1 << PAGE_SHIFT;
    private static final int PAGE_MASK = PAGE_SIZE - 1;
    private static final VarHandle PAGES = MethodHandles.arrayElementVarHandle(QpContext[][].class);
    private static final VarHandle SLOTS = MethodHandles.arrayElementVarHandle(QpContext[].class);

    private final int maxQpn;
    private final QpContext[][] pages;
    /** The next number the allocator tries. Control path, under the table's lock. */
    private int cursor;
    private int size;
    /** Numbers the allocator skips though no QP has them. Control path, under the table's lock. */
    private final IntHashSet held = new IntHashSet();

    /** A table of the whole QPN space whose allocator starts at a random number. */
    public QpTable()
    {
        this(FIRST_QPN + ThreadLocalRandom.current().nextInt(MAX_QPN - FIRST_QPN + 1), MAX_QPN);
    }

    /**
     * A table of QPNs up to {@code maxQpn} whose allocator starts at {@code startQpn}: a smaller space to test
     * wrap-around and exhaustion, a fixed start where a run must be reproduced.
     */
    public QpTable(final int startQpn, final int maxQpn)
    {
        if (maxQpn < FIRST_QPN || maxQpn > MAX_QPN || startQpn < FIRST_QPN || startQpn > maxQpn)
        {
            throw new IllegalArgumentException("start " + startQpn + " and last QPN " + maxQpn + " out of range " +
                FIRST_QPN + ".." + MAX_QPN);
        }
        this.maxQpn = maxQpn;
        this.cursor = startQpn;
        this.pages = new QpContext[(maxQpn >>> PAGE_SHIFT) + 1][];
    }

    /** The next free QPN, round robin from the cursor. Control path. */
    public int allocateQpn()
    {
        return allocateQpn(0, 1);
    }

    /**
     * The next free QPN with {@code qpn % shards == shard}, round robin from the cursor: engine shards number their
     * QPs apart, so that any engine thread finds a packet's owner from its destination QPN alone. Control path; the
     * number is not reserved until {@link #add}.
     *
     * @throws IllegalStateException when every number of the shard is in use.
     */
    public synchronized int allocateQpn(final int shard, final int shards)
    {
        if (shards < 1 || shard < 0 || shard >= shards)
        {
            throw new IllegalArgumentException("shard " + shard + " of " + shards);
        }
        final int first = FIRST_QPN + Math.floorMod(shard - FIRST_QPN, shards);
        final int candidates = first > maxQpn ? 0 : (maxQpn - first) / shards + 1;
        int qpn = cursor + Math.floorMod(shard - cursor, shards);
        for (int i = 0; i < candidates; i++)
        {
            if (qpn > maxQpn)
            {
                qpn = first;
            }
            if (slot(qpn) == null && !held.contains(qpn))
            {
                cursor = qpn + shards > maxQpn ? first : qpn + shards;
                return qpn;
            }
            qpn += shards;
        }
        throw new IllegalStateException("no QPN left for shard " + shard + " of " + shards + ": all " + candidates +
            " numbers " + FIRST_QPN + ".." + maxQpn + " of the shard are in use");
    }

    /** The allocator skips {@code qpn} until {@link #release}, whether a QP has it or not. Control path. */
    public synchronized void hold(final int qpn)
    {
        held.add(qpn);
    }

    /** Ends a {@link #hold}: the number may be handed out again. Control path. */
    public synchronized void release(final int qpn)
    {
        held.remove(qpn);
    }

    /** Whether {@code qpn} is {@linkplain #hold held}. */
    public synchronized boolean isHeld(final int qpn)
    {
        return held.contains(qpn);
    }

    public synchronized void add(final QpContext qp)
    {
        final int qpn = qp.qpn;
        if (qpn < GSI_QPN || qpn > maxQpn)
        {
            throw new IllegalArgumentException("QPN " + qpn + " out of range " + GSI_QPN + ".." + maxQpn);
        }
        QpContext[] page = pages[qpn >>> PAGE_SHIFT];
        if (page == null)
        {
            page = new QpContext[PAGE_SIZE];
            PAGES.setRelease(pages, qpn >>> PAGE_SHIFT, page);
        }
        if (page[qpn & PAGE_MASK] != null)
        {
            throw new IllegalStateException("QPN " + qpn + " already in use");
        }
        SLOTS.setRelease(page, qpn & PAGE_MASK, qp);
        size++;
    }

    public synchronized void remove(final QpContext qp)
    {
        final int qpn = qp.qpn;
        if (qpn < 0 || qpn > maxQpn)
        {
            return;
        }
        final QpContext[] page = pages[qpn >>> PAGE_SHIFT];
        if (page != null && page[qpn & PAGE_MASK] == qp)
        {
            SLOTS.setRelease(page, qpn & PAGE_MASK, null);
            size--;
        }
    }

    /** The QP with this number, or null. Any thread; allocates nothing. */
    public QpContext get(final int qpn)
    {
        return qpn < 0 || qpn > maxQpn ? null : slot(qpn);
    }

    /** QPs in the table. */
    public synchronized int size()
    {
        return size;
    }

    private QpContext slot(final int qpn)
    {
        final QpContext[] page = (QpContext[])PAGES.getAcquire(pages, qpn >>> PAGE_SHIFT);
        return page == null ? null : (QpContext)SLOTS.getAcquire(page, qpn & PAGE_MASK);
    }
}
