package io.rnic.tools;

import io.rnic.datapath.port.FrameHandler;
import io.rnic.datapath.port.PacketPort;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * Ports of which the first to send a RoCEv2 request takes a given time to hand it over, as a JVM's first packet does: built in code that
 * has never run (the ICRC's Vector API set-up), {@code write-lat}'s first WRITE left its engine thread 90 to 160 ms
 * after the duty cycle read the clock (veth, 2 loaded cores), longer than the tools' local ACK timeout (14: 67 ms).
 * The stall holds the calling engine thread, between the engine's clock reading and the frame leaving, where that
 * work happens. The frame, and whatever follows it, then reach the wrapped port only at the end of the engine's next
 * duty cycle (its next receive, then flush): a timer that expired during the stall fires before any answer can
 * arrive, every time.
 */
public final class SlowFirstRequestPort extends ForwardingPacketPort
{
    private static final int FIRST_RESPONSE_OPCODE = 0x0D; // RC RDMA READ response first; 0x0D..0x12 answer

    private final long stallNs;
    private final AtomicBoolean firstRequestSent;
    private final List<UnsafeBuffer> held = new ArrayList<>();
    private boolean stalled;
    private int receivesSinceStall;

    /**
     * @param firstRequestSent shared by the ports of a run: only the run's very first request is slow (a slow answer
     *                         would hold back the ACK of that request too, and the peer's timeout would be real).
     */
    public SlowFirstRequestPort(final PacketPort port, final long stallNs, final AtomicBoolean firstRequestSent)
    {
        super(port);
        this.stallNs = stallNs;
        this.firstRequestSent = firstRequestSent;
    }

    /** Whether this port stalled the run's first request (and so the test ran what it means to). */
    public boolean stalled()
    {
        return stalled;
    }

    @Override
    public boolean transmit(final DirectBuffer buffer, final int offset, final int length)
    {
        if (!stalled && isRcRequest(buffer, offset, length) && firstRequestSent.compareAndSet(false, true))
        {
            stalled = true;
            final long untilNs = System.nanoTime() + stallNs;
            for (long leftNs = stallNs; leftNs > 0; leftNs = untilNs - System.nanoTime())
            {
                LockSupport.parkNanos(leftNs);
            }
        }
        if (stalled && receivesSinceStall < 1 || !held.isEmpty())
        {
            final UnsafeBuffer copy = new UnsafeBuffer(new byte[length]);
            copy.putBytes(0, buffer, offset, length);
            held.add(copy);
            return true;
        }
        return port.transmit(buffer, offset, length);
    }

    /** RC (opcode 0x00..0x1F) and a request: not an ACK, READ response or atomic ACK (0x0D..0x12). */
    private static boolean isRcRequest(final DirectBuffer buffer, final int offset, final int length)
    {
        if (!isIpv4(buffer, offset, length, BTH_OFFSET_IPV4 + 12))
        {
            return false;
        }
        if ((buffer.getShort(offset + 14 + 20 + 2) & 0xFFFF) != 0xB712)
        {
            return false; // UDP destination port not 4791 (0x12B7 on the wire)
        }
        final int opcode = buffer.getByte(offset + BTH_OFFSET_IPV4) & 0xFF;
        return opcode < 0x20 && (opcode < FIRST_RESPONSE_OPCODE || opcode > 0x12);
    }

    @Override
    public int receive(final FrameHandler handler, final int limit)
    {
        if (stalled)
        {
            receivesSinceStall++;
        }
        return port.receive(handler, limit);
    }

    @Override
    public int flush()
    {
        if (!held.isEmpty() && receivesSinceStall >= 1)
        {
            for (final UnsafeBuffer frame : held)
            {
                port.transmit(frame, 0, frame.capacity());
            }
            held.clear();
        }
        return port.flush();
    }
}
