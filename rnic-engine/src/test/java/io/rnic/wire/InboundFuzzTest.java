package io.rnic.wire;

import io.rnic.icrc.Icrc;
import io.rnic.icrc.IcrcCalculator;
import io.rnic.testing.TestVectors;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A seeded mutation fuzzer over the inbound path: frames grown from the shared vectors (and from the builder) are
 * mutated (bit flips, random bytes, length fields, opcodes, pad counts, truncation, extension, splices) and,
 * half of the time, re-sealed with a correct IPv4 checksum and ICRC so that the mutation reaches the checks
 * behind the ICRC. Each frame sits in a buffer of exactly its length with bounds checks on, so a read past its
 * end throws. No exception may escape, and every frame is counted as accepted or dropped for a named reason.
 */
class InboundFuzzTest
{
    private static final int ITERATIONS = Integer.getInteger("rnic.fuzz.iterations", 1_200_000);
    private static final long SEED = Long.getLong("rnic.fuzz.seed", 0x5EED_2026L);

    @Test
    void shouldSurviveAMillionMutatedFramesAndCountEachOne()
    {
        final List<byte[]> seeds = new ArrayList<>();
        TestVectors.valid().forEach(v -> seeds.add(v.frame()));
        TestVectors.invalid().forEach(v -> seeds.add(v.frame()));
        for (final int opcode : Frames.allOpcodes())
        {
            final UnsafeBuffer frame = Frames.build(Frames.spec(opcode, (opcode & 1) == 0, (opcode & 2) == 0),
                Frames.payloadLengthFor(opcode, opcode * 3 % 61));
            seeds.add(frame.byteArray());
        }

        final SplittableRandom random = new SplittableRandom(SEED);
        final InboundCounters counters = new InboundCounters();
        final IcrcCalculator icrc = Icrc.defaultCalculator();
        final InboundValidator validator = new InboundValidator(icrc, counters);
        final RocePacket packet = new RocePacket();
        final FrameFields fields = new FrameFields();
        final EnumSet<DropReason> seen = EnumSet.noneOf(DropReason.class);
        final byte[] work = new byte[16384];

        for (int i = 0; i < ITERATIONS; i++)
        {
            final byte[] seed = seeds.get(random.nextInt(seeds.size()));
            int length = seed.length;
            System.arraycopy(seed, 0, work, 0, length);
            final int mutations = 1 + random.nextInt(4);
            for (int m = 0; m < mutations; m++)
            {
                length = mutate(work, length, random, seeds);
            }
            final byte[] frame = new byte[length];
            System.arraycopy(work, 0, frame, 0, length);
            final UnsafeBuffer buffer = new UnsafeBuffer(frame);
            if (random.nextBoolean())
            {
                reseal(buffer, icrc);
            }

            final DropReason reason = validator.validate(buffer, 0, length, packet);
            seen.add(reason);
            if (reason == DropReason.NONE)
            {
                assertTrue(packet.payloadOffset() + packet.payloadLength() + packet.padCount() == packet.icrcOffset());
                assertTrue(packet.datagramEnd() <= length);
                assertTrue(Opcode.isValid(packet.opcode()));
            }
            if ((i & 63) == 0)
            {
                fields.decode(buffer, 0, length); // the human-facing decoder must survive the same frames
            }
        }

        System.out.println("fuzz: " + ITERATIONS + " mutated frames, seed 0x" + Long.toHexString(SEED) + ": " + counters);
        assertEquals(ITERATIONS, counters.total());
        long sum = 0;
        for (final DropReason reason : DropReason.values())
        {
            sum += counters.get(reason);
        }
        assertEquals(ITERATIONS, sum);
        // The fuzzer must actually reach the checks, not bounce off the first one.
        assertTrue(seen.size() >= DropReason.values().length - 2, "reasons reached: " + seen);
        assertTrue(counters.accepted() > ITERATIONS / 100, counters.toString());
    }

    private static int mutate(final byte[] frame, final int length, final SplittableRandom random, final List<byte[]> seeds)
    {
        final UnsafeBuffer b = new UnsafeBuffer(frame);
        final int ip = length > 14 && (frame[12] & 0xFF) == 0x81 ? 18 : 14;
        switch (random.nextInt(12))
        {
            case 0:
                if (length > 0)
                {
                    final int at = random.nextInt(length);
                    frame[at] ^= (byte)(1 << random.nextInt(8));
                }
                return length;
            case 1:
                if (length > 0)
                {
                    frame[random.nextInt(length)] = (byte)random.nextInt(256);
                }
                return length;
            case 2:
                return random.nextInt(length + 1); // truncate
            case 3:
            {
                final int extra = random.nextInt(64);
                final int newLength = Math.min(frame.length, length + extra);
                for (int i = length; i < newLength; i++)
                {
                    frame[i] = (byte)random.nextInt(256);
                }
                return newLength;
            }
            case 4: // IPv4 total length / IPv6 payload length
                if (length >= ip + 6)
                {
                    final int at = (frame[ip] & 0xF0) == 0x60 ? ip + 4 : ip + 2;
                    b.putShort(at, (short)lengthValue(random, length), ByteOrder.BIG_ENDIAN);
                }
                return length;
            case 5: // UDP length
            {
                final int at = ip + ((frame[ip] & 0xF0) == 0x60 ? 40 : 20) + 4;
                if (length >= at + 2)
                {
                    b.putShort(at, (short)lengthValue(random, length), ByteOrder.BIG_ENDIAN);
                }
                return length;
            }
            case 6: // opcode
            case 7: // BTH flags byte: SE, M, pad count, TVer
            {
                final int at = ip + ((frame[ip] & 0xF0) == 0x60 ? 40 : 20) + 8 + random.nextInt(2);
                if (length > at)
                {
                    frame[at] = (byte)(random.nextInt(8) == 0 ? random.nextInt(256) : random.nextInt(0x18) |
                        (frame[at] & 0x60));
                }
                return length;
            }
            case 8: // splice the tail of another frame
            {
                final byte[] other = seeds.get(random.nextInt(seeds.size()));
                final int from = random.nextInt(other.length);
                final int at = random.nextInt(length + 1);
                final int n = Math.min(other.length - from, frame.length - at);
                System.arraycopy(other, from, frame, at, n);
                return at + n;
            }
            case 9: // VLAN tag in or out
                if (length + 4 <= frame.length && ip == 14 && length >= 14)
                {
                    System.arraycopy(frame, 12, frame, 16, length - 12);
                    b.putShort(12, (short)0x8100, ByteOrder.BIG_ENDIAN);
                    b.putShort(14, (short)random.nextInt(65536), ByteOrder.BIG_ENDIAN);
                    return length + 4;
                }
                return length;
            case 10: // destination QP, sometimes 0 or 1
            {
                final int at = ip + ((frame[ip] & 0xF0) == 0x60 ? 40 : 20) + 8 + 5;
                if (length >= at + 3)
                {
                    final int qp = random.nextInt(3) == 0 ? random.nextInt(2) : random.nextInt(1 << 24);
                    frame[at] = (byte)(qp >>> 16);
                    frame[at + 1] = (byte)(qp >>> 8);
                    frame[at + 2] = (byte)qp;
                }
                return length;
            }
            default: // IPv4 flags / IHL / protocol bytes
                if (length >= ip + 20)
                {
                    final int[] at = { ip, ip + 6, ip + 9 };
                    frame[at[random.nextInt(3)]] = (byte)random.nextInt(256);
                }
                return length;
        }
    }

    private static int lengthValue(final SplittableRandom random, final int frameLength)
    {
        return switch (random.nextInt(4))
        {
            case 0 -> random.nextInt(65536);
            case 1 -> random.nextInt(64);
            default -> Math.max(0, frameLength - 40 + random.nextInt(80));
        };
    }

    /** Gives a mutated frame a correct IPv4 checksum and ICRC where its lengths allow, to get past both. */
    private static void reseal(final UnsafeBuffer frame, final IcrcCalculator icrc)
    {
        final int length = frame.capacity();
        if (length < 18)
        {
            return;
        }
        final int ip = (frame.getShort(12, ByteOrder.BIG_ENDIAN) & 0xFFFF) == 0x8100 ? 18 : 14;
        if (length < ip + 40)
        {
            return;
        }
        final boolean v6 = (frame.getByte(ip) & 0xF0) == 0x60;
        final int datagramEnd;
        if (v6)
        {
            datagramEnd = ip + 40 + (frame.getShort(ip + 4, ByteOrder.BIG_ENDIAN) & 0xFFFF);
        }
        else
        {
            final Ipv4Flyweight ipv4 = new Ipv4Flyweight().wrapAt(frame, ip);
            ipv4.checksum(ipv4.computeChecksum());
            datagramEnd = ip + ipv4.totalLength();
        }
        final int udpEnd = ip + (v6 ? 40 : 20) + 8 + 12;
        if (datagramEnd <= length && datagramEnd - 4 >= udpEnd)
        {
            Icrc.writeWire(frame, datagramEnd - 4, icrc.compute(frame, ip, v6, datagramEnd - 4));
        }
    }
}
