package io.rnic.bench;

import io.rnic.icrc.AdaptiveIcrc;
import io.rnic.icrc.Crc32CopyIcrc;
import io.rnic.icrc.Icrc;
import io.rnic.icrc.IcrcBurst;
import io.rnic.icrc.IcrcCalculator;
import io.rnic.icrc.ScalarIcrc;
import io.rnic.icrc.SeededIcrc;
import io.rnic.icrc.VectorIcrc;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;

/**
 * ICRC implementations against the raw {@link CRC32} intrinsic over the same number of bytes.
 * <p>
 * {@code size} is the length of the ICRC input: 8 bytes of 0xFF + IPv4 header + UDP + BTH + payload, so the
 * payloads are 16, 208, 976 and 4048 bytes. {@code burst32} is 32 IPv4 ACKs (BTH + AETH, 52-byte ICRC input each)
 * in consecutive 2 KB frames, one op = all 32 packets. Packets live off-heap, in an {@link UnsafeBuffer} over a
 * raw address, as they will in an AF_PACKET or DPDK ring; the IP header of frame {@code k} is at
 * {@code k * 2048 + 14}.
 * <p>
 * {@code raw} is {@code CRC32.reset(); update(ByteBuffer view of the same bytes); getValue()} with no masking: the
 * intrinsic reference. The other methods compute the real ICRC, one {@code compute} call per packet, except
 * {@code burst}, which hands all packets (or the one) to {@link IcrcBurst}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Thread)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {
    "--add-modules", "jdk.incubator.vector",
    "--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED",
    "--add-opens", "java.base/java.nio=ALL-UNNAMED",
    "--enable-native-access=ALL-UNNAMED" })
public class IcrcBenchmark
{
    private static final int FRAME = 2048;
    private static final int FRAMES = 32;
    private static final int ETHERNET = 14;
    private static final int ACK_ICRC_INPUT = Icrc.PREFIX_LENGTH + Icrc.IPV4_MASKED_LENGTH + 4;

    @Param({ "64", "256", "1024", "4096", "burst32" })
    public String size;

    private ByteBuffer memory;
    private ByteBuffer view;
    private UnsafeBuffer ring;
    private int count;
    private int[] ipOffsets;
    private int[] icrcOffsets;
    private boolean[] ipv6;
    private int[] results;

    private final CRC32 crc = new CRC32();
    private final IcrcCalculator crc32Copy = new Crc32CopyIcrc();
    private final IcrcCalculator scalar = new ScalarIcrc();
    private final IcrcCalculator vector = new VectorIcrc();
    private final IcrcCalculator seeded = new SeededIcrc();
    private final IcrcCalculator adaptive = Icrc.defaultCalculator();
    private final IcrcBurst burst = new IcrcBurst();

    @Setup
    public void setup()
    {
        final boolean isBurst = "burst32".equals(size);
        final int input = isBurst ? ACK_ICRC_INPUT : Integer.parseInt(size);
        count = isBurst ? FRAMES : 1;
        final int frame = Math.max(FRAME, ETHERNET + input + 64);
        memory = ByteBuffer.allocateDirect(frame * FRAMES + 64);
        final long base = (BufferUtil.address(memory) + 63) & ~63L;
        ring = new UnsafeBuffer(base, frame * FRAMES);
        view = memory.duplicate();
        final int viewShift = (int)(base - BufferUtil.address(memory));

        final byte[] random = new byte[frame * FRAMES];
        new SplittableRandom(0x1C2CL).nextBytes(random);
        ring.putBytes(0, random);
        ipOffsets = new int[count];
        icrcOffsets = new int[count];
        ipv6 = new boolean[count];
        results = new int[count];
        for (int k = 0; k < count; k++)
        {
            final int ip = k * frame + ETHERNET;
            final int regionLength = input - Icrc.PREFIX_LENGTH;
            ring.putByte(ip, (byte)0x45);
            ring.putShort(ip + 2, (short)(regionLength + Icrc.LENGTH), java.nio.ByteOrder.BIG_ENDIAN);
            ring.putByte(ip + 9, (byte)17);
            ring.putShort(ip + 22, (short)4791, java.nio.ByteOrder.BIG_ENDIAN);
            ipOffsets[k] = ip;
            icrcOffsets[k] = ip + regionLength;
        }
        // raw: the same number of bytes, from 8 bytes before the IP header (stand-ins for the 0xFF prefix).
        rawStarts = new int[count];
        rawLimits = new int[count];
        for (int k = 0; k < count; k++)
        {
            rawStarts[k] = viewShift + ipOffsets[k] - Icrc.PREFIX_LENGTH;
            rawLimits[k] = rawStarts[k] + input;
        }
        for (int k = 0; k < count; k++)
        {
            final int expected = crc32Copy.compute(ring, ipOffsets[k], false, icrcOffsets[k]);
            for (final IcrcCalculator c : new IcrcCalculator[]{ scalar, vector, seeded, adaptive })
            {
                if (c.compute(ring, ipOffsets[k], false, icrcOffsets[k]) != expected)
                {
                    throw new IllegalStateException(c + " disagrees at size " + size);
                }
            }
        }
    }

    private int[] rawStarts;
    private int[] rawLimits;

    @Benchmark
    public int raw()
    {
        final CRC32 crc = this.crc;
        final ByteBuffer view = this.view;
        int sum = 0;
        for (int k = 0; k < count; k++)
        {
            view.limit(rawLimits[k]).position(rawStarts[k]);
            crc.reset();
            crc.update(view);
            sum += (int)crc.getValue();
        }
        return sum;
    }

    @Benchmark
    public int crc32Copy()
    {
        return each(crc32Copy);
    }

    @Benchmark
    public int scalar()
    {
        return each(scalar);
    }

    @Benchmark
    public int vector()
    {
        return each(vector);
    }

    @Benchmark
    public int seeded()
    {
        return each(seeded);
    }

    @Benchmark
    public int adaptive()
    {
        return each(adaptive);
    }

    @Benchmark
    public int burst()
    {
        burst.compute(ring, ipOffsets, ipv6, icrcOffsets, count, results);
        int sum = 0;
        for (int k = 0; k < count; k++)
        {
            sum += results[k];
        }
        return sum;
    }

    private int each(final IcrcCalculator calculator)
    {
        final UnsafeBuffer ring = this.ring;
        int sum = 0;
        for (int k = 0; k < count; k++)
        {
            sum += calculator.compute(ring, ipOffsets[k], false, icrcOffsets[k]);
        }
        return sum;
    }
}
