package io.rnic.datapath.port;

import org.agrona.DirectBuffer;

/**
 * Receives the frames of one {@link PacketPort#receive} burst. The buffer is only valid during the call: the port
 * may reuse or return the memory behind it (a PACKET_MMAP block, a DPDK mbuf) as soon as the call returns.
 */
@FunctionalInterface
public interface FrameHandler
{
    void onFrame(DirectBuffer buffer, int offset, int length);
}
