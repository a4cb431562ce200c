package io.rnic.transport;

/**
 * Told the source of each datagram QP1 (the GSI, the CM's QP) receives, once the frame is validated: its IP address
 * as a GID ({@code ::ffff:a.b.c.d} for IPv4) and the Ethernet source MAC it came from. What the kernel's CM reads from
 * a completion's {@code smac} ({@code IB_WC_WITH_SMAC}): the datapath learns the requester's MAC from it, so that the
 * answer to a REQ leaves without an ARP round trip. Engine thread; must not allocate.
 */
@FunctionalInterface
public interface GsiSourceListener
{
    void onGsiDatagram(long sourceGidHigh, long sourceGidLow, long sourceMac);
}
