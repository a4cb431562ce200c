package io.rnic.datapath.neighbour;

import io.rnic.transport.LocalPort;
import io.rnic.transport.PacketSink;
import io.rnic.wire.EthernetFlyweight;
import io.rnic.wire.InternetChecksum;
import io.rnic.wire.Ipv6Flyweight;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ARP and IPv6 neighbour discovery on the engine thread, without a port: frames built here (Ethernet and IPv6
 * headers through the wire package's flyweights) go in through {@code onArp}/{@code onIcmpv6}, and what the
 * discovery sends is captured from its {@link PacketSink}. Resolution runs between two discoveries, ours and the
 * peer's, each answering for its own addresses.
 */
class NeighbourDiscoveryTest
{
    private static final long OUR_MAC = 0x02_00_00_00_00_01L;
    private static final long PEER_MAC = 0x02_00_00_00_00_02L;
    private static final long OTHER_MAC = 0x02_00_00_00_00_03L;
    private static final long BROADCAST_MAC = 0xFFFF_FFFF_FFFFL;
    private static final int OUR_IP = 0x0A00_0001;
    private static final int PEER_IP = 0x0A00_0002;
    private static final int OTHER_IP = 0x0A00_0009;
    private static final long IPV4_MAPPED = 0x0000_FFFF_0000_0000L;
    private static final long V6_HIGH = 0xFD00_0000_0000_0000L;
    private static final long OUR_V6_LOW = 0x0000_0012_3456_789AL;
    private static final long PEER_V6_LOW = 0x0000_0034_5678_9ABCL;
    private static final long OTHER_V6_LOW = 0x0000_0056_789A_BCDEL;
    /** ff02::1:ff56:789a and ff02::1:ff78:9abc, the solicited-node multicast groups of the IPv6 addresses. */
    private static final long GROUP_HIGH = 0xFF02_0000_0000_0000L;
    private static final long OUR_GROUP_LOW = 0x0000_0001_FF56_789AL;
    private static final long OUR_GROUP_MAC = 0x3333_FF56_789AL;
    private static final long PEER_GROUP_LOW = 0x0000_0001_FF78_9ABCL;
    private static final long PEER_GROUP_MAC = 0x3333_FF78_9ABCL;
    private static final int ETH = EthernetFlyweight.LENGTH;
    private static final int ICMP = ETH + Ipv6Flyweight.LENGTH;
    private static final int ND_LENGTH = 32;

    private final NeighbourTable table = new NeighbourTable(16);
    private final NeighbourDiscovery ours = new NeighbourDiscovery(localPort(OUR_MAC, OUR_IP, OUR_V6_LOW), table, true);
    private final List<UnsafeBuffer> sent = new ArrayList<>();
    private final PacketSink sink = (frame, offset, length) -> sent.add(copy(frame, offset, length));
    private final EthernetFlyweight ethernet = new EthernetFlyweight();
    private final Ipv6Flyweight ipv6 = new Ipv6Flyweight();

    @Test
    void shouldAnswerArpRequestForOurIpv4()
    {
        ours.onArp(arp(NeighbourDiscovery.ARP_REQUEST, BROADCAST_MAC, PEER_MAC, PEER_IP, 0, OUR_IP), 0, 60, sink);

        assertEquals(1, sent.size());
        final UnsafeBuffer reply = sent.get(0);
        assertEquals(EthernetFlyweight.MIN_FRAME_LENGTH, reply.capacity());
        assertEthernet(reply, PEER_MAC, OUR_MAC, EthernetFlyweight.ETHERTYPE_ARP);
        assertEquals(NeighbourDiscovery.ARP_REPLY, u16(reply, ETH + 6));
        assertEquals(OUR_MAC, NeighbourDiscovery.readMac(reply, ETH + 8), "sender hardware address");
        assertEquals(OUR_IP, reply.getInt(ETH + 14, ByteOrder.BIG_ENDIAN), "sender protocol address");
        assertEquals(PEER_MAC, NeighbourDiscovery.readMac(reply, ETH + 18), "target hardware address");
        assertEquals(PEER_IP, reply.getInt(ETH + 24, ByteOrder.BIG_ENDIAN), "target protocol address");
        assertEquals(1, ours.repliesSent());
        assertEquals(PEER_MAC, table.lookup(0, IPV4_MAPPED | PEER_IP), "the asker is learned on the way");
    }

    @Test
    void shouldNotAnswerArpRequestForAnotherAddress()
    {
        ours.onArp(arp(NeighbourDiscovery.ARP_REQUEST, BROADCAST_MAC, PEER_MAC, PEER_IP, 0, OTHER_IP), 0, 60, sink);

        assertEquals(0, sent.size());
        assertEquals(0, ours.repliesSent());
        assertEquals(PEER_MAC, table.lookup(0, IPV4_MAPPED | PEER_IP), "what passes by is still learned");
    }

    @Test
    void shouldLeaveArpAnswersToTheKernelWhenNotAnswering()
    {
        final NeighbourDiscovery passive =
            new NeighbourDiscovery(localPort(OUR_MAC, OUR_IP, OUR_V6_LOW), table, false);

        passive.onArp(arp(NeighbourDiscovery.ARP_REQUEST, BROADCAST_MAC, PEER_MAC, PEER_IP, 0, OUR_IP), 0, 60, sink);

        assertEquals(0, sent.size());
        assertEquals(PEER_MAC, table.lookup(0, IPV4_MAPPED | PEER_IP));
    }

    @Test
    void shouldLearnFromArpReply()
    {
        ours.onArp(arp(NeighbourDiscovery.ARP_REPLY, OUR_MAC, PEER_MAC, PEER_IP, OUR_MAC, OUR_IP), 0, 60, sink);

        assertEquals(PEER_MAC, table.lookup(0, IPV4_MAPPED | PEER_IP));
        assertEquals(1, ours.learned());
        assertEquals(0, sent.size(), "a reply is not answered");
    }

    @Test
    void shouldNotLearnFromArpProbeOrOwnFrame()
    {
        // an ARP probe (RFC 5227) has sender address 0.0.0.0; our own frame may come back on a shared medium
        ours.onArp(arp(NeighbourDiscovery.ARP_REQUEST, BROADCAST_MAC, PEER_MAC, 0, 0, OTHER_IP), 0, 60, sink);
        ours.onArp(arp(NeighbourDiscovery.ARP_REQUEST, BROADCAST_MAC, OUR_MAC, OUR_IP, 0, PEER_IP), 0, 60, sink);

        assertEquals(0, table.size());
        assertEquals(0, ours.learned());
    }

    @Test
    void shouldNotLetTheWireOverwriteAStaticNeighbour()
    {
        table.putStatic(0, IPV4_MAPPED | PEER_IP, PEER_MAC);

        ours.onArp(arp(NeighbourDiscovery.ARP_REPLY, OUR_MAC, OTHER_MAC, PEER_IP, OUR_MAC, OUR_IP), 0, 60, sink);

        assertEquals(PEER_MAC, table.lookup(0, IPV4_MAPPED | PEER_IP));
    }

    @Test
    void shouldReplaceTheOldestLearnedNeighbourWhenTheTableIsFull()
    {
        final NeighbourTable small = new NeighbourTable(2);
        final NeighbourDiscovery discovery =
            new NeighbourDiscovery(localPort(OUR_MAC, OUR_IP, OUR_V6_LOW), small, true);
        small.putStatic(0, IPV4_MAPPED | OTHER_IP, OTHER_MAC);

        discovery.onArp(arp(NeighbourDiscovery.ARP_REPLY, OUR_MAC, PEER_MAC, PEER_IP, OUR_MAC, OUR_IP), 0, 60, sink);
        discovery.onArp(arp(NeighbourDiscovery.ARP_REPLY, OUR_MAC, 0x02_00_00_00_00_04L, 0x0A00_0004, OUR_MAC, OUR_IP),
            0, 60, sink);

        assertEquals(2, small.size());
        assertEquals(NeighbourTable.NO_MAC, small.lookup(0, IPV4_MAPPED | PEER_IP), "the learned entry made room");
        assertEquals(0x02_00_00_00_00_04L, small.lookup(0, IPV4_MAPPED | 0x0A00_0004));
        assertEquals(OTHER_MAC, small.lookup(0, IPV4_MAPPED | OTHER_IP), "the static entry stays");
    }

    /**
     * The source of a CM datagram is a stale entry, as Linux makes one from received traffic: enough to answer the
     * sender, not trusted to reach it unasked, and ARP confirms or corrects it.
     */
    @Test
    void shouldHearAStaleNeighbourFromACmDatagramThatArpConfirms()
    {
        ours.onGsiDatagram(0, IPV4_MAPPED | PEER_IP, PEER_MAC);

        assertEquals(PEER_MAC, table.lookup(0, IPV4_MAPPED | PEER_IP));
        assertEquals(NeighbourTable.NO_MAC, table.lookupConfirmed(0, IPV4_MAPPED | PEER_IP), "stale until ARP says");
        assertEquals(1, ours.heard());

        ours.onArp(arp(NeighbourDiscovery.ARP_REPLY, OUR_MAC, OTHER_MAC, PEER_IP, OUR_MAC, OUR_IP), 0, 60, sink);
        assertEquals(OTHER_MAC, table.lookupConfirmed(0, IPV4_MAPPED | PEER_IP), "ARP replaces a stale entry");
    }

    /** A forged datagram source changes nothing ARP or the user said, and pushes none of it out of a full table. */
    @Test
    void shouldNotLetADatagramsSourceReplaceOrEvictAConfirmedNeighbour()
    {
        ours.onArp(arp(NeighbourDiscovery.ARP_REPLY, OUR_MAC, PEER_MAC, PEER_IP, OUR_MAC, OUR_IP), 0, 60, sink);
        table.putStatic(0, IPV4_MAPPED | OTHER_IP, OTHER_MAC);

        ours.onGsiDatagram(0, IPV4_MAPPED | PEER_IP, 0x02_00_00_00_00_66L);
        ours.onGsiDatagram(0, IPV4_MAPPED | OTHER_IP, 0x02_00_00_00_00_66L);
        ours.onGsiDatagram(0, IPV4_MAPPED | 0x0A00_0007, 0x0100_5E00_0001L); // a multicast source
        ours.onGsiDatagram(0, IPV4_MAPPED | 0x0A00_0008, OUR_MAC);

        assertEquals(PEER_MAC, table.lookupConfirmed(0, IPV4_MAPPED | PEER_IP));
        assertEquals(OTHER_MAC, table.lookupConfirmed(0, IPV4_MAPPED | OTHER_IP));
        assertEquals(2, table.size(), "neither a multicast nor our own source is heard");

        final NeighbourTable small = new NeighbourTable(2);
        final NeighbourDiscovery discovery =
            new NeighbourDiscovery(localPort(OUR_MAC, OUR_IP, OUR_V6_LOW), small, true);
        discovery.onArp(arp(NeighbourDiscovery.ARP_REPLY, OUR_MAC, PEER_MAC, PEER_IP, OUR_MAC, OUR_IP), 0, 60, sink);
        discovery.onGsiDatagram(0, IPV4_MAPPED | 0x0A00_0004, 0x02_00_00_00_00_04L);
        discovery.onGsiDatagram(0, IPV4_MAPPED | 0x0A00_0005, 0x02_00_00_00_00_05L);
        assertEquals(PEER_MAC, small.lookupConfirmed(0, IPV4_MAPPED | PEER_IP), "a stale entry evicts stale ones only");
        assertEquals(NeighbourTable.NO_MAC, small.lookup(0, IPV4_MAPPED | 0x0A00_0004));
        assertEquals(0x02_00_00_00_00_05L, small.lookup(0, IPV4_MAPPED | 0x0A00_0005));
    }

    @Test
    void shouldDropAndCountMalformedArp()
    {
        final UnsafeBuffer request = arp(NeighbourDiscovery.ARP_REQUEST, BROADCAST_MAC, PEER_MAC, PEER_IP, 0, OUR_IP);
        ours.onArp(request, 0, ETH + 27, sink); // one byte short of the ARP body

        final UnsafeBuffer notEthernet = copy(request, 0, 60);
        notEthernet.putShort(ETH, (short)6, ByteOrder.BIG_ENDIAN); // hardware type IEEE 802
        ours.onArp(notEthernet, 0, 60, sink);

        final UnsafeBuffer notIpv4 = copy(request, 0, 60);
        notIpv4.putShort(ETH + 2, (short)0x86DD, ByteOrder.BIG_ENDIAN);
        ours.onArp(notIpv4, 0, 60, sink);

        final UnsafeBuffer wrongLengths = copy(request, 0, 60);
        wrongLengths.putByte(ETH + 4, (byte)8);
        ours.onArp(wrongLengths, 0, 60, sink);

        assertEquals(4, ours.malformed());
        assertEquals(0, sent.size());
        assertEquals(0, table.size());
    }

    @Test
    void shouldResolveIpv4PeerByArp()
    {
        final NeighbourDiscovery peer =
            new NeighbourDiscovery(localPort(PEER_MAC, PEER_IP, PEER_V6_LOW), new NeighbourTable(16), true);

        ours.sendRequest(0, IPV4_MAPPED | PEER_IP, 0, sink);

        assertEquals(1, ours.requestsSent());
        final UnsafeBuffer request = sent.remove(0);
        ethernet.wrapAt(request, 0);
        assertEquals(BROADCAST_MAC, ethernet.destinationMac());
        assertEquals(NeighbourDiscovery.ARP_REQUEST, u16(request, ETH + 6));
        assertEquals(OUR_IP, request.getInt(ETH + 14, ByteOrder.BIG_ENDIAN), "from our address at GID index 0");
        assertEquals(0, NeighbourDiscovery.readMac(request, ETH + 18), "target hardware address unknown");
        assertEquals(PEER_IP, request.getInt(ETH + 24, ByteOrder.BIG_ENDIAN));

        peer.onArp(request, 0, request.capacity(), sink);
        assertEquals(1, sent.size(), "the peer answers");
        final UnsafeBuffer reply = sent.remove(0);
        ours.onArp(reply, 0, reply.capacity(), sink);

        assertEquals(PEER_MAC, table.lookup(0, IPV4_MAPPED | PEER_IP));
        assertEquals(0, sent.size());
    }

    @Test
    void shouldAnswerNeighbourSolicitationForOurIpv6()
    {
        receive(solicitation(PEER_MAC, PEER_MAC));

        assertAdvertisementToPeer();
        assertEquals(PEER_MAC, table.lookup(V6_HIGH, PEER_V6_LOW), "the source link-layer option is learned");
    }

    @Test
    void shouldAnswerNeighbourSolicitationToTheSolicitedNodeGroup()
    {
        final UnsafeBuffer solicitation = neighbourMessage(NeighbourDiscovery.NEIGHBOR_SOLICITATION, OUR_GROUP_MAC,
            PEER_MAC, PEER_V6_LOW, GROUP_HIGH, OUR_GROUP_LOW, OUR_V6_LOW, PEER_MAC);

        receive(solicitation);

        assertAdvertisementToPeer();
    }

    @Test
    void shouldAnswerToTheSourceLinkLayerAddressOption()
    {
        // RFC 4861 7.2.4: the advertisement goes to the link-layer address the solicitation names
        receive(solicitation(OTHER_MAC, PEER_MAC));

        assertEquals(1, sent.size());
        assertEquals(PEER_MAC, ethernet.wrapAt(sent.get(0), 0).destinationMac());
    }

    @Test
    void shouldNotAnswerNeighbourSolicitationForAnotherAddress()
    {
        final UnsafeBuffer solicitation = neighbourMessage(NeighbourDiscovery.NEIGHBOR_SOLICITATION, 0x3333_FF9A_BCDEL,
            PEER_MAC, PEER_V6_LOW, GROUP_HIGH, 0x0000_0001_FF9A_BCDEL, OTHER_V6_LOW, PEER_MAC);

        receive(solicitation);

        assertEquals(0, sent.size());
        assertEquals(0, ours.repliesSent());
        assertEquals(PEER_MAC, table.lookup(V6_HIGH, PEER_V6_LOW), "what passes by is still learned");
    }

    @Test
    void shouldNotAnswerDuplicateAddressDetection()
    {
        // RFC 4862 5.4: a node checking that an address is free asks from ::, which names nobody to learn or answer
        final UnsafeBuffer probe = neighbourMessage(NeighbourDiscovery.NEIGHBOR_SOLICITATION, OUR_GROUP_MAC,
            PEER_MAC, 0, GROUP_HIGH, OUR_GROUP_LOW, OUR_V6_LOW, NeighbourTable.NO_MAC);
        ipv6.wrapAt(probe, ETH).source(0, 0);

        receive(probe);

        assertEquals(0, sent.size());
        assertEquals(0, table.size());
    }

    @Test
    void shouldDropAndCountForwardedNeighbourDiscovery()
    {
        final UnsafeBuffer solicitation = solicitation(PEER_MAC, PEER_MAC);
        ipv6.wrapAt(solicitation, ETH).hopLimit(64); // RFC 4861 7.1.1: not from our link

        receive(solicitation);

        assertEquals(1, ours.malformed());
        assertEquals(0, sent.size());
        assertEquals(0, table.size());
    }

    @Test
    void shouldLearnFromNeighbourAdvertisement()
    {
        receive(advertisement(OTHER_MAC, PEER_MAC));

        assertEquals(PEER_MAC, table.lookup(V6_HIGH, PEER_V6_LOW), "the target link-layer option, not the sender");
        assertEquals(0, sent.size());
    }

    @Test
    void shouldLearnFromNeighbourAdvertisementWithoutOptionByEthernetSource()
    {
        receive(advertisement(PEER_MAC, NeighbourTable.NO_MAC));

        assertEquals(PEER_MAC, table.lookup(V6_HIGH, PEER_V6_LOW));
    }

    @Test
    void shouldReadNoOptionPastTheFrameEnd()
    {
        final UnsafeBuffer solicitation = solicitation(OTHER_MAC, PEER_MAC);

        ours.onIcmpv6(solicitation, 0, ICMP + 24 + 7, sink); // the option's last byte cut off

        assertEquals(0, table.size(), "a cut option gives no address");
        assertEquals(1, sent.size());
        ethernet.wrapAt(sent.get(0), 0);
        assertEquals(OTHER_MAC, ethernet.destinationMac(), "answered to the Ethernet source instead");
    }

    @Test
    void shouldStopAtAZeroLengthOption()
    {
        final UnsafeBuffer solicitation = solicitation(PEER_MAC, PEER_MAC);
        solicitation.putByte(ICMP + 25, (byte)0); // RFC 4861 4.6: length 0 is invalid, and would never advance

        assertTimeoutPreemptively(Duration.ofSeconds(10),
            () -> ours.onIcmpv6(solicitation, 0, solicitation.capacity(), sink));

        assertEquals(0, table.size());
    }

    @Test
    void shouldIgnoreShortAndOtherIcmpv6()
    {
        final UnsafeBuffer solicitation = solicitation(PEER_MAC, PEER_MAC);
        ours.onIcmpv6(solicitation, 0, ICMP + 23, sink); // the target address cut short

        final UnsafeBuffer echoRequest = copy(solicitation, 0, solicitation.capacity());
        echoRequest.putByte(ICMP, (byte)128);
        receive(echoRequest);

        assertEquals(0, sent.size());
        assertEquals(0, table.size());
        assertEquals(0, ours.malformed(), "not counted: the kernel's ICMPv6, not ours");
    }

    @Test
    void shouldResolveIpv6PeerBySolicitingItsGroup()
    {
        final NeighbourDiscovery peer =
            new NeighbourDiscovery(localPort(PEER_MAC, PEER_IP, PEER_V6_LOW), new NeighbourTable(16), true);

        ours.sendRequest(V6_HIGH, PEER_V6_LOW, 1, sink);

        assertEquals(1, ours.requestsSent());
        final UnsafeBuffer solicitation = sent.remove(0);
        assertEthernet(solicitation, PEER_GROUP_MAC, OUR_MAC, EthernetFlyweight.ETHERTYPE_IPV6);
        ipv6.wrapAt(solicitation, ETH);
        assertEquals(255, ipv6.hopLimit());
        assertEquals(V6_HIGH, ipv6.sourceHigh(), "from our GID at index 1");
        assertEquals(OUR_V6_LOW, ipv6.sourceLow());
        assertEquals(GROUP_HIGH, ipv6.destinationHigh());
        assertEquals(PEER_GROUP_LOW, ipv6.destinationLow());
        assertEquals(NeighbourDiscovery.NEIGHBOR_SOLICITATION, solicitation.getByte(ICMP) & 0xFF);
        assertEquals(V6_HIGH, solicitation.getLong(ICMP + 8, ByteOrder.BIG_ENDIAN));
        assertEquals(PEER_V6_LOW, solicitation.getLong(ICMP + 16, ByteOrder.BIG_ENDIAN));
        assertEquals(1, solicitation.getByte(ICMP + 24), "source link-layer address option");
        assertEquals(OUR_MAC, NeighbourDiscovery.readMac(solicitation, ICMP + 26));
        assertChecksumValid(solicitation);

        peer.onIcmpv6(solicitation, 0, solicitation.capacity(), sink);
        assertEquals(1, sent.size(), "the peer answers");
        final UnsafeBuffer advertisement = sent.remove(0);
        receive(advertisement);

        assertEquals(PEER_MAC, table.lookup(V6_HIGH, PEER_V6_LOW));
        assertEquals(0, sent.size());
    }

    /** Hands a whole ICMPv6 frame to our discovery, as the engine agent does. */
    private void receive(final UnsafeBuffer frame)
    {
        ours.onIcmpv6(frame, 0, frame.capacity(), sink);
    }

    private void assertAdvertisementToPeer()
    {
        assertEquals(1, sent.size());
        assertEquals(1, ours.repliesSent());
        final UnsafeBuffer advertisement = sent.get(0);
        assertEquals(ICMP + ND_LENGTH, advertisement.capacity());
        assertEthernet(advertisement, PEER_MAC, OUR_MAC, EthernetFlyweight.ETHERTYPE_IPV6);
        ipv6.wrapAt(advertisement, ETH);
        assertEquals(6, ipv6.version());
        assertEquals(ND_LENGTH, ipv6.payloadLength());
        assertEquals(NeighbourDiscovery.ICMPV6, ipv6.nextHeader());
        assertEquals(255, ipv6.hopLimit());
        assertEquals(V6_HIGH, ipv6.sourceHigh());
        assertEquals(OUR_V6_LOW, ipv6.sourceLow());
        assertEquals(V6_HIGH, ipv6.destinationHigh());
        assertEquals(PEER_V6_LOW, ipv6.destinationLow());
        assertEquals(NeighbourDiscovery.NEIGHBOR_ADVERTISEMENT, advertisement.getByte(ICMP) & 0xFF);
        assertEquals(0x6000_0000, advertisement.getInt(ICMP + 4, ByteOrder.BIG_ENDIAN), "solicited and override");
        assertEquals(V6_HIGH, advertisement.getLong(ICMP + 8, ByteOrder.BIG_ENDIAN));
        assertEquals(OUR_V6_LOW, advertisement.getLong(ICMP + 16, ByteOrder.BIG_ENDIAN));
        assertEquals(2, advertisement.getByte(ICMP + 24), "target link-layer address option");
        assertEquals(1, advertisement.getByte(ICMP + 25));
        assertEquals(OUR_MAC, NeighbourDiscovery.readMac(advertisement, ICMP + 26));
        assertChecksumValid(advertisement);
    }

    private void assertEthernet(
        final DirectBuffer frame, final long destinationMac, final long sourceMac, final int etherType)
    {
        ethernet.wrapAt(frame, 0);
        assertEquals(destinationMac, ethernet.destinationMac());
        assertEquals(sourceMac, ethernet.sourceMac());
        assertEquals(etherType, ethernet.etherType());
    }

    /** The ICMPv6 checksum over the pseudo-header and the message, the checksum field included, sums to zero. */
    private static void assertChecksumValid(final DirectBuffer frame)
    {
        assertTrue(frame.getShort(ICMP + 2) != 0, "a checksum is set");
        assertEquals(0, InternetChecksum.finish(icmpv6Sum(frame, frame.capacity() - ICMP)));
    }

    private static long icmpv6Sum(final DirectBuffer frame, final int icmpLength)
    {
        long sum = InternetChecksum.add(frame, ETH + Ipv6Flyweight.SOURCE_OFFSET, 32, 0);
        sum += icmpLength;
        sum += NeighbourDiscovery.ICMPV6;
        return InternetChecksum.add(frame, ICMP, icmpLength, sum);
    }

    private static LocalPort localPort(final long mac, final int ip, final long v6Low)
    {
        final LocalPort port = new LocalPort(mac);
        port.addIpv4(ip);
        port.addGid(V6_HIGH, v6Low);
        return port;
    }

    /** An ARP frame (Ethernet, IPv4), padded to the shortest Ethernet frame. */
    private UnsafeBuffer arp(
        final int operation,
        final long destinationMac,
        final long senderMac,
        final int senderIp,
        final long targetMac,
        final int targetIp)
    {
        final UnsafeBuffer frame = new UnsafeBuffer(new byte[EthernetFlyweight.MIN_FRAME_LENGTH]);
        ethernet.wrapAt(frame, 0).destinationMac(destinationMac).sourceMac(senderMac)
            .etherType(EthernetFlyweight.ETHERTYPE_ARP);
        frame.putShort(ETH, (short)1, ByteOrder.BIG_ENDIAN);
        frame.putShort(ETH + 2, (short)EthernetFlyweight.ETHERTYPE_IPV4, ByteOrder.BIG_ENDIAN);
        frame.putByte(ETH + 4, (byte)6);
        frame.putByte(ETH + 5, (byte)4);
        frame.putShort(ETH + 6, (short)operation, ByteOrder.BIG_ENDIAN);
        putMac(frame, ETH + 8, senderMac);
        frame.putInt(ETH + 14, senderIp, ByteOrder.BIG_ENDIAN);
        putMac(frame, ETH + 18, targetMac);
        frame.putInt(ETH + 24, targetIp, ByteOrder.BIG_ENDIAN);
        return frame;
    }

    /**
     * A neighbour solicitation or advertisement from {@code fd00::<sourceLow>} with hop limit 255, carrying a source
     * (solicitation) or target (advertisement) link-layer address option unless {@code optionMac} is
     * {@link NeighbourTable#NO_MAC}.
     */
    private UnsafeBuffer neighbourMessage(
        final int type,
        final long destinationMac,
        final long sourceMac,
        final long sourceLow,
        final long destinationHigh,
        final long destinationLow,
        final long targetLow,
        final long optionMac)
    {
        final int icmpLength = optionMac == NeighbourTable.NO_MAC ? ND_LENGTH - 8 : ND_LENGTH;
        final UnsafeBuffer frame = new UnsafeBuffer(new byte[ICMP + icmpLength]);
        ethernet.wrapAt(frame, 0).destinationMac(destinationMac).sourceMac(sourceMac)
            .etherType(EthernetFlyweight.ETHERTYPE_IPV6);
        ipv6.wrapAt(frame, ETH).versionClassFlow(6, 0, 0, 0).payloadLength(icmpLength)
            .nextHeader(NeighbourDiscovery.ICMPV6).hopLimit(255)
            .source(V6_HIGH, sourceLow).destination(destinationHigh, destinationLow);
        frame.putByte(ICMP, (byte)type);
        frame.putLong(ICMP + 8, V6_HIGH, ByteOrder.BIG_ENDIAN);
        frame.putLong(ICMP + 16, targetLow, ByteOrder.BIG_ENDIAN);
        if (optionMac != NeighbourTable.NO_MAC)
        {
            frame.putByte(ICMP + 24, (byte)(type == NeighbourDiscovery.NEIGHBOR_SOLICITATION ? 1 : 2));
            frame.putByte(ICMP + 25, (byte)1);
            putMac(frame, ICMP + 26, optionMac);
        }
        frame.putShort(ICMP + 2, (short)InternetChecksum.finish(icmpv6Sum(frame, icmpLength)), ByteOrder.BIG_ENDIAN);
        return frame;
    }

    /** A solicitation for our unicast address from the peer's IPv6 address, sent from {@code ethernetSource}. */
    private UnsafeBuffer solicitation(final long ethernetSource, final long optionMac)
    {
        return neighbourMessage(NeighbourDiscovery.NEIGHBOR_SOLICITATION, OUR_MAC, ethernetSource, PEER_V6_LOW,
            V6_HIGH, OUR_V6_LOW, OUR_V6_LOW, optionMac);
    }

    /** The peer's advertisement of its own IPv6 address to ours, sent from {@code ethernetSource}. */
    private UnsafeBuffer advertisement(final long ethernetSource, final long optionMac)
    {
        return neighbourMessage(NeighbourDiscovery.NEIGHBOR_ADVERTISEMENT, OUR_MAC, ethernetSource, PEER_V6_LOW,
            V6_HIGH, OUR_V6_LOW, PEER_V6_LOW, optionMac);
    }

    private static void putMac(final UnsafeBuffer frame, final int offset, final long mac)
    {
        frame.putShort(offset, (short)(mac >>> 32), ByteOrder.BIG_ENDIAN);
        frame.putInt(offset + 2, (int)mac, ByteOrder.BIG_ENDIAN);
    }

    private static int u16(final DirectBuffer buffer, final int offset)
    {
        return buffer.getShort(offset, ByteOrder.BIG_ENDIAN) & 0xFFFF;
    }

    private static UnsafeBuffer copy(final DirectBuffer frame, final int offset, final int length)
    {
        final UnsafeBuffer copy = new UnsafeBuffer(new byte[length]);
        frame.getBytes(offset, copy, 0, length);
        return copy;
    }
}
