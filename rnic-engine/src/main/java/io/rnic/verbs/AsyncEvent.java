package io.rnic.verbs;

/**
 * An asynchronous event ({@code struct ibv_async_event}): its type, with {@code enum ibv_event_type}'s values, and
 * the object it concerns, a QP (by number) or an SRQ. Read from an {@link EventRing}; mutable and reused.
 */
public final class AsyncEvent
{
    /** {@code IBV_EVENT_SRQ_LIMIT_REACHED}: an SRQ's posted receives fell below its armed limit. */
    public static final int SRQ_LIMIT_REACHED = 15;
    /**
     * {@code IBV_EVENT_QP_LAST_WQE_REACHED}: a QP attached to an SRQ went to the error state and will take no more
     * receive work requests from it; the last one it held has been completed.
     */
    public static final int QP_LAST_WQE_REACHED = 16;

    public int eventType;
    /** The QP of a QP event, 0 otherwise. */
    public int qpNum;
    /** The SRQ of an SRQ event, null otherwise. */
    public SharedReceiveQueue srq;

    /** ibverbs' name of an event type ({@code ibv_event_type_str}). */
    public static String typeName(final int eventType)
    {
        return switch (eventType)
        {
            case SRQ_LIMIT_REACHED -> "SRQ limit reached";
            case QP_LAST_WQE_REACHED -> "last WQE reached";
            default -> "unknown";
        };
    }

    public String toString()
    {
        return "AsyncEvent{" + typeName(eventType) + " (" + eventType + ")" +
            (srq != null ? ", srq=" + srq.handle() : ", qp_num=" + qpNum) + '}';
    }
}
