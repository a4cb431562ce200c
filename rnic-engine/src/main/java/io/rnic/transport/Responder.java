package io.rnic.transport;

import io.rnic.verbs.QpState;
import io.rnic.wire.Opcode;
import io.rnic.wire.RocePacket;
import org.agrona.DirectBuffer;

/**
 * The responder (rxe's {@code rxe_resp.c}): takes the requests {@link RnicEngine} routes to it, drops those a QP in
 * RESET, INIT or ERR may not receive, and hands each to the receive path of its QP's type: {@link RcResponder}
 * (execution, duplicates, NAKs), {@link UcResponder} (no acknowledgements, a gap drops the message) or
 * {@link UdResponder} (datagrams). What the responder sends back outlives the request: READ responses and atomic
 * acknowledgements are paced across duty cycles ({@link ResponsePacer}), positive ACKs coalesced per receive burst
 * ({@link AcknowledgeCoalescer}); the engine drives both through this class. Engine thread only.
 */
final class Responder
{
    private final AcknowledgeCoalescer acknowledges;
    private final ResponsePacer pacer;
    private final RcResponder rc;
    private final UcResponder uc;
    private final UdResponder ud;
    private final TransportCounters counters;

    Responder(
        final TransmitPath tx, final LocalMemory memory, final Completions completions, final TransportCounters counters)
    {
        final MessagePlacement placement = new MessagePlacement(memory, completions, counters);
        this.acknowledges = new AcknowledgeCoalescer(tx, completions, counters);
        this.pacer = new ResponsePacer(tx, memory.regions(), acknowledges, counters);
        this.rc = new RcResponder(memory.regions(), placement, pacer, acknowledges, counters);
        this.uc = new UcResponder(placement, counters);
        this.ud = new UdResponder(memory, completions, counters);
        this.counters = counters;
    }

    void onRequest(final QpContext qp, final RocePacket packet, final DirectBuffer buffer, final long nowNs)
    {
        final QpState state = qp.state;
        if (state == QpState.RESET || state == QpState.INIT || state == QpState.ERR)
        {
            counters.increment(TransportCounter.DROPPED_QP_STATE);
            return;
        }
        switch (qp.type)
        {
            case RC -> rc.onRequest(qp, packet, buffer, nowNs);
            case UC -> uc.onRequest(qp, packet, buffer);
            case UD -> ud.onRequest(qp, packet, buffer);
        }
    }

    void gsiSourceListener(final GsiSourceListener listener)
    {
        ud.sourceListener = listener;
    }

    /** See {@link ResponsePacer#send}. Returns the packets sent. */
    int sendResponses(final QpContext qp, final long nowNs, final int budget)
    {
        return pacer.send(qp, nowNs, budget);
    }

    /** Sends the ACKs deferred during the last receive burst; returns how many. */
    int flushAcknowledges()
    {
        return acknowledges.flushAll();
    }

    /** Sends the ACK the QP owes now, rather than at the end of the receive burst (see {@link RnicEngine#modifyQp}). */
    void flushAcknowledge(final QpContext qp)
    {
        acknowledges.flush(qp);
    }

    /** See {@link ResponsePacer#endDutyCycle}. */
    void endDutyCycle()
    {
        pacer.endDutyCycle();
    }

    /**
     * rxe's {@code check_length}: no packet carries more than the path MTU, a message is cut in full MTU-sized
     * packets (FIRST and MIDDLE exactly the MTU) and its LAST carries the rest, at least one byte; an ONLY packet may
     * be empty. A requester that does otherwise is broken or hostile: its data must not reach memory.
     */
    static boolean fitsPathMtu(final int opcode, final int payloadBytes, final int mtuBytes)
    {
        if (payloadBytes > mtuBytes)
        {
            return false;
        }
        if (Opcode.has(opcode, Opcode.FLAG_FIRST | Opcode.FLAG_MIDDLE))
        {
            return payloadBytes == mtuBytes;
        }
        return payloadBytes > 0 || !Opcode.has(opcode, Opcode.FLAG_LAST);
    }

    /**
     * rxe's {@code check_op_seq}: FIRST/MIDDLE of a message must be followed by MIDDLE/LAST of the same kind;
     * anything else starts one.
     */
    static boolean sequenceAllowed(final int lastOpcode, final int opcode)
    {
        if (lastOpcode >= 0)
        {
            final int kind = Opcode.FLAG_SEND | Opcode.FLAG_WRITE;
            return Opcode.has(opcode, Opcode.FLAG_MIDDLE | Opcode.FLAG_LAST) &&
                (Opcode.mask(opcode) & kind) == (Opcode.mask(lastOpcode) & kind);
        }
        return Opcode.has(opcode, Opcode.FLAG_FIRST | Opcode.FLAG_ONLY);
    }
}
