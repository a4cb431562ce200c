package io.rnic.transport;

import io.rnic.cc.DcqcnParameters;
import io.rnic.device.QueuePair;
import io.rnic.sim.LinkConditions;
import io.rnic.sim.TwoNodeFabric;
import io.rnic.verbs.PathMtu;
import io.rnic.verbs.QpType;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.WcStatus;
import io.rnic.verbs.WrOpcode;
import io.rnic.wire.DropReason;
import io.rnic.wire.Ecn;
import io.rnic.wire.InboundValidator;
import io.rnic.wire.Opcode;
import io.rnic.wire.RocePacket;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Priority and marking on the wire (seed 003): the address vector's service level becomes the 802.1Q PCP on a port
 * that tags its frames, its traffic class the IPv4 DSCP with the ECN bits left to congestion control, and CNPs go
 * out at the port's CNP DSCP and priority (ConnectX's 48 and 6 unless configured).
 */
class PriorityMarkingTest
{
    private static final int VLAN_ID = 10;
    /** ToS 0x68: DSCP 26 (AF31), ECN bits 00. */
    private static final int TRAFFIC_CLASS = 0x68;
    private static final int DSCP = 26;
    private static final int SERVICE_LEVEL = 3;
    private static final DcqcnParameters TEN_GIG = DcqcnParameters.connectX()
        .with(DcqcnParameters.LINE_RATE_BITS_PER_SEC_PARAM_NAME, "10000000000");

    private final Arena arena = Arena.ofShared();

    @AfterEach
    void close()
    {
        arena.close();
    }

    @Test
    void shouldTagEveryFrameWithTheServiceLevelAsPcpAndTheTrafficClassAsDscp()
    {
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), 3);
        fabric.a().engine().port().vlanId(VLAN_ID);
        fabric.b().engine().port().vlanId(VLAN_ID);
        final Connection[] pair = Connection.markedPair(fabric, arena, QpType.RC, 1 << 16, PathMtu.MTU_1024,
            TRAFFIC_CLASS, SERVICE_LEVEL);
        final List<RocePacket> fromA = tap(fabric.a().engine(), fabric.aToB());
        final List<RocePacket> fromB = tap(fabric.b().engine(), fabric.bToA());

        writeAndComplete(fabric, pair, 10_000);

        assertTrue(fromA.size() >= 10, "a 10 000-byte WRITE at MTU 1024: " + fromA.size() + " frames");
        assertFalse(fromB.isEmpty(), "B acknowledged");
        for (final RocePacket packet : concat(fromA, fromB))
        {
            assertTrue(packet.hasVlan(), "every frame tagged");
            assertEquals(VLAN_ID, packet.vlanTci() & 0xFFF, "VLAN id");
            assertEquals(SERVICE_LEVEL, packet.vlanTci() >>> 13, "PCP = SL");
            assertEquals(0, (packet.vlanTci() >>> 12) & 1, "DEI 0");
            assertEquals(DSCP, packet.dscp(), "DSCP = the traffic class's upper six bits");
            assertEquals(Ecn.NOT_ECT, packet.ecn());
        }
    }

    @Test
    void shouldLeaveFramesUntaggedOnAPortThatDoesNotTagButKeepTheDscp()
    {
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), 3);
        final Connection[] pair = Connection.markedPair(fabric, arena, QpType.RC, 1 << 16, PathMtu.MTU_1024,
            TRAFFIC_CLASS, SERVICE_LEVEL);
        final List<RocePacket> fromA = tap(fabric.a().engine(), fabric.aToB());

        writeAndComplete(fabric, pair, 4000);

        assertFalse(fromA.isEmpty());
        for (final RocePacket packet : fromA)
        {
            assertFalse(packet.hasVlan(), "no tag: the kernel's VLAN device or none");
            assertEquals(DSCP, packet.dscp());
        }
    }

    @Test
    void shouldKeepTheEcnBitsForCongestionControlUnderTheQpsDscp()
    {
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), 3);
        fabric.a().engine().port().vlanId(VLAN_ID);
        fabric.b().engine().port().vlanId(VLAN_ID);
        fabric.a().congestionControl(TEN_GIG);
        // the application's ECN bits (CE here) are not what goes out: DCQCN marks ECT(0)
        final Connection[] pair = Connection.markedPair(fabric, arena, QpType.RC, 1 << 16, PathMtu.MTU_1024,
            TRAFFIC_CLASS | Ecn.CE, SERVICE_LEVEL);
        final List<RocePacket> fromA = tap(fabric.a().engine(), fabric.aToB());

        writeAndComplete(fabric, pair, 4000);

        assertFalse(fromA.isEmpty());
        for (final RocePacket packet : fromA)
        {
            assertEquals(DSCP, packet.dscp());
            assertEquals(Ecn.ECT_0, packet.ecn());
            assertEquals(SERVICE_LEVEL, packet.vlanTci() >>> 13);
        }
    }

    @Test
    void shouldSendCnpsAtConnectXsDscpAndPriorityByDefault()
    {
        final List<RocePacket> cnps = cnpsFromB(port -> { });
        assertFalse(cnps.isEmpty(), "CE-marked WRITEs were answered");
        for (final RocePacket cnp : cnps)
        {
            assertEquals(LocalPort.CNP_DSCP_DEFAULT, cnp.dscp(), "ConnectX's cnp_dscp 48, not the QP's 26");
            assertEquals(48, cnp.dscp());
            assertEquals(LocalPort.CNP_PRIORITY_DEFAULT, cnp.vlanTci() >>> 13, "ConnectX's cnp_802p_prio, not the SL");
            assertEquals(6, cnp.vlanTci() >>> 13);
            assertEquals(VLAN_ID, cnp.vlanTci() & 0xFFF);
            assertEquals(Ecn.NOT_ECT, cnp.ecn());
        }
    }

    @Test
    void shouldSendCnpsAtTheConfiguredDscpAndPriority()
    {
        final List<RocePacket> cnps = cnpsFromB(port -> port.cnpDscp(40).cnpPriority(5));
        assertFalse(cnps.isEmpty());
        for (final RocePacket cnp : cnps)
        {
            assertEquals(40, cnp.dscp());
            assertEquals(5, cnp.vlanTci() >>> 13);
        }
    }

    @Test
    void shouldSendAUdCnpAtTheCnpDscpAndPriority()
    {
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions().ceMark(1.0), new LinkConditions(), 7);
        fabric.a().engine().port().vlanId(VLAN_ID);
        fabric.b().engine().port().vlanId(VLAN_ID);
        fabric.a().congestionControl(TEN_GIG);
        fabric.b().congestionControl(TEN_GIG);
        final Connection[] pair = Connection.pair(fabric, arena, QpType.UD, 8192, PathMtu.MTU_1024, 0);
        final List<RocePacket> fromB = tap(fabric.b().engine(), fabric.bToA());
        final SendWorkRequest send = new SendWorkRequest();
        send.opcode = WrOpcode.SEND;
        send.sgl.add(pair[0].mr.address(), 100, pair[0].mr.lKey());
        send.udRemoteQpn = pair[1].qp.qpn();
        send.udRemoteQkey = 0x11111111;
        UcUdTest.addressToB(send, false);
        send.udAddress.trafficClass(TRAFFIC_CLASS).serviceLevel(SERVICE_LEVEL);
        assertEquals(QueuePair.POST_OK, pair[0].qp.postSend(send));
        final TransportCounters b = fabric.b().engine().counters();
        assertTrue(fabric.runUntil(() -> b.get(TransportCounter.CNP_SENT) == 1, 10_000_000));
        fabric.runUntil(() -> fabric.bToA().isEmpty(), 10_000_000);

        final List<RocePacket> cnps = fromB.stream().filter(p -> p.opcode() == Opcode.CNP).toList();
        assertEquals(1, cnps.size());
        assertEquals(48, cnps.get(0).dscp());
        assertEquals(6, cnps.get(0).vlanTci() >>> 13);
        assertEquals(VLAN_ID, cnps.get(0).vlanTci() & 0xFFF);
    }

    /** IPv6: the traffic class's DSCP in the IPv6 traffic class, the ECN bits congestion control's; tagged too. */
    @Test
    void shouldCarryTheDscpInTheIpv6TrafficClass()
    {
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), 7);
        fabric.a().engine().port().vlanId(VLAN_ID);
        fabric.b().engine().port().vlanId(VLAN_ID);
        fabric.a().congestionControl(TEN_GIG);
        final Connection[] pair = Connection.pair(fabric, arena, QpType.UD, 8192, PathMtu.MTU_1024, 0);
        final List<RocePacket> fromA = tap(fabric.a().engine(), fabric.aToB());
        final SendWorkRequest send = new SendWorkRequest();
        send.opcode = WrOpcode.SEND;
        send.sgl.add(pair[0].mr.address(), 100, pair[0].mr.lKey());
        send.udRemoteQpn = pair[1].qp.qpn();
        send.udRemoteQkey = 0x11111111;
        UcUdTest.addressToB(send, true);
        send.udAddress.trafficClass(TRAFFIC_CLASS | Ecn.CE).serviceLevel(5);
        assertEquals(QueuePair.POST_OK, pair[0].qp.postSend(send));
        fabric.runUntil(() -> fabric.aToB().isEmpty() && !fromA.isEmpty(), 10_000_000);

        assertEquals(1, fromA.size());
        final RocePacket packet = fromA.get(0);
        assertTrue(packet.isIpv6());
        assertEquals(DSCP << 2 | Ecn.ECT_0, packet.ipTrafficClass(), "DSCP 26, ECT(0): 0x6A");
        assertEquals(5, packet.vlanTci() >>> 13, "PCP = the datagram's SL");
        assertEquals(VLAN_ID, packet.vlanTci() & 0xFFF);
    }

    @Test
    void shouldRefuseOutOfRangeVlanAndCnpSettings()
    {
        final LocalPort port = new LocalPort(TwoNodeFabric.MAC_A);
        assertThrows(IllegalArgumentException.class, () -> port.vlanId(4095));
        assertThrows(IllegalArgumentException.class, () -> port.vlanId(-2));
        assertThrows(IllegalArgumentException.class, () -> port.cnpDscp(64));
        assertThrows(IllegalArgumentException.class, () -> port.cnpPriority(8));
        assertEquals(0, port.vlanId(0).vlanId(), "priority-tagged only");
        assertEquals(LocalPort.NO_VLAN, port.vlanId(LocalPort.NO_VLAN).vlanId());
    }

    /** CE-marked WRITEs from A (QP DSCP 26, SL 3) over tagged ports; the CNPs B sends back. */
    private List<RocePacket> cnpsFromB(final java.util.function.Consumer<LocalPort> configureB)
    {
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions().ceMark(1.0), new LinkConditions(), 5);
        fabric.a().engine().port().vlanId(VLAN_ID);
        fabric.b().engine().port().vlanId(VLAN_ID);
        configureB.accept(fabric.b().engine().port());
        fabric.a().congestionControl(TEN_GIG);
        fabric.b().congestionControl(TEN_GIG);
        final Connection[] pair = Connection.markedPair(fabric, arena, QpType.RC, 1 << 16, PathMtu.MTU_1024,
            TRAFFIC_CLASS, SERVICE_LEVEL);
        final List<RocePacket> fromB = tap(fabric.b().engine(), fabric.bToA());
        writeAndComplete(fabric, pair, 8000);
        final List<RocePacket> cnps = new ArrayList<>();
        for (final RocePacket packet : fromB)
        {
            if (packet.opcode() == Opcode.CNP)
            {
                cnps.add(packet);
            }
            else
            {
                assertEquals(DSCP, packet.dscp(), "B's ACKs keep the QP's DSCP");
                assertEquals(SERVICE_LEVEL, packet.vlanTci() >>> 13, "and its SL");
            }
        }
        assertEquals(cnps.size(), fabric.b().engine().counters().get(TransportCounter.CNP_SENT));
        return cnps;
    }

    private static void writeAndComplete(final TwoNodeFabric fabric, final Connection[] pair, final int length)
    {
        assertEquals(QueuePair.POST_OK, pair[0].qp.postSend(pair[0].signalledWriteTo(pair[1], length)));
        final int[] completed = new int[1];
        assertTrue(fabric.runUntil(() ->
        {
            completed[0] += pair[0].sendCq.poll(pair[0].completions, pair[0].completions.length);
            return completed[0] == 1;
        }, 10_000_000), "the WRITE completed");
        assertEquals(WcStatus.SUCCESS, pair[0].completions[0].status(), "successfully");
        fabric.runUntil(() -> fabric.aToB().isEmpty() && fabric.bToA().isEmpty(), 10_000_000);
    }

    /** Decodes (and validates) every frame an engine sends, then hands it on to the link. */
    private static List<RocePacket> tap(final RnicEngine engine, final PacketSink link)
    {
        final List<RocePacket> sent = new ArrayList<>();
        final InboundValidator validator = new InboundValidator();
        engine.sink((buffer, offset, length) ->
        {
            final UnsafeBuffer copy = new UnsafeBuffer(new byte[length]);
            copy.putBytes(0, buffer, offset, length);
            final RocePacket packet = new RocePacket();
            assertEquals(DropReason.NONE, validator.validate(copy, 0, length, packet), "every frame sent is valid");
            sent.add(packet);
            link.send(buffer, offset, length);
        });
        return sent;
    }

    private static List<RocePacket> concat(final List<RocePacket> a, final List<RocePacket> b)
    {
        final List<RocePacket> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }
}
