package io.rnic.tools;

import io.rnic.datapath.port.PacketPort;
import io.rnic.transport.LocalPort;

/** How a tool gets its packet port and the port's addressing (MAC, GID table), by port kind and interface name. */
@FunctionalInterface
public interface PortFactory
{
    /** An open port and its addressing. */
    record OpenedPort(PacketPort port, LocalPort addressing)
    {
    }

    /**
     * @throws IllegalArgumentException naming the problem: an unknown kind, a missing interface, missing privileges.
     */
    OpenedPort open(String kind, String iface);
}
