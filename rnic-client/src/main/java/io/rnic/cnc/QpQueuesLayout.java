package io.rnic.cnc;

import io.rnic.verbs.WorkRequestRing;
import org.agrona.BitUtil;

/**
 * The shared-memory file of a client's QP: a header the driver keeps current (the QP's state, its number), then the
 * send queue and the receive queue, rings the client produces into and the driver's engine thread consumes
 * ({@link WorkRequestRing}). The client makes the file at {@link #fileLength}; the driver checks that length, formats
 * the rings and answers; the client then attaches to them. A client's SRQ has a file of its own holding its receive
 * ring alone ({@link #srqFileLength}).
 */
public final class QpQueuesLayout
{
    /** The QP's {@link io.rnic.verbs.QpState} ordinal, written by the driver as the state changes. */
    public static final int STATE_OFFSET = 0;
    public static final int QPN_OFFSET = 4;
    public static final int HEADER_LENGTH = 128;
    /** Every shared file a client makes (a QP's, a CQ's, an SRQ's, its event ring's) is whole pages of this. */
    public static final int FILE_ALIGNMENT = 4096;

    private QpQueuesLayout()
    {
    }

    public static int sendQueueOffset()
    {
        return HEADER_LENGTH;
    }

    public static int sendQueueLength(final int maxSendWr, final int maxSendSge)
    {
        return WorkRequestRing.requiredBytes(maxSendWr, maxSendSge);
    }

    public static int recvQueueOffset(final int maxSendWr, final int maxSendSge)
    {
        return BitUtil.align(HEADER_LENGTH + sendQueueLength(maxSendWr, maxSendSge), BitUtil.CACHE_LINE_LENGTH);
    }

    public static int recvQueueLength(final int maxRecvWr, final int maxRecvSge)
    {
        return WorkRequestRing.requiredBytes(maxRecvWr, maxRecvSge);
    }

    /** The length of a client CQ's shared file: its ring ({@code CompletionQueue.requiredBytes}), in whole pages. */
    public static long completionQueueFileLength(final int entries)
    {
        return BitUtil.align((long)io.rnic.verbs.CompletionQueue.requiredBytes(entries), FILE_ALIGNMENT);
    }

    /**
     * The length of a client SRQ's shared file: its receive ring of {@code maxWr} requests of up to {@code maxSge}
     * entries, from byte 0, in whole pages.
     */
    public static long srqFileLength(final int maxWr, final int maxSge)
    {
        return BitUtil.align((long)srqRingLength(maxWr, maxSge), FILE_ALIGNMENT);
    }

    public static int srqRingLength(final int maxWr, final int maxSge)
    {
        return WorkRequestRing.HEADER_LENGTH + BitUtil.findNextPositivePowerOfTwo(maxWr) *
            WorkRequestRing.entryLength(WorkRequestRing.RECV, maxSge);
    }

    public static long fileLength(final int maxSendWr, final int maxSendSge, final int maxRecvWr, final int maxRecvSge)
    {
        return BitUtil.align(
            (long)recvQueueOffset(maxSendWr, maxSendSge) + recvQueueLength(maxRecvWr, maxRecvSge), FILE_ALIGNMENT);
    }
}
