package io.rnic.tools;

import io.rnic.datapath.port.PacketPort;
import io.rnic.transport.LocalPort;

/** How a tool gets its packet port and the port's addressing (MAC, GID table), by port kind and interface name. */
@FunctionalInterface
public interface PortFactory
{
    /** The open port queues (one per engine thread) and their addressing. */
    record OpenedPort(PacketPort[] ports, LocalPort addressing)
    {
        void close()
        {
            for (final PacketPort port : ports)
            {
                port.close();
            }
        }
    }

    /**
     * @param engines     how many queues (engine threads) to open on the interface.
     * @param qdiscBypass AF_PACKET: skip the interface's queueing discipline.
     * @throws IllegalArgumentException naming the problem: an unknown kind, a missing interface, missing privileges.
     */
    OpenedPort open(String kind, String iface, int engines, boolean qdiscBypass);
}
