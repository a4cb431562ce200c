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
}
