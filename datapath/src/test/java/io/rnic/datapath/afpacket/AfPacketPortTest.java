package io.rnic.datapath.afpacket;

import io.rnic.datapath.port.PortException;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The AF_PACKET port on a real veth pair: frames both ways, byte-exact, in bursts, and its errors. Needs root. */
class AfPacketPortTest
{
    private static final int TEST_ETHERTYPE = 0x88B5; // IEEE local experimental: nobody else sends it
    private static VethPair veth;

    @BeforeAll
    static void createVeth() throws Exception
    {
        assumeTrue(VethPair.available(), "needs root and iproute2 to create a veth pair");
        veth = new VethPair(1500);
    }

    @AfterAll
    static void deleteVeth()
    {
        if (veth != null)
        {
            veth.close();
        }
    }

    @Test
    void shouldCarryFramesBothWaysByteExactInBursts()
    {
        try (AfPacketPort a = AfPacketPort.open(AfPacketConfig.of(veth.a));
            AfPacketPort b = AfPacketPort.open(AfPacketConfig.of(veth.b)))
        {
            assertEquals(1500, a.mtu());
            final UnsafeBuffer frame = new UnsafeBuffer(new byte[1514]);
            for (int round = 0; round < 3; round++)
            {
                final List<byte[]> sent = new ArrayList<>();
                for (int i = 0; i < 300; i++)
                {
                    final int length = 60 + (i * 37 + round * 101) % (1514 - 60 + 1);
                    fill(frame, b.macAddress(), a.macAddress(), length, round * 1000 + i);
                    assertTrue(a.transmit(frame, 0, length));
                    final byte[] copy = new byte[length];
                    frame.getBytes(0, copy);
                    sent.add(copy);
                    if (i % 50 == 49)
                    {
                        a.flush();
                    }
                }
                a.flush();
                final List<byte[]> received = receive(b, sent.size());
                assertEquals(sent.size(), received.size(), "frames received");
                for (int i = 0; i < sent.size(); i++)
                {
                    assertArrayEquals(sent.get(i), received.get(i), "frame " + i + " of round " + round);
                }
            }
            // the other direction, and a's own transmissions never come back to a
            fill(frame, a.macAddress(), b.macAddress(), 200, 7);
            assertTrue(b.transmit(frame, 0, 200));
            b.flush();
            final List<byte[]> back = receive(a, 1);
            assertEquals(1, back.size());
            assertEquals(200, back.get(0).length);
            assertEquals(900, a.framesTransmitted());
            assertEquals(1, a.framesReceived());
            assertEquals(0, a.transmitDrops());
        }
    }

    /** The engine takes a response as unseen by the peer until the port pushes it out (max_dest_rd_atomic). */
    @Test
    void shouldCountAPushWhenQueuedFramesLeaveAndNotWhenTheyAreQueued()
    {
        try (AfPacketPort a = AfPacketPort.open(AfPacketConfig.of(veth.a));
            AfPacketPort b = AfPacketPort.open(AfPacketConfig.of(veth.b)))
        {
            final UnsafeBuffer frame = new UnsafeBuffer(new byte[1514]);
            for (final int burst : new int[]{ 1, 3 }) // a lone frame leaves by sendto, more by a ring kick
            {
                final long before = a.pushes();
                for (int i = 0; i < burst; i++)
                {
                    fill(frame, b.macAddress(), a.macAddress(), 100, burst * 10 + i);
                    assertTrue(a.transmit(frame, 0, 100));
                }
                assertEquals(before, a.pushes(), "queued frames have not left");
                a.flush();
                assertTrue(a.pushes() > before, "the flush pushed them");
                assertEquals(burst, receive(b, burst).size());
            }
        }
    }

    @Test
    void shouldDropAndCountAFrameLongerThanTheMtu()
    {
        try (AfPacketPort a = AfPacketPort.open(AfPacketConfig.of(veth.a)))
        {
            final UnsafeBuffer frame = new UnsafeBuffer(new byte[3000]);
            assertFalse(a.transmit(frame, 0, 1500 + 14 + 4 + 1));
            assertFalse(a.transmit(frame, 0, 10));
            assertEquals(2, a.transmitDrops());
        }
    }

    /** The kernel's count is read on the polling thread, so that the port's counter holds it for any reader. */
    @Test
    void shouldCountFramesTheKernelDroppedOnAFullReceiveRing()
    {
        try (AfPacketPort a = AfPacketPort.open(new AfPacketConfig(veth.a, 16, 512, false, 0, AfPacketConfig.NO_VLAN));
            AfPacketPort b = AfPacketPort.open(AfPacketConfig.of(veth.b)))
        {
            final UnsafeBuffer frame = new UnsafeBuffer(new byte[1514]);
            for (int i = 0; i < 64; i++)
            {
                fill(frame, a.macAddress(), b.macAddress(), 100, i);
                assertTrue(b.transmit(frame, 0, 100));
                b.flush();
            }
            final long deadline = System.nanoTime() + 5_000_000_000L;
            while (a.receiveDrops() == 0 && System.nanoTime() < deadline)
            {
                a.receive((buffer, offset, length) -> { }, 64);
            }
            assertTrue(a.receiveDrops() > 0, "frames beyond the 16 ring slots dropped by the kernel");
        }
    }

    /** The failure dump's view of the ring: the frames the engine has not taken, from the slot it reads next. */
    @Test
    void shouldDescribeTheFramesWaitingInTheReceiveRing()
    {
        try (AfPacketPort a = AfPacketPort.open(AfPacketConfig.of(veth.a));
            AfPacketPort b = AfPacketPort.open(AfPacketConfig.of(veth.b)))
        {
            final UnsafeBuffer frame = new UnsafeBuffer(new byte[100]);
            for (int i = 0; i < 3; i++)
            {
                fill(frame, a.macAddress(), b.macAddress(), 100, i);
                assertTrue(b.transmit(frame, 0, 100));
            }
            b.flush();
            final long deadline = System.nanoTime() + 5_000_000_000L;
            while (!a.describeReceive().contains("3 frames waiting") && System.nanoTime() < deadline)
            {
                Thread.onSpinWait();
            }
            final String waiting = a.describeReceive(); // the status: TP_STATUS_USER and what the kernel adds
            assertTrue(waiting.startsWith("rx ring of 1024 slots: engine's next slot 0 (status 0x") &&
                waiting.endsWith("), 3 frames waiting in slots 0..2"), waiting);
            assertEquals(3, receive(a, 3).size());
            assertEquals("rx ring of 1024 slots: engine's next slot 3 (status 0x0), 0 frames waiting",
                a.describeReceive());
        }
    }

    /**
     * A frame longer than the ring's slots (the MTU raised after the port opened) reaches the ring cut short: a drop
     * of its own reason, not a full ring's, so that the counters tell the two apart.
     */
    @Test
    void shouldCountAFrameLongerThanARingSlotApartFromRingOverruns() throws Exception
    {
        try (AfPacketPort a = AfPacketPort.open(AfPacketConfig.of(veth.a)))
        {
            setMtu(4000);
            try (AfPacketPort b = AfPacketPort.open(AfPacketConfig.of(veth.b)))
            {
                final UnsafeBuffer frame = new UnsafeBuffer(new byte[3000]);
                fill(frame, a.macAddress(), b.macAddress(), 3000, 1);
                assertTrue(b.transmit(frame, 0, 3000));
                b.flush();
                fill(frame, a.macAddress(), b.macAddress(), 100, 2);
                assertTrue(b.transmit(frame, 0, 100));
                b.flush();
                final List<byte[]> received = receive(a, 1);
                assertEquals(1, received.size());
                assertEquals(100, received.get(0).length, "the short frame, after the long one");
                assertEquals(1, a.receiveTooLong());
                assertEquals(0, a.receiveDrops());
            }
            finally
            {
                setMtu(1500);
            }
        }
    }

    private static void setMtu(final int mtu) throws Exception
    {
        for (final String iface : new String[]{ veth.a, veth.b })
        {
            final Process ip = new ProcessBuilder("ip", "link", "set", iface, "mtu", String.valueOf(mtu))
                .redirectErrorStream(true).start();
            assertEquals(0, ip.waitFor(), new String(ip.getInputStream().readAllBytes()));
        }
    }

    @Test
    void shouldNameTheMissingInterfaceAndListTheOthers()
    {
        final PortException error =
            assertThrows(PortException.class, () -> AfPacketPort.open(AfPacketConfig.of("nosuchif0")));
        assertTrue(error.getMessage().contains("nosuchif0") && error.getMessage().contains(veth.a),
            error.getMessage());
        assertThrows(PortException.class, () -> AfPacketConfig.of("an-interface-name-too-long"));
    }

    @Test
    void shouldReportTheInterfaceMacAddress() throws Exception
    {
        try (AfPacketPort a = AfPacketPort.open(AfPacketConfig.of(veth.a)))
        {
            final String text = Files.readString(Path.of("/sys/class/net", veth.a, "address")).trim();
            assertEquals(AfPacketPort.parseMac(text, veth.a), a.macAddress());
        }
    }

    /**
     * 802.1Q on a plain interface: the kernel takes the tag off a received frame (into {@code tp_vlan_tci}); a port
     * with a VLAN id hands over only that VLAN's frames, a port without one only untagged frames (another VLAN's
     * are its VLAN device's).
     */
    @Test
    void shouldHandEachPortOnlyItsVlansFrames()
    {
        try (AfPacketPort a = AfPacketPort.open(AfPacketConfig.of(veth.a).withVlanId(10));
            AfPacketPort untagged = AfPacketPort.open(AfPacketConfig.of(veth.b));
            AfPacketPort vlan10 = AfPacketPort.open(AfPacketConfig.of(veth.b).withVlanId(10));
            AfPacketPort vlan20 = AfPacketPort.open(AfPacketConfig.of(veth.b).withVlanId(20)))
        {
            assertEquals(10, a.vlanId());
            assertEquals(AfPacketConfig.NO_VLAN, untagged.vlanId());
            final UnsafeBuffer frame = new UnsafeBuffer(new byte[128]);
            final int[][] sent = { { 10, 1 }, { -1, 2 }, { 20, 3 }, { 10, 4 } }; // VLAN (-1: none), seed
            for (final int[] each : sent)
            {
                final int length = tagged(frame, untagged.macAddress(), a.macAddress(), each[0], each[1]);
                assertTrue(a.transmit(frame, 0, length));
                a.flush();
            }
            assertEquals(List.of(2), seeds(receive(untagged, 1)));
            assertEquals(List.of(1, 4), seeds(receive(vlan10, 2)));
            assertEquals(List.of(3), seeds(receive(vlan20, 1)));
        }
    }

    /** A 100-byte frame of TEST_ETHERTYPE, tagged with {@code vlanId} (PCP 3) unless it is -1; payload from seed. */
    private static int tagged(
        final UnsafeBuffer frame, final long destination, final long source, final int vlanId, final int seed)
    {
        fill(frame, destination, source, 100, seed);
        int payload = 14;
        if (vlanId >= 0)
        {
            frame.putShort(12, (short)0x8100, ByteOrder.BIG_ENDIAN);
            frame.putShort(14, (short)(3 << 13 | vlanId), ByteOrder.BIG_ENDIAN);
            frame.putShort(16, (short)TEST_ETHERTYPE, ByteOrder.BIG_ENDIAN);
            payload = 18;
        }
        frame.putByte(payload, (byte)seed);
        return 100;
    }

    /** The seed of each frame received, the tag taken off by the kernel. */
    private static List<Integer> seeds(final List<byte[]> frames)
    {
        final List<Integer> seeds = new ArrayList<>();
        for (final byte[] frame : frames)
        {
            seeds.add((int)frame[14]);
        }
        return seeds;
    }

    private static void fill(final UnsafeBuffer frame, final long destination, final long source, final int length,
        final int seed)
    {
        frame.putShort(0, (short)(destination >>> 32), ByteOrder.BIG_ENDIAN);
        frame.putInt(2, (int)destination, ByteOrder.BIG_ENDIAN);
        frame.putShort(6, (short)(source >>> 32), ByteOrder.BIG_ENDIAN);
        frame.putInt(8, (int)source, ByteOrder.BIG_ENDIAN);
        frame.putShort(12, (short)TEST_ETHERTYPE, ByteOrder.BIG_ENDIAN);
        for (int i = 14; i < length; i++)
        {
            frame.putByte(i, (byte)(seed * 31 + i * 7));
        }
    }

    private static List<byte[]> receive(final AfPacketPort port, final int expected)
    {
        final List<byte[]> frames = new ArrayList<>();
        final long deadline = System.nanoTime() + 5_000_000_000L;
        while (frames.size() < expected && System.nanoTime() < deadline)
        {
            port.receive((DirectBuffer buffer, int offset, int length) ->
            {
                if ((buffer.getShort(offset + 12, ByteOrder.BIG_ENDIAN) & 0xFFFF) == TEST_ETHERTYPE)
                {
                    final byte[] copy = new byte[length];
                    buffer.getBytes(offset, copy);
                    frames.add(copy);
                }
            }, 64);
        }
        return frames;
    }
}
