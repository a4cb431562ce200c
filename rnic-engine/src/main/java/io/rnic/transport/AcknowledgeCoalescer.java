package io.rnic.transport;

import io.rnic.verbs.QpState;
import io.rnic.wire.AethFlyweight;
import io.rnic.wire.FrameSpec;
import io.rnic.wire.Opcode;

import java.util.Arrays;

/**
 * Every ACK and NAK the responder sends (rxe's {@code send_ack}), with the positive ACKs coalesced: one per QP per
 * receive burst, for the last packet that asked for one (an ACK acknowledges every PSN up to its own). Anything else
 * sent on the QP first flushes the ACK it owes, so the requester sees responses in PSN order. Kept apart from the
 * request execution so that the engine can flush the burst's ACKs on its own schedule
 * ({@link RnicEngine#flushAcknowledges}). Engine thread only.
 */
final class AcknowledgeCoalescer
{
    private final TransmitPath tx;
    private final Completions completions;
    private final TransportCounters counters;
    private QpContext[] pendingAcks = new QpContext[16];
    private int pendingAckCount;

    AcknowledgeCoalescer(final TransmitPath tx, final Completions completions, final TransportCounters counters)
    {
        this.tx = tx;
        this.completions = completions;
        this.counters = counters;
    }

    /** Owes the requester an ACK up to {@code psn}, sent at the end of the receive burst ({@link #flushAll}). */
    void defer(final QpContext qp, final int psn)
    {
        if (!qp.ackPending)
        {
            if (pendingAckCount == pendingAcks.length)
            {
                pendingAcks = Arrays.copyOf(pendingAcks, pendingAckCount * 2); // grows with QPs, not packets
            }
            pendingAcks[pendingAckCount++] = qp;
            qp.ackPending = true;
        }
        qp.ackPendingPsn = psn;
    }

    /** Sends the ACKs deferred during the last receive burst; returns how many. */
    int flushAll()
    {
        final int count = pendingAckCount;
        for (int i = 0; i < count; i++)
        {
            final QpContext qp = pendingAcks[i];
            pendingAcks[i] = null;
            flush(qp);
        }
        pendingAckCount = 0;
        return count;
    }

    /** Sends the ACK the QP owes, unless responses are queued: then it waits behind them ({@link ResponsePacer}). */
    void flush(final QpContext qp)
    {
        if (qp.ackPending && qp.responses.isEmpty())
        {
            qp.ackPending = false;
            final QpState state = qp.state;
            if (state == QpState.RTR || state == QpState.RTS || state == QpState.SQD || state == QpState.SQE)
            {
                counters.increment(TransportCounter.ACKS_SENT);
                sendFrame(qp, qp.ackPendingPsn, AethFlyweight.ackSyndrome(AethFlyweight.CREDITS_INVALID));
            }
        }
    }

    /**
     * A response to {@code firstPsn} is being queued: with nothing queued, the deferred ACK for earlier requests goes
     * first; behind queued responses, one for earlier PSNs is implied by the response (its AETH acknowledges them).
     */
    void beforeResponse(final QpContext qp, final int firstPsn)
    {
        if (qp.responses.isEmpty())
        {
            flush(qp);
        }
        else if (qp.ackPending && Psn.isBefore(qp.ackPendingPsn, firstPsn))
        {
            qp.ackPending = false;
        }
    }

    /** Sends an acknowledgement with {@code syndrome} (an RNR NAK, a NAK) now, behind the ACK the QP owes. */
    void send(final QpContext qp, final int psn, final int syndrome)
    {
        flush(qp);
        sendFrame(qp, psn, syndrome);
    }

    /** The PSN sequence error NAK: the requester resends from the PSN we expect. */
    void sequenceNak(final QpContext qp)
    {
        counters.increment(TransportCounter.SEQ_NAK_SENT);
        send(qp, qp.ePsn, AethFlyweight.nakSyndrome(AethFlyweight.NAK_PSN_SEQUENCE_ERROR));
    }

    /** NAK with a class of error that ends the connection: the requester completes with it, we move to ERR. */
    void remoteError(final QpContext qp, final int psn, final int nakCode)
    {
        switch (nakCode)
        {
            case AethFlyweight.NAK_REMOTE_ACCESS_ERROR -> counters.increment(TransportCounter.REMOTE_ACCESS_NAK_SENT);
            case AethFlyweight.NAK_INVALID_REQUEST -> counters.increment(TransportCounter.INVALID_REQUEST_NAK_SENT);
            default -> counters.increment(TransportCounter.REMOTE_OPERATIONAL_NAK_SENT);
        }
        send(qp, psn, AethFlyweight.nakSyndrome(nakCode));
        completions.moveToError(qp);
    }

    private void sendFrame(final QpContext qp, final int psn, final int syndrome)
    {
        final FrameSpec spec = qp.frame.destinationQp(qp.destQpn).ackRequest(false).solicitedEvent(false);
        spec.opcode(Opcode.RC_ACKNOWLEDGE).psn(psn).aeth(syndrome, qp.msn);
        tx.send(spec, 0);
    }
}
