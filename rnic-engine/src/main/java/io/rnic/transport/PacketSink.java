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
}
