package io.rnic.transport;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * How application threads tell the engine that a QP has work, so that the engine's duty cycle visits the QPs that
 * have some rather than every QP it owns (a NIC's doorbell: the post path writes the work request, then rings).
 * <p>
 * A lock-free stack of QPs linked through {@link QpContext#doorbellNext}, pushed by any number of threads with a
 * CAS and taken whole by the engine with one swap, so nothing is allocated on either side. A QP is in the stack at
 * most once: ringing first sets the QP's {@link QpContext#doorbellRung} flag from 0 to 1 and only the thread that
 * set it pushes; a QP whose flag is already set is already on its way to the engine.
 * <p>
 * No wake-up is lost: the engine clears the flag ({@link #answer}, a volatile write) before it looks at the QP's
 * rings (volatile reads of their producer positions, {@code WorkRequestRing.isPosted}), and a poster claims its entry
 * (a volatile CAS of the producer position) before it reads the flag. Either the poster sees the flag clear and rings again, or the engine sees the posted slot.
 */
final class Doorbell
{
    private static final VarHandle HEAD;
    private static final VarHandle RUNG;

    static
    {
        try
        {
            final MethodHandles.Lookup lookup = MethodHandles.lookup();
            HEAD = lookup.findVarHandle(Doorbell.class, "head", QpContext.class);
            RUNG = lookup.findVarHandle(QpContext.class, "doorbellRung", int.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    @SuppressWarnings("unused") // through HEAD
    private volatile QpContext head;

    /** Tells the engine that {@code qp} has work. Any thread; lock-free, allocates nothing. */
    void ring(final QpContext qp)
    {
        if ((int)RUNG.getVolatile(qp) != 0 || !RUNG.compareAndSet(qp, 0, 1))
        {
            return;
        }
        QpContext top;
        do
        {
            top = (QpContext)HEAD.getVolatile(this);
            qp.doorbellNext = top;
        }
        while (!HEAD.compareAndSet(this, top, qp));
    }

    /**
     * Takes every QP rung since the last call, linked through {@link QpContext#doorbellNext} in the order they rang
     * (oldest first), or null. Engine thread; call {@link #answer} on each before looking at its work.
     */
    QpContext takeAll()
    {
        if (HEAD.getVolatile(this) == null)
        {
            return null;
        }
        QpContext qp = (QpContext)HEAD.getAndSet(this, (QpContext)null);
        QpContext reversed = null;
        while (qp != null)
        {
            final QpContext next = qp.doorbellNext;
            qp.doorbellNext = reversed;
            reversed = qp;
            qp = next;
        }
        return reversed;
    }

    /**
     * Clears the QP's flag, so that the next post rings again; returns the next QP of the list {@link #takeAll}
     * gave. Engine thread.
     */
    QpContext answer(final QpContext qp)
    {
        final QpContext next = qp.doorbellNext;
        qp.doorbellNext = null;
        RUNG.setVolatile(qp, 0);
        return next;
    }
}
