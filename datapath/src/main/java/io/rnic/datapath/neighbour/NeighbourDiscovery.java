package io.rnic.datapath.neighbour;

import io.rnic.status.CounterBlock;
import io.rnic.status.CounterTypes;
import io.rnic.transport.LocalPort;
import io.rnic.transport.PacketSink;
import io.rnic.wire.InternetChecksum;
import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersManager;

import java.nio.ByteOrder;

/**
 * ARP (RFC 826) for IPv4 GIDs and neighbour discovery (RFC 4861) for IPv6 GIDs: learns MACs from what passes by,
 * answers requests for our own addresses when {@link #answerRequests} is on (a DPDK port has no kernel to answer;
 * on AF_PACKET the kernel owns the addresses and answers itself), and sends requests to resolve a peer. On a port
 * that tags its frames ({@link LocalPort#vlanId()}) its own go out tagged too, priority 0: the peers are on that
 * VLAN. Engine thread only; builds its frames in preallocated buffers.
 */
public final class NeighbourDiscovery
{
    public static final int ETHERTYPE_ARP = 0x0806;
    public static final int ETHERTYPE_IPV6 = 0x86DD;
    static final int ARP_REQUEST = 1;
    static final int ARP_REPLY = 2;
    static final int ICMPV6 = 58;
    static final int NEIGHBOR_SOLICITATION = 135;
    static final int NEIGHBOR_ADVERTISEMENT = 136;
    private static final int ETH = 14;
    private static final int ARP_LENGTH = 28;
    private static final int IPV6 = 40;
    private static final int ND_LENGTH = 32; // type..target (24) + one link-layer address option (8)
    private static final long IPV4_MAPPED = 0x0000_FFFF_0000_0000L;
    private static final long MAC_MASK = 0xFFFF_FFFF_FFFFL;

    private final LocalPort port;
    private final NeighbourTable table;
    private final boolean answerRequests;
    private final UnsafeBuffer frame = new UnsafeBuffer(BufferUtil.allocateDirectAligned(128, 64));
    /** {@link #frame} with an 802.1Q tag after the MAC addresses, on a port that tags. */
    private final UnsafeBuffer tagged = new UnsafeBuffer(BufferUtil.allocateDirectAligned(128, 64));
    private static final int REQUESTS_SENT = 0;
    private static final int REPLIES_SENT = 1;
    private static final int LEARNED = 2;
    private static final int MALFORMED = 3;
    private static final int HEARD = 4;
    private final CounterBlock counters = CounterBlock.standalone(CounterTypes.NEIGHBOUR, "neighbours: ",
        new String[]{ "requests sent", "replies sent", "neighbours learned", "malformed frames",
            "stale neighbours heard from a CM datagram" });

    public NeighbourDiscovery(final LocalPort port, final NeighbourTable table, final boolean answerRequests)
    {
        this.port = port;
        this.table = table;
        this.answerRequests = answerRequests;
    }

    public NeighbourTable table()
    {
        return table;
    }

    /** An ARP frame (the EtherType at {@code offset + 12} already checked, no VLAN tag). */
    public void onArp(final DirectBuffer buffer, final int offset, final int length, final PacketSink sink)
    {
        if (length < ETH + ARP_LENGTH || buffer.getShort(offset + ETH, ByteOrder.BIG_ENDIAN) != 1 ||
            buffer.getShort(offset + ETH + 2, ByteOrder.BIG_ENDIAN) != 0x0800 ||
            buffer.getByte(offset + ETH + 4) != 6 || buffer.getByte(offset + ETH + 5) != 4)
        {
            counters.increment(MALFORMED);
            return;
        }
        final int arp = offset + ETH;
        final int operation = buffer.getShort(arp + 6, ByteOrder.BIG_ENDIAN) & 0xFFFF;
        final long senderMac = readMac(buffer, arp + 8);
        final int senderIp = buffer.getInt(arp + 14, ByteOrder.BIG_ENDIAN);
        final int targetIp = buffer.getInt(arp + 24, ByteOrder.BIG_ENDIAN);
        if (senderIp != 0 && senderMac != port.mac())
        {
            table.learn(0, IPV4_MAPPED | (senderIp & 0xFFFF_FFFFL), senderMac);
            counters.increment(LEARNED);
        }
        if (operation == ARP_REQUEST && answerRequests && port.ownsIpv4(targetIp))
        {
            final int n = buildArp(ARP_REPLY, senderMac, senderMac, senderIp, targetIp);
            send(sink, n);
            counters.increment(REPLIES_SENT);
        }
    }

    /** An IPv6 frame carrying ICMPv6 (checked by the caller); acts on neighbour solicitations/advertisements. */
    public void onIcmpv6(final DirectBuffer buffer, final int offset, final int length, final PacketSink sink)
    {
        final int ip = offset + ETH;
        if (length < ETH + IPV6 + ND_LENGTH - 8)
        {
            return;
        }
        final int icmp = ip + IPV6;
        final int type = buffer.getByte(icmp) & 0xFF;
        if (type != NEIGHBOR_SOLICITATION && type != NEIGHBOR_ADVERTISEMENT)
        {
            return;
        }
        if ((buffer.getByte(ip + 7) & 0xFF) != 255)
        {
            counters.increment(MALFORMED); // RFC 4861 7.1.1: a hop limit below 255 means it was forwarded — not from our link
            return;
        }
        final long targetHigh = buffer.getLong(icmp + 8, ByteOrder.BIG_ENDIAN);
        final long targetLow = buffer.getLong(icmp + 16, ByteOrder.BIG_ENDIAN);
        final long sourceHigh = buffer.getLong(ip + 8, ByteOrder.BIG_ENDIAN);
        final long sourceLow = buffer.getLong(ip + 16, ByteOrder.BIG_ENDIAN);
        final long optionMac = linkLayerOption(buffer, icmp + 24, offset + length,
            type == NEIGHBOR_SOLICITATION ? 1 : 2);
        if (type == NEIGHBOR_ADVERTISEMENT)
        {
            final long mac = optionMac != NeighbourTable.NO_MAC ? optionMac : readMac(buffer, offset + 6);
            table.learn(targetHigh, targetLow, mac);
            counters.increment(LEARNED);
            return;
        }
        final boolean unspecifiedSource = sourceHigh == 0 && sourceLow == 0; // duplicate address detection
        if (!unspecifiedSource && optionMac != NeighbourTable.NO_MAC)
        {
            table.learn(sourceHigh, sourceLow, optionMac);
            counters.increment(LEARNED);
        }
        if (answerRequests && !unspecifiedSource && port.ownsIpv6(targetHigh, targetLow))
        {
            final long destinationMac = optionMac != NeighbourTable.NO_MAC ? optionMac : readMac(buffer, offset + 6);
            final int n = buildNd(NEIGHBOR_ADVERTISEMENT, destinationMac, targetHigh, targetLow,
                sourceHigh, sourceLow, targetHigh, targetLow);
            send(sink, n);
            counters.increment(REPLIES_SENT);
        }
    }

    /**
     * The source of a datagram QP1 received ({@link io.rnic.transport.GsiSourceListener}): a stale entry, as Linux
     * makes one from received traffic, so that the REP to a REQ from a peer we never resolved leaves at once (after
     * a restart the peer still has our MAC and sends no ARP request we could learn from). A multicast or our own
     * source teaches nothing.
     */
    public void onGsiDatagram(final long sourceGidHigh, final long sourceGidLow, final long sourceMac)
    {
        if ((sourceMac & 0x0100_0000_0000L) != 0 || sourceMac == port.mac() || sourceMac == 0)
        {
            return;
        }
        table.learnStale(sourceGidHigh, sourceGidLow, sourceMac);
        counters.increment(HEARD);
    }

    /** Sends an ARP request or a neighbour solicitation for the GID, from our source GID at {@code sgidIndex}. */
    public void sendRequest(final long gidHigh, final long gidLow, final int sgidIndex, final PacketSink sink)
    {
        final int n;
        if (gidHigh == 0 && (gidLow >>> 32) == 0xFFFF)
        {
            final int ownIp = (int)port.gidLow(sgidIndex);
            n = buildArp(ARP_REQUEST, MAC_MASK, 0, (int)gidLow, ownIp);
        }
        else
        {
            // the solicited-node multicast address ff02::1:ffXX:XXXX and its MAC 33:33:ff:XX:XX:XX
            final long groupHigh = 0xFF02_0000_0000_0000L;
            final long groupLow = 0x0000_0001_FF00_0000L | (gidLow & 0xFF_FFFFL);
            final long groupMac = 0x3333_FF00_0000L | (gidLow & 0xFF_FFFFL);
            n = buildNd(NEIGHBOR_SOLICITATION, groupMac, port.gidHigh(sgidIndex), port.gidLow(sgidIndex),
                groupHigh, groupLow, gidHigh, gidLow);
        }
        send(sink, n);
        counters.increment(REQUESTS_SENT);
    }

    /** The frame built, tagged on its way when the port tags its frames. */
    private void send(final PacketSink sink, final int length)
    {
        final int vlanId = port.vlanId();
        if (vlanId == LocalPort.NO_VLAN)
        {
            sink.send(frame, 0, length);
            return;
        }
        tagged.putBytes(0, frame, 0, 12);
        tagged.putShort(12, (short)0x8100, ByteOrder.BIG_ENDIAN);
        tagged.putShort(14, (short)vlanId, ByteOrder.BIG_ENDIAN);
        tagged.putBytes(16, frame, 12, length - 12);
        sink.send(tagged, 0, length + 4);
    }

    /** Into the endpoint's counters manager, as engine {@code shard}'s. Before the engine thread starts. */
    public void moveCountersTo(final CountersManager manager, final int shard)
    {
        counters.moveTo(manager, shard, "engine " + shard + " neighbours: ");
    }

    public long requestsSent()
    {
        return counters.get(REQUESTS_SENT);
    }

    public long repliesSent()
    {
        return counters.get(REPLIES_SENT);
    }

    public long learned()
    {
        return counters.get(LEARNED);
    }

    public long malformed()
    {
        return counters.get(MALFORMED);
    }

    public long heard()
    {
        return counters.get(HEARD);
    }

    private int buildArp(
        final int operation, final long destinationMac, final long targetMac, final int targetIp, final int senderIp)
    {
        frame.setMemory(0, 64, (byte)0);
        writeMac(0, destinationMac);
        writeMac(6, port.mac());
        frame.putShort(12, (short)ETHERTYPE_ARP, ByteOrder.BIG_ENDIAN);
        final int arp = ETH;
        frame.putShort(arp, (short)1, ByteOrder.BIG_ENDIAN);
        frame.putShort(arp + 2, (short)0x0800, ByteOrder.BIG_ENDIAN);
        frame.putByte(arp + 4, (byte)6);
        frame.putByte(arp + 5, (byte)4);
        frame.putShort(arp + 6, (short)operation, ByteOrder.BIG_ENDIAN);
        writeMac(arp + 8, port.mac());
        frame.putInt(arp + 14, senderIp, ByteOrder.BIG_ENDIAN);
        writeMac(arp + 18, operation == ARP_REQUEST ? 0 : targetMac);
        frame.putInt(arp + 24, targetIp, ByteOrder.BIG_ENDIAN);
        return 60; // minimum Ethernet frame without FCS, zero padded
    }

    private int buildNd(
        final int type,
        final long destinationMac,
        final long sourceHigh,
        final long sourceLow,
        final long destinationHigh,
        final long destinationLow,
        final long targetHigh,
        final long targetLow)
    {
        frame.setMemory(0, ETH + IPV6 + ND_LENGTH, (byte)0);
        writeMac(0, destinationMac);
        writeMac(6, port.mac());
        frame.putShort(12, (short)ETHERTYPE_IPV6, ByteOrder.BIG_ENDIAN);
        final int ip = ETH;
        frame.putInt(ip, 0x6000_0000, ByteOrder.BIG_ENDIAN);
        frame.putShort(ip + 4, (short)ND_LENGTH, ByteOrder.BIG_ENDIAN);
        frame.putByte(ip + 6, (byte)ICMPV6);
        frame.putByte(ip + 7, (byte)255);
        frame.putLong(ip + 8, sourceHigh, ByteOrder.BIG_ENDIAN);
        frame.putLong(ip + 16, sourceLow, ByteOrder.BIG_ENDIAN);
        frame.putLong(ip + 24, destinationHigh, ByteOrder.BIG_ENDIAN);
        frame.putLong(ip + 32, destinationLow, ByteOrder.BIG_ENDIAN);
        final int icmp = ip + IPV6;
        frame.putByte(icmp, (byte)type);
        if (type == NEIGHBOR_ADVERTISEMENT)
        {
            frame.putInt(icmp + 4, 0x6000_0000, ByteOrder.BIG_ENDIAN); // solicited + override
        }
        frame.putLong(icmp + 8, targetHigh, ByteOrder.BIG_ENDIAN);
        frame.putLong(icmp + 16, targetLow, ByteOrder.BIG_ENDIAN);
        frame.putByte(icmp + 24, (byte)(type == NEIGHBOR_SOLICITATION ? 1 : 2)); // source / target link-layer
        frame.putByte(icmp + 25, (byte)1);
        writeMac(icmp + 26, port.mac());
        long sum = InternetChecksum.add(frame, ip + 8, 32, 0);
        sum += ND_LENGTH;
        sum += ICMPV6;
        sum = InternetChecksum.add(frame, icmp, ND_LENGTH, sum);
        frame.putShort(icmp + 2, (short)InternetChecksum.finish(sum), ByteOrder.BIG_ENDIAN);
        return ETH + IPV6 + ND_LENGTH;
    }

    private static long linkLayerOption(final DirectBuffer buffer, final int from, final int end, final int kind)
    {
        int option = from;
        while (option + 8 <= end)
        {
            final int type = buffer.getByte(option) & 0xFF;
            final int units = buffer.getByte(option + 1) & 0xFF;
            if (units == 0)
            {
                return NeighbourTable.NO_MAC; // RFC 4861 4.6: a zero-length option invalidates the packet
            }
            if (type == kind)
            {
                return readMac(buffer, option + 2);
            }
            option += units * 8;
        }
        return NeighbourTable.NO_MAC;
    }

    static long readMac(final DirectBuffer buffer, final int offset)
    {
        return ((buffer.getShort(offset, ByteOrder.BIG_ENDIAN) & 0xFFFFL) << 32) |
            (buffer.getInt(offset + 2, ByteOrder.BIG_ENDIAN) & 0xFFFF_FFFFL);
    }

    private void writeMac(final int offset, final long mac)
    {
        frame.putShort(offset, (short)(mac >>> 32), ByteOrder.BIG_ENDIAN);
        frame.putInt(offset + 2, (int)mac, ByteOrder.BIG_ENDIAN);
    }
}
