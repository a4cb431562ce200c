package io.rnic.transport;

import io.rnic.wire.Opcode;
import io.rnic.wire.RocePacket;
import org.agrona.DirectBuffer;

/**
 * Receives the SENDs and WRITEs of UC QPs: RC's placement without acknowledgements, where a gap in the PSNs, a
 * broken FIRST/MIDDLE/LAST sequence or a packet that cannot be placed drops the rest of the message (IBTA 9.7.5.1.4,
 * C9-149) and the next FIRST or ONLY starts afresh. Nothing is ever sent back. Engine thread only.
 */
final class UcResponder
{
    private final MessagePlacement placement;
    private final TransportCounters counters;

    UcResponder(final MessagePlacement placement, final TransportCounters counters)
    {
        this.placement = placement;
        this.counters = counters;
    }

    void onRequest(final QpContext qp, final RocePacket packet, final DirectBuffer buffer)
    {
        final int psn = packet.psn();
        final int opcode = packet.opcode();
        final boolean starts = Opcode.has(opcode, Opcode.FLAG_FIRST | Opcode.FLAG_ONLY);
        if (psn != qp.ePsn)
        {
            counters.increment(TransportCounter.OUT_OF_SEQUENCE);
            abandonMessage(qp);
            if (!starts)
            {
                // A gap inside a message: the rest of it is dropped (IBTA 9.7.5.1.4 / C9-149).
                qp.ucDroppingMessage = true;
                counters.increment(TransportCounter.DROPPED_UC_MESSAGE);
                qp.ePsn = Psn.next(psn);
                return;
            }
        }
        qp.ePsn = Psn.next(psn);
        if (qp.ucDroppingMessage)
        {
            if (!starts)
            {
                return;
            }
            qp.ucDroppingMessage = false;
        }
        if (!Responder.sequenceAllowed(qp.lastRequestOpcode, opcode))
        {
            abandonMessage(qp);
            dropMessage(qp, opcode);
            return;
        }
        if (!Responder.fitsPathMtu(opcode, packet.payloadLength(), qp.mtuBytes))
        {
            counters.increment(TransportCounter.PACKET_LENGTH_ERROR);
            abandonMessage(qp);
            dropMessage(qp, opcode);
            return;
        }
        final int outcome = Opcode.has(opcode, Opcode.FLAG_SEND) ?
            placement.send(qp, packet, buffer) : placement.write(qp, packet, buffer);
        if (outcome == MessagePlacement.PLACED)
        {
            qp.lastRequestOpcode = Opcode.has(opcode, Opcode.FLAG_FIRST | Opcode.FLAG_MIDDLE) ? opcode : -1;
            return;
        }
        // a receive that completed in error has put the QP in ERR: nothing is left to drop
        if (outcome != MessagePlacement.LOCAL_LENGTH_ERROR && outcome != MessagePlacement.LOCAL_PROTECTION_ERROR)
        {
            dropMessage(qp, opcode);
        }
        qp.lastRequestOpcode = -1;
    }

    private static void abandonMessage(final QpContext qp)
    {
        // A partly received SEND leaves its receive WQE for the next message, as ibverbs UC semantics say.
        qp.recvInProgress = false;
        qp.recvOffset = 0;
        qp.writeRKey = 0;
        qp.writeRemaining = 0;
        qp.lastRequestOpcode = -1;
    }

    private void dropMessage(final QpContext qp, final int opcode)
    {
        counters.increment(TransportCounter.DROPPED_UC_MESSAGE);
        qp.ucDroppingMessage = !Opcode.has(opcode, Opcode.FLAG_LAST | Opcode.FLAG_ONLY);
        qp.lastRequestOpcode = -1;
        qp.recvInProgress = false;
        qp.recvOffset = 0;
    }
}
