package io.rnic.transport;

/**
 * The RC timers of an engine's QPs (local ACK timeout, RNR wait) on a hashed timer wheel, so that a duty cycle
 * looks only at the spokes whose time has come instead of at every QP. Each QP has at most one entry, for its
 * earliest deadline, linked into its spoke through fields of the QP itself: scheduling, cancelling and expiring
 * allocate nothing. An entry beyond one revolution sits in its spoke until its deadline passes. When the clock jumps
 * by more than a revolution (a virtual clock), one poll visits every spoke once. Engine thread only.
 */
final class QpTimerWheel
{
    /** What fires: the QP whose deadline passed (already removed from the wheel). */
    @FunctionalInterface
    interface Expiry
    {
        void onExpiry(QpContext qp);
    }

    private final int tickShift;
    private final int mask;
    private final QpContext[] spokes;
    private long currentTick;
    private int size;
    /** No entry is due before this (a lower bound): most polls end at one comparison. */
    private long earliestNs = Long.MAX_VALUE;

    /**
     * @param tickNsPowerOfTwo resolution of the wheel, a power of two in nanoseconds.
     * @param spokeCount       spokes, a power of two: one revolution is {@code tickNs × spokeCount}.
     */
    QpTimerWheel(final long startNs, final long tickNsPowerOfTwo, final int spokeCount)
    {
        if (Long.bitCount(tickNsPowerOfTwo) != 1 || Integer.bitCount(spokeCount) != 1)
        {
            throw new IllegalArgumentException("tick " + tickNsPowerOfTwo + " ns and " + spokeCount +
                " spokes must be powers of two");
        }
        this.tickShift = Long.numberOfTrailingZeros(tickNsPowerOfTwo);
        this.mask = spokeCount - 1;
        this.spokes = new QpContext[spokeCount];
        this.currentTick = startNs >> tickShift;
    }

    int size()
    {
        return size;
    }

    /** Sets (or moves) the QP's entry to {@code deadlineNs}. */
    void schedule(final QpContext qp, final long deadlineNs)
    {
        if (qp.inTimerWheel)
        {
            if (qp.timerDeadlineNs == deadlineNs)
            {
                return;
            }
            unlink(qp);
        }
        final int spoke = (int)((deadlineNs >> tickShift) & mask);
        final QpContext head = spokes[spoke];
        qp.timerNext = head;
        qp.timerPrev = null;
        if (head != null)
        {
            head.timerPrev = qp;
        }
        spokes[spoke] = qp;
        qp.timerDeadlineNs = deadlineNs;
        qp.inTimerWheel = true;
        size++;
        if (deadlineNs - earliestNs < 0)
        {
            earliestNs = deadlineNs;
        }
    }

    void cancel(final QpContext qp)
    {
        if (qp.inTimerWheel)
        {
            unlink(qp);
        }
    }

    /** Expires every entry whose deadline is at or before {@code nowNs}; returns how many fired. */
    int poll(final long nowNs, final Expiry expiry)
    {
        final long nowTick = nowNs >> tickShift;
        if (size == 0 || nowNs - earliestNs < 0)
        {
            currentTick = Math.max(currentTick, nowTick);
            return 0;
        }
        final long ticks = Math.min(nowTick - currentTick + 1, spokes.length);
        int fired = 0;
        for (long t = 0; t < ticks; t++)
        {
            final int spoke = (int)((currentTick + t) & mask);
            QpContext qp = spokes[spoke];
            while (qp != null)
            {
                final QpContext next = qp.timerNext;
                if (qp.timerDeadlineNs - nowNs <= 0)
                {
                    unlink(qp);
                    expiry.onExpiry(qp); // may schedule again: into a later spoke, or this one if still due
                    fired++;
                }
                qp = next;
            }
        }
        currentTick = Math.max(currentTick, nowTick);
        // everything due by now fired; what is left is due at the next tick at the earliest (an entry later in
        // this tick fires at the start of the next one: within the wheel's resolution)
        earliestNs = (currentTick + 1) << tickShift;
        return fired;
    }

    private void unlink(final QpContext qp)
    {
        final QpContext next = qp.timerNext;
        final QpContext prev = qp.timerPrev;
        if (prev != null)
        {
            prev.timerNext = next;
        }
        else
        {
            spokes[(int)((qp.timerDeadlineNs >> tickShift) & mask)] = next;
        }
        if (next != null)
        {
            next.timerPrev = prev;
        }
        qp.timerNext = null;
        qp.timerPrev = null;
        qp.inTimerWheel = false;
        size--;
    }
}
