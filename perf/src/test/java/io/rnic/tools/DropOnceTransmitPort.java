package io.rnic.tools;

import io.rnic.datapath.port.PacketPort;
import org.agrona.DirectBuffer;

import java.util.function.IntPredicate;

/**
 * A port that loses one chosen frame on its way out, as a lossy link would, and passes everything else to the port
 * it wraps: the RC ACK (opcode 0x11, IPv4) whose AETH carries a given MSN, the first time it is sent. Lets a test
 * lose exactly the ACK of a run's last message, which random loss hits only now and then.
 */
public final class DropOnceTransmitPort extends ForwardingPacketPort
{
    private static final int AETH_OFFSET = BTH_OFFSET_IPV4 + 12;
    private static final int RC_ACKNOWLEDGE = 0x11;

    private final IntPredicate msnToDrop;
    private boolean dropped;

    public DropOnceTransmitPort(final PacketPort port, final IntPredicate msnToDrop)
    {
        super(port);
        this.msnToDrop = msnToDrop;
    }

    public boolean dropped()
    {
        return dropped;
    }

    @Override
    public boolean transmit(final DirectBuffer buffer, final int offset, final int length)
    {
        if (!dropped && isAckWithChosenMsn(buffer, offset, length))
        {
            dropped = true;
            return true; // sent, as far as the engine can tell: lost on the wire
        }
        return port.transmit(buffer, offset, length);
    }

    private boolean isAckWithChosenMsn(final DirectBuffer buffer, final int offset, final int length)
    {
        if (!isIpv4(buffer, offset, length, AETH_OFFSET + 4) ||
            (buffer.getByte(offset + BTH_OFFSET_IPV4) & 0xFF) != RC_ACKNOWLEDGE)
        {
            return false;
        }
        final int msn = ((buffer.getByte(offset + AETH_OFFSET + 1) & 0xFF) << 16) |
            ((buffer.getByte(offset + AETH_OFFSET + 2) & 0xFF) << 8) | (buffer.getByte(offset + AETH_OFFSET + 3) & 0xFF);
        return msnToDrop.test(msn);
    }
}
