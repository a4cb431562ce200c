package io.rnic.transport;

import io.rnic.cc.DcqcnParameters;
import io.rnic.device.EngineQueuePair;
import io.rnic.device.QueuePair;
import io.rnic.sim.EcnMarking;
import io.rnic.sim.LinkConditions;
import io.rnic.sim.TwoNodeFabric;
import io.rnic.verbs.PathMtu;
import io.rnic.verbs.QpType;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.WrOpcode;
import io.rnic.wire.BthFlyweight;
import io.rnic.wire.CnpFlyweight;
import io.rnic.wire.DropReason;
import io.rnic.wire.Ecn;
import io.rnic.wire.EthernetFlyweight;
import io.rnic.wire.FrameSpec;
import io.rnic.wire.InboundValidator;
import io.rnic.wire.Ipv4Flyweight;
import io.rnic.wire.Ipv6Flyweight;
import io.rnic.wire.Opcode;
import io.rnic.wire.PacketBuilder;
import io.rnic.wire.RocePacket;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * DCQCN wired into the engine, on the simulated fabric's virtual clock: ECT(0) on the packets of QPs with
 * congestion control on, one CNP per QP per interval for CE-marked packets (fields as annex A17.9.3 figure 6), a
 * CNP cutting the sender's rate and the shaper pacing the requester at it.
 */
class CongestionControlTest
{
    private static final long LINE_RATE_BITS_PER_SEC = 10_000_000_000L;
    private static final DcqcnParameters TEN_GIG = DcqcnParameters.connectX()
        .with(DcqcnParameters.LINE_RATE_BITS_PER_SEC_PARAM_NAME, Long.toString(LINE_RATE_BITS_PER_SEC));

    private final Arena arena = Arena.ofShared();

    @AfterEach
    void close()
    {
        arena.close();
    }

    /** A frame seen leaving an engine, at the virtual time it left. */
    private record Sent(long atNs, UnsafeBuffer frame, RocePacket packet)
    {
    }

    /** Records every frame an engine sends, then hands it on to the fabric's link. */
    private static List<Sent> tap(final TwoNodeFabric fabric, final RnicEngine engine, final PacketSink link)
    {
        final List<Sent> sent = new ArrayList<>();
        final InboundValidator validator = new InboundValidator();
        engine.sink((buffer, offset, length) ->
        {
            final UnsafeBuffer copy = new UnsafeBuffer(new byte[length]);
            copy.putBytes(0, buffer, offset, length);
            final RocePacket packet = new RocePacket();
            assertEquals(DropReason.NONE, validator.validate(copy, 0, length, packet), "every frame sent is valid");
            sent.add(new Sent(fabric.clock().nanoTime(), copy, packet));
            link.send(buffer, offset, length);
        });
        return sent;
    }

    @Test
    void shouldAnswerCeMarkedPacketsWithOneCnpPerIntervalPerQp()
    {
        // every ECN-capable frame from A to B is marked; A's rate may not drop (min rate = line rate), so marked
        // packets keep arriving back to back and the throttle alone decides when CNPs go
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions().ceMark(1.0), new LinkConditions(), 5);
        fabric.a().congestionControl(TEN_GIG.with(DcqcnParameters.MIN_RATE_BITS_PER_SEC_PARAM_NAME,
            Long.toString(LINE_RATE_BITS_PER_SEC)));
        fabric.b().congestionControl(TEN_GIG);
        final Connection[] first = Connection.rcPair(fabric, arena, 1 << 20, PathMtu.MTU_1024);
        final Connection[] second = Connection.rcPair(fabric, arena, 1 << 20, PathMtu.MTU_1024);
        final List<Sent> fromB = tap(fabric, fabric.b().engine(), fabric.bToA());

        final long startNs = fabric.clock().nanoTime();
        final long durationNs = 1_000_000;
        runWrites(fabric, new Connection[][]{ first, second }, 65536, durationNs);

        final long intervalNs = TEN_GIG.cnpIntervalNs();
        long cnps = 0;
        for (final Connection[] pair : new Connection[][]{ first, second })
        {
            final int senderQpn = pair[0].qp.qpn();
            final List<Long> times = new ArrayList<>();
            for (final Sent sent : fromB)
            {
                if (sent.packet.opcode() == Opcode.CNP && sent.packet.destinationQp() == senderQpn)
                {
                    times.add(sent.atNs);
                    assertCnpFields(sent, senderQpn);
                }
            }
            assertTrue(times.size() > 0, "CNPs to QP " + senderQpn);
            assertTrue(times.get(0) - startNs < 10_000, "the first marked packet is answered at once");
            for (int i = 1; i < times.size(); i++)
            {
                final long gapNs = times.get(i) - times.get(i - 1);
                assertTrue(gapNs >= intervalNs, "CNP " + i + " only " + gapNs + " ns after the previous one");
                assertTrue(gapNs <= intervalNs + 5_000, "CNP " + i + " " + gapNs + " ns after the previous one, " +
                    "though marked packets kept arriving");
            }
            final long expected = durationNs / intervalNs;
            assertTrue(times.size() >= expected - 1 && times.size() <= expected + 1,
                times.size() + " CNPs in " + durationNs + " ns, expected about " + expected);
            cnps += times.size();
        }
        final TransportCounters b = fabric.b().engine().counters();
        final TransportCounters a = fabric.a().engine().counters();
        assertEquals(cnps, b.get(TransportCounter.CNP_SENT));
        assertTrue(b.get(TransportCounter.ECN_MARKED_RECEIVED) > 10 * cnps, "marked packets are coalesced");
        runUntilQuiet(fabric);
        assertEquals(b.get(TransportCounter.CNP_SENT), a.get(TransportCounter.CNP_RECEIVED),
            "every CNP reached A's reaction point");
        assertEquals(0, a.get(TransportCounter.CNP_IGNORED));
        assertEquals(LINE_RATE_BITS_PER_SEC, first[0].qp.rateBitsPerSec(), "min rate = line rate: no cut");
    }

    /**
     * A UD QP has no peer: its CNP goes back to the marked datagram's source — the packet's MAC and IP swapped,
     * DestQP the DETH's source QP — and cuts the sending UD QP's rate, over IPv4 and IPv6.
     */
    @Test
    void shouldAnswerCeMarkedUdDatagramsWithACnpToTheirSource()
    {
        for (final boolean ipv6 : new boolean[]{ false, true })
        {
            final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions().ceMark(1.0), new LinkConditions(), 7);
            fabric.a().congestionControl(TEN_GIG);
            fabric.b().congestionControl(TEN_GIG);
            final Connection[] pair = Connection.pair(fabric, arena, QpType.UD, 8192, PathMtu.MTU_1024, 0);
            final List<Sent> fromB = tap(fabric, fabric.b().engine(), fabric.bToA());
            final SendWorkRequest send = new SendWorkRequest();
            send.opcode = WrOpcode.SEND;
            send.sgl.add(pair[0].mr.address(), 1000, pair[0].mr.lKey());
            send.udRemoteQpn = pair[1].qp.qpn();
            send.udRemoteQkey = 0x11111111;
            UcUdTest.addressToB(send, ipv6);
            for (int i = 0; i < 4; i++)
            {
                assertEquals(QueuePair.POST_OK, pair[0].qp.postSend(send));
            }
            final TransportCounters b = fabric.b().engine().counters();
            assertTrue(fabric.runUntil(() -> b.get(TransportCounter.ECN_MARKED_RECEIVED) == 4, 10_000_000),
                "every datagram arrived marked");
            runUntilQuiet(fabric);
            assertEquals(1, b.get(TransportCounter.CNP_SENT), "one CNP: the others fall in the same interval");
            final List<Sent> cnps = fromB.stream().filter(sent -> sent.packet.opcode() == Opcode.CNP).toList();
            assertEquals(1, cnps.size());
            final Sent cnp = cnps.get(0);
            assertEquals(pair[0].qp.qpn(), cnp.packet.destinationQp(), "DestQP = the datagram's source QP");
            assertEquals(TwoNodeFabric.MAC_A, new EthernetFlyweight().wrapAt(cnp.frame, 0).destinationMac());
            assertEquals(TwoNodeFabric.MAC_B, new EthernetFlyweight().wrapAt(cnp.frame, 0).sourceMac());
            assertEquals(ipv6, cnp.packet.isIpv6());
            if (ipv6)
            {
                final Ipv6Flyweight ip = new Ipv6Flyweight().wrapAt(cnp.frame, cnp.packet.ipOffset());
                assertEquals(0xA, ip.destinationLow());
                assertEquals(0xB, ip.sourceLow());
            }
            else
            {
                final Ipv4Flyweight ip = new Ipv4Flyweight().wrapAt(cnp.frame, cnp.packet.ipOffset());
                assertEquals(TwoNodeFabric.IP_A, ip.destination());
                assertEquals(TwoNodeFabric.IP_B, ip.source());
            }
            assertEquals(Ecn.NOT_ECT, cnp.packet.ecn());
            assertTrue(new BthFlyweight().wrapAt(cnp.frame, cnp.packet.bthOffset()).becn());
            assertEquals(1, fabric.a().engine().counters().get(TransportCounter.CNP_RECEIVED));
            assertEquals(LINE_RATE_BITS_PER_SEC / 2, pair[0].qp.rateBitsPerSec(), "the UD QP's rate was cut");
        }
    }

    private static void assertCnpFields(final Sent sent, final int senderQpn)
    {
        final RocePacket packet = sent.packet;
        final DirectBuffer frame = sent.frame;
        assertEquals(0x81, packet.opcode());
        assertEquals(senderQpn, packet.destinationQp(), "DestQP = the QP to throttle");
        assertEquals(0, packet.psn());
        assertFalse(packet.solicitedEvent());
        assertFalse(packet.ackRequest());
        assertEquals(BthFlyweight.DEFAULT_PKEY, packet.partitionKey(), "P_Key of the marked packet");
        final BthFlyweight bth = new BthFlyweight().wrapAt(frame, packet.bthOffset());
        assertFalse(bth.migrationRequest());
        assertTrue(bth.becn(), "BECN set");
        assertFalse(bth.fecn());
        assertTrue(new CnpFlyweight().wrapAt(frame, packet.headerOffset(Opcode.CNP_RESERVED)).isReservedZero());
        assertEquals(0, packet.payloadLength());
        assertEquals(Ecn.NOT_ECT, packet.ecn(), "a CNP is not ECN-capable");
        final Ipv4Flyweight ip = new Ipv4Flyweight().wrapAt(frame, packet.ipOffset());
        assertEquals(TwoNodeFabric.IP_A, ip.destination());
        assertEquals(TwoNodeFabric.IP_B, ip.source());
    }

    @Test
    void shouldMarkEct0OnlyWhenCongestionControlIsOn()
    {
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), 7);
        fabric.a().congestionControl(TEN_GIG);
        final Connection[] on = Connection.rcPair(fabric, arena, 1 << 20, PathMtu.MTU_1024);
        fabric.a().congestionControl(null);
        final Connection[] off = Connection.rcPair(fabric, arena, 1 << 20, PathMtu.MTU_1024);
        final List<Sent> fromA = tap(fabric, fabric.a().engine(), fabric.aToB());
        final List<Sent> fromB = tap(fabric, fabric.b().engine(), fabric.bToA());
        assertTrue(on[0].qp.isCongestionControlled());
        assertFalse(off[0].qp.isCongestionControlled());
        assertFalse(on[1].qp.isCongestionControlled(), "B has no default: off");
        assertEquals(QueuePair.NOT_RATE_LIMITED, off[0].qp.rateBitsPerSec());
        assertEquals(LINE_RATE_BITS_PER_SEC, on[0].qp.rateBitsPerSec());

        runWrites(fabric, new Connection[][]{ on, off }, 8192, 100_000);
        runUntilQuiet(fabric);

        int onPackets = 0;
        int offPackets = 0;
        for (final Sent sent : fromA)
        {
            final int sender = sent.packet.destinationQp() == on[1].qp.qpn() ? 1 : 0;
            if (sender == 1)
            {
                onPackets++;
                assertEquals(Ecn.ECT_0, sent.packet.ecn(), "QP with DCQCN: ECT(0)");
            }
            else
            {
                offPackets++;
                assertEquals(Ecn.NOT_ECT, sent.packet.ecn(), "QP without DCQCN: not ECN-capable");
            }
            assertEquals(sent.packet.ecn(), EcnMarking.ecn(sent.frame, 0, sent.frame.capacity()));
        }
        assertTrue(onPackets > 10 && offPackets > 10, onPackets + " / " + offPackets + " packets");
        for (final Sent sent : fromB)
        {
            assertEquals(Ecn.NOT_ECT, sent.packet.ecn(), "B's ACKs: B runs no congestion control");
        }
        assertEquals(0, fabric.b().engine().counters().get(TransportCounter.CNP_SENT));
    }

    @Test
    void shouldCutTheRateOnCnpAndPaceTheRequesterAtIt()
    {
        // no increase events during the test: the timer is 10 s away and the byte counter is off
        final DcqcnParameters noRecovery = TEN_GIG
            .with(DcqcnParameters.RATE_INCREASE_PERIOD_NS_PARAM_NAME, "10000000000")
            .with(DcqcnParameters.BYTE_COUNTER_BYTES_PARAM_NAME, "0");
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), 11);
        fabric.a().congestionControl(noRecovery);
        final Connection[] pair = Connection.rcPair(fabric, arena, 1 << 22, PathMtu.MTU_4096);
        final EngineQueuePair sender = pair[0].qp;

        final double lineRate = measureSendRate(fabric, pair, 1_000_000);
        assertEquals(LINE_RATE_BITS_PER_SEC, lineRate, LINE_RATE_BITS_PER_SEC * 0.02,
            "paced at line rate before any CNP");

        injectCnp(fabric, sender.qpn());
        assertEquals(LINE_RATE_BITS_PER_SEC / 2, sender.rateBitsPerSec(), "alpha = 1: the first CNP halves the rate");
        assertEquals(1, fabric.a().engine().counters().get(TransportCounter.CNP_RECEIVED));
        final double halved = measureSendRate(fabric, pair, 1_000_000);
        assertEquals(LINE_RATE_BITS_PER_SEC / 2.0, halved, LINE_RATE_BITS_PER_SEC * 0.01,
            "the shaper paces the requester at the cut rate");

        // ConnectX's g = 1019/1024: alpha has decayed to almost 0 in the 1 ms without a CNP, so the next CNP
        // hardly cuts; it brings alpha back to ~1, and a CNP right after it halves the rate again
        injectCnp(fabric, sender.qpn());
        final long afterDecay = sender.rateBitsPerSec();
        assertTrue(afterDecay > LINE_RATE_BITS_PER_SEC / 2 * 0.99, "alpha decayed: a small cut, " + afterDecay);
        injectCnp(fabric, sender.qpn());
        final long halvedAgain = sender.rateBitsPerSec();
        assertEquals(afterDecay * (1 - TEN_GIG.g() / 2), halvedAgain, afterDecay * 0.005,
            "alpha ~ g after one CNP: cut by about g/2");
        final double measured = measureSendRate(fabric, pair, 1_000_000);
        assertEquals(halvedAgain, measured, halvedAgain * 0.02, "paced at the rate after three CNPs");
        runUntilQuiet(fabric);
    }

    /** DCQCN paces all of a QP's data: the READ responses its responder sends follow the rate a CNP cut. */
    @Test
    void shouldPaceReadResponsesAtTheRespondersRate()
    {
        final DcqcnParameters noRecovery = TEN_GIG
            .with(DcqcnParameters.RATE_INCREASE_PERIOD_NS_PARAM_NAME, "10000000000")
            .with(DcqcnParameters.BYTE_COUNTER_BYTES_PARAM_NAME, "0");
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), 17);
        fabric.b().congestionControl(noRecovery);
        final Connection[] pair = Connection.rcPair(fabric, arena, 1 << 22, PathMtu.MTU_4096);
        final EngineQueuePair responder = pair[1].qp;

        final double lineRate = measureReadResponseRate(fabric, pair, 1_000_000);
        assertEquals(LINE_RATE_BITS_PER_SEC, lineRate, LINE_RATE_BITS_PER_SEC * 0.02, "line rate before any CNP");

        final FrameSpec spec = new FrameSpec()
            .ethernet(TwoNodeFabric.MAC_B, TwoNodeFabric.MAC_A)
            .ipv4(TwoNodeFabric.IP_A, TwoNodeFabric.IP_B)
            .bth(Opcode.CNP, responder.qpn(), 0)
            .fecnBecn(false, true);
        final UnsafeBuffer frame = new UnsafeBuffer(new byte[256]);
        fabric.b().engine().onFrame(frame, 0, new PacketBuilder().buildAroundPayload(frame, 0, spec, 0));
        assertEquals(LINE_RATE_BITS_PER_SEC / 2, responder.rateBitsPerSec(), "the responder's QP was cut");
        final double halved = measureReadResponseRate(fabric, pair, 1_000_000);
        assertEquals(LINE_RATE_BITS_PER_SEC / 2.0, halved, LINE_RATE_BITS_PER_SEC * 0.01,
            "its READ responses leave at the cut rate");
        runUntilQuiet(fabric);
    }

    /** A keeps eight 64 KB READs outstanding for {@code durationNs}; returns the bits/s B's engine sent. */
    private static double measureReadResponseRate(
        final TwoNodeFabric fabric, final Connection[] pair, final long durationNs)
    {
        final TransportCounters counters = fabric.b().engine().counters();
        final long bytesBefore = counters.get(TransportCounter.BYTES_SENT);
        final long startNs = fabric.clock().nanoTime();
        final SendWorkRequest wr = new SendWorkRequest();
        int outstanding = 0;
        final long endNs = startNs + durationNs;
        while (fabric.clock().nanoTime() < endNs)
        {
            outstanding -= pair[0].sendCq.poll(pair[0].completions, pair[0].completions.length);
            while (outstanding < 8)
            {
                wr.reset();
                wr.opcode = WrOpcode.RDMA_READ;
                wr.sgl.add(pair[0].mr.address(), 65536, pair[0].mr.lKey());
                wr.remoteAddress = pair[1].mr.address();
                wr.rKey = pair[1].mr.rKey();
                assertEquals(QueuePair.POST_OK, pair[0].qp.postSend(wr));
                outstanding++;
            }
            fabric.step();
        }
        final long elapsedNs = fabric.clock().nanoTime() - startNs;
        return (counters.get(TransportCounter.BYTES_SENT) - bytesBefore) * 8e9 / elapsedNs;
    }

    @Test
    void shouldRecoverTowardsLineRateWithoutCnps()
    {
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), 13);
        fabric.a().congestionControl(TEN_GIG);
        final Connection[] pair = Connection.rcPair(fabric, arena, 1 << 22, PathMtu.MTU_4096);
        measureSendRate(fabric, pair, 100_000);
        injectCnp(fabric, pair[0].qp.qpn());
        assertEquals(LINE_RATE_BITS_PER_SEC / 2, pair[0].qp.rateBitsPerSec());
        // ConnectX defaults: fast recovery on the first byte-counter event (32 KB), then additive increase
        measureSendRate(fabric, pair, 2_000_000);
        assertTrue(pair[0].qp.rateBitsPerSec() > LINE_RATE_BITS_PER_SEC * 0.95,
            "recovered to " + pair[0].qp.rateBitsPerSec());
        runUntilQuiet(fabric);
    }

    /** A CNP from B's address to A's QP, as B's notification point would send it. */
    private static void injectCnp(final TwoNodeFabric fabric, final int qpn)
    {
        final FrameSpec spec = new FrameSpec()
            .ethernet(TwoNodeFabric.MAC_A, TwoNodeFabric.MAC_B)
            .ipv4(TwoNodeFabric.IP_B, TwoNodeFabric.IP_A)
            .bth(Opcode.CNP, qpn, 0)
            .fecnBecn(false, true);
        final UnsafeBuffer frame = new UnsafeBuffer(new byte[256]);
        final int length = new PacketBuilder().buildAroundPayload(frame, 0, spec, 0);
        fabric.a().engine().onFrame(frame, 0, length);
    }

    /** Keeps A's send queue busy for {@code durationNs}; returns the bits/s A's engine put on the wire. */
    private static double measureSendRate(final TwoNodeFabric fabric, final Connection[] pair, final long durationNs)
    {
        final TransportCounters counters = fabric.a().engine().counters();
        final long bytesBefore = counters.get(TransportCounter.BYTES_SENT);
        final long startNs = fabric.clock().nanoTime();
        runWrites(fabric, new Connection[][]{ pair }, 65536, durationNs);
        final long elapsedNs = fabric.clock().nanoTime() - startNs;
        return (counters.get(TransportCounter.BYTES_SENT) - bytesBefore) * 8e9 / elapsedNs;
    }

    /** RDMA WRITEs from each pair's A side, eight outstanding per QP, for {@code durationNs} of virtual time. */
    private static void runWrites(
        final TwoNodeFabric fabric, final Connection[][] pairs, final int size, final long durationNs)
    {
        final SendWorkRequest wr = new SendWorkRequest();
        final int[] outstanding = new int[pairs.length];
        final long endNs = fabric.clock().nanoTime() + durationNs;
        while (fabric.clock().nanoTime() < endNs)
        {
            for (int i = 0; i < pairs.length; i++)
            {
                final Connection[] pair = pairs[i];
                outstanding[i] -= pair[0].sendCq.poll(pair[0].completions, pair[0].completions.length);
                while (outstanding[i] < 8)
                {
                    wr.reset();
                    wr.opcode = WrOpcode.RDMA_WRITE;
                    wr.sgl.add(pair[0].mr.address(), size, pair[0].mr.lKey());
                    wr.remoteAddress = pair[1].mr.address();
                    wr.rKey = pair[1].mr.rKey();
                    assertEquals(QueuePair.POST_OK, pair[0].qp.postSend(wr));
                    outstanding[i]++;
                }
            }
            fabric.step();
        }
    }

    /** Lets every frame in flight arrive (completions are left in the CQs). */
    private static void runUntilQuiet(final TwoNodeFabric fabric)
    {
        fabric.runUntil(() -> fabric.aToB().isEmpty() && fabric.bToA().isEmpty(), 10_000_000);
    }
}
