package io.rnic.transport;

import org.agrona.DirectBuffer;

/**
 * Where the engine's outgoing frames go: a port's transmit path, a simulated link, a capture. Called on the engine
 * thread; the frame is only valid during the call (copy it to keep it).
 */
@FunctionalInterface
public interface PacketSink
{
    void send(DirectBuffer frame, int offset, int length);

    /**
     * Whether a frame sent now would be queued, not dropped for want of transmit space. The requester asks before
     * each packet and, on false, leaves the rest of its work for a later duty cycle (a full port pushes back).
     */
    default boolean hasRoom()
    {
        return true;
    }

    /**
     * How many times frames sent here have been pushed to the wire: a port's flushes, whether the engine's driver
     * asked or the port's queue filled. What the responder reads to know that a response may have reached the
     * requester (max_dest_rd_atomic). 0 for a sink whose frames cannot reach the peer before the engine's duty
     * cycle is over (the default, as a simulated link delivers them between cycles); a sink whose frames are visible
     * at once counts every frame.
     */
    default long pushes()
    {
        return 0;
    }
}
