package io.rnic.tools;

import io.rnic.datapath.port.FrameHandler;
import io.rnic.datapath.port.PacketPort;
import io.rnic.datapath.port.PortCounters;
import org.agrona.DirectBuffer;

/**
 * A port that hands every call to the port it wraps, for the tests' fault-injecting ports to override only the
 * calls they change (what leaves, and when). The interface's default methods are deliberately not forwarded: a
 * wrapped port that lent its transmit memory ({@link PacketPort#claimFrame}) would let frames reach the wire past
 * the wrapper's {@link #transmit}, and the faults would not happen.
 */
abstract class ForwardingPacketPort implements PacketPort
{
    /** Where the BTH starts in a RoCEv2 frame over IPv4: after the Ethernet, IPv4 and UDP headers. */
    protected static final int BTH_OFFSET_IPV4 = 14 + 20 + 8;

    private static final int ETHERTYPE_OFFSET = 12;

    /** The port frames really travel through. */
    protected final PacketPort port;

    protected ForwardingPacketPort(final PacketPort port)
    {
        this.port = port;
    }

    /**
     * Whether the frame is IPv4 and long enough to hold the first {@code headersLength} bytes the caller reads, so
     * that a test port picks its frames without reading past one.
     */
    protected static boolean isIpv4(
        final DirectBuffer buffer, final int offset, final int length, final int headersLength)
    {
        // the short is read little-endian: 0x0800 on the wire
        return length >= headersLength && (buffer.getShort(offset + ETHERTYPE_OFFSET) & 0xFFFF) == 0x0008;
    }

    @Override
    public boolean transmit(final DirectBuffer buffer, final int offset, final int length)
    {
        return port.transmit(buffer, offset, length);
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
    public PortCounters counters()
    {
        return port.counters();
    }

    @Override
    public void close()
    {
        port.close();
    }
}
