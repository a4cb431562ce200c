package io.rnic.wire;

import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class UdpSourcePortTest
{
    @Test
    void shouldMatchTheReferenceCardExample()
    {
        assertEquals(0xC132, UdpSourcePort.of(0x11, 0x12, 0));
    }

    @Test
    void shouldBeSymmetricInTheTwoQpnsAndInTheHighRange()
    {
        final SplittableRandom random = new SplittableRandom(7);
        for (int i = 0; i < 100_000; i++)
        {
            final int a = random.nextInt(1 << 24);
            final int b = random.nextInt(1 << 24);
            final int port = UdpSourcePort.of(a, b, 0);
            assertEquals(port, UdpSourcePort.of(b, a, 0));
            assertTrue(port >= 0xC000 && port <= 0xFFFF);
            assertEquals(reference(a, b), port);
        }
    }

    @Test
    void shouldUseTheApplicationFlowLabelWhenSet()
    {
        assertEquals(0xC000 | (0x12345 & 0x3FFF ^ (0x12345 & 0xFC000) >>> 14), UdpSourcePort.of(0x11, 0x12, 0x12345));
        assertEquals(UdpSourcePort.fromFlowLabel(0xFFFFF), UdpSourcePort.of(1, 2, 0xFFFFF));
    }

    @Test
    void shouldSetFlowLabelAndSourcePortTogetherForAConnectedQp()
    {
        final FrameSpec spec = new FrameSpec().ethernet(1, 2).ipv6(1, 2, 3, 4).bth(Opcode.RC_SEND_ONLY, 0x12, 0);
        spec.ecmpFlow(0x11, 0x12, 0);
        final org.agrona.concurrent.UnsafeBuffer frame = Frames.build(spec, 4);
        final Ipv6Flyweight ip = new Ipv6Flyweight().wrapAt(frame, EthernetFlyweight.LENGTH);
        assertEquals(0x132, ip.flowLabel());
        assertEquals(0xC132, new UdpFlyweight().wrapAt(frame, EthernetFlyweight.LENGTH + 40).sourcePort());

        spec.ecmpFlow(0x11, 0x12, 0xABCDE);
        final org.agrona.concurrent.UnsafeBuffer labelled = Frames.build(spec, 4);
        assertEquals(0xABCDE, new Ipv6Flyweight().wrapAt(labelled, EthernetFlyweight.LENGTH).flowLabel());
        assertEquals(UdpSourcePort.fromFlowLabel(0xABCDE),
            new UdpFlyweight().wrapAt(labelled, EthernetFlyweight.LENGTH + 40).sourcePort());
    }

    /** Linux's rdma_calc_flow_label + rdma_flow_label_to_udp_sport, transcribed independently with BigInteger-free math. */
    private static int reference(final int lqpn, final int rqpn)
    {
        final long product = Long.parseUnsignedLong(Long.toUnsignedString((long)lqpn * rqpn));
        long v = product;
        v = v ^ (v >>> 20);
        v = v ^ (v >>> 40);
        final int fl = (int)(v & 0xFFFFF);
        final int low = (fl & 0x03FFF) ^ ((fl & 0xFC000) >> 14);
        return low | 0xC000;
    }
}
