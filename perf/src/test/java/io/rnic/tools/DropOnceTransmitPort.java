package io.rnic.tools;

import io.rnic.datapath.port.FrameHandler;
import io.rnic.datapath.port.PacketPort;
import org.agrona.DirectBuffer;

import java.util.function.IntPredicate;

/**
 * A port that loses one chosen frame on its way out, as a lossy link would, and passes everything else to the port
 * it wraps: the RC ACK (opcode 0x11, IPv4) whose AETH carries a given MSN, the first time it is sent. Lets a test
 * lose exactly the ACK of a run's last message, which random loss hits only now and then.
 */
final class DropOnceTransmitPort implements PacketPort
{
    private static final int ETHERTYPE_OFFSET = 12;
    private static final int BTH_OFFSET = 14 + 20 + 8;
    private static final int AETH_OFFSET = BTH_OFFSET + 12;
    private static final int RC_ACKNOWLEDGE = 0x11;

    private final PacketPort port;
    private final IntPredicate msnToDrop;
    private boolean dropped;

    DropOnceTransmitPort(final PacketPort port, final IntPredicate msnToDrop)
    {
        this.port = port;
        this.msnToDrop = msnToDrop;
    }

    boolean dropped()
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
        if (length < AETH_OFFSET + 4 || (buffer.getShort(offset + ETHERTYPE_OFFSET) & 0xFFFF) != 0x0008)
        {
            return false; // not IPv4 (the short is read little-endian: 0x0800 on the wire)
        }
        if ((buffer.getByte(offset + BTH_OFFSET) & 0xFF) != RC_ACKNOWLEDGE)
        {
            return false;
        }
        final int msn = ((buffer.getByte(offset + AETH_OFFSET + 1) & 0xFF) << 16) |
            ((buffer.getByte(offset + AETH_OFFSET + 2) & 0xFF) << 8) | (buffer.getByte(offset + AETH_OFFSET + 3) & 0xFF);
        return msnToDrop.test(msn);
    }

    @Override
    public int receive(final FrameHandler handler, final int limit)
    {
        return port.receive(handler, limit);
    }

    @Override
    public int flush()
    {
        return port.flush();
    }

    @Override
    public String name()
    {
        return port.name();
    }

    @Override
    public long macAddress()
    {
        return port.macAddress();
    }

    @Override
    public int mtu()
    {
        return port.mtu();
    }

    @Override
    public long framesReceived()
    {
        return port.framesReceived();
    }

    @Override
    public long framesTransmitted()
    {
        return port.framesTransmitted();
    }

    @Override
    public long receiveDrops()
    {
        return port.receiveDrops();
    }

    @Override
    public long transmitDrops()
    {
        return port.transmitDrops();
    }

    @Override
    public void close()
    {
        port.close();
    }
}
