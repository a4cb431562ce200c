package io.rnic.icrc;

import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;
import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import java.util.zip.CRC32;

/**
 * The Vector API ({@code jdk.incubator.vector}) on the part of the ICRC it can do, plus the {@link CRC32} intrinsic
 * for the part it cannot (the Vector API has no carry-less multiply). Two strategies, and {@link Strategy#AUTO}
 * (the default) which copies packets up to {@code copyLimit} bytes and seeds the rest:
 * <ul>
 *   <li>{@link Strategy#GATHER_SEED}: one 64-byte {@link ByteVector} load of the 8 bytes before the IP
 *       header and the 40/60 masked header bytes; {@code ~bytes & mask} in one lane-wise op gives the bit flips that
 *       masking makes; a byte shuffle picks the (up to) 16 bytes that matter, they widen to an {@link IntVector}
 *       of indices into the linearity tables of {@link IcrcSeeds}, and one 16-lane gather plus an XOR reduction
 *       gives the CRC register that a single intrinsic pass over the unmasked packet, in place, must start from.</li>
 *   <li>{@link Strategy#MASKED_COPY}: the region's first bytes are masked with 64-byte vector ORs into a scratch
 *       behind the 0xFF prefix (whole packets up to {@code copyLimit} bytes, else the 40/60-byte headers and the
 *       rest is continued in place). Stores are whole 64-byte vectors so that the intrinsic's 16- and 64-byte
 *       loads forward from one store each; a copy written with narrower stores costs a ~9 ns forwarding stall.</li>
 * </ul>
 * Measured (BENCHMARKS.md): the masked copy is the fastest way to a small packet's ICRC; for larger ones the
 * gather seed works but loses to the scalar seed of {@link SeededIcrc} by about 10 ns (a 16-lane gather is slow on
 * the benchmark's Zen 4 and sits on the critical path), so {@link AdaptiveIcrc} uses this class for small packets
 * only. The copy also needs {@code ByteVector.SPECIES_512} to be accelerated (AVX-512); elsewhere it is exact but
 * slow.
 * <p>
 * Allocates nothing per packet. Single-threaded (scratch, {@code CRC32}, views).
 */
public final class VectorIcrc implements IcrcCalculator
{
    /** How the masking is done. */
    public enum Strategy
    {
        /** {@link #MASKED_COPY} of whole packets up to {@code copyLimit} bytes, {@link #GATHER_SEED} above. */
        AUTO,
        /** Masking folded into the CRC's starting register with a vector gather; one in-place intrinsic pass. */
        GATHER_SEED,
        /** Masked copy of the headers (or of small packets) with vector ORs into a scratch, then the intrinsic. */
        MASKED_COPY
    }

    /** Default largest region (bytes from the IP header) that {@link Strategy#MASKED_COPY} copies whole. */
    public static final int DEFAULT_COPY_LIMIT = 120;
    public static final int MAX_COPY_LIMIT = 1024;

    private static final VectorSpecies<Byte> B64 = ByteVector.SPECIES_512;
    private static final VectorSpecies<Integer> I16 = IntVector.SPECIES_512;
    private static final int V = 64;
    private static final int PRE = IcrcSeeds.PRE;
    /** Every byte of the address space: vector loads from raw addresses (bounds are checked on the DirectBuffer). */
    private static final MemorySegment ALL_MEMORY = allMemory();

    // GATHER_SEED: lanes of the 64-byte vector loaded from ip - 8: 0..7 before the IP header, 8 + i header byte i.
    private static final VectorShuffle<Byte> IPV4_PICK = pick(false);
    private static final VectorShuffle<Byte> IPV6_PICK = pick(true);
    private static final ByteVector IPV4_FLIPS_AT_IP = flips(false, false);
    private static final ByteVector IPV4_FLIPS_BEFORE_IP = flips(false, true);
    private static final ByteVector IPV6_FLIPS_AT_IP = flips(true, false);
    private static final ByteVector IPV6_FLIPS_BEFORE_IP = flips(true, true);
    private static final IntVector IPV4_ROWS_AT_IP = rows(false, 0);
    private static final IntVector IPV4_ROWS_BEFORE_IP = rows(false, PRE);
    private static final IntVector IPV6_ROWS_AT_IP = rows(true, 0);
    private static final IntVector IPV6_ROWS_BEFORE_IP = rows(true, PRE);

    // MASKED_COPY: OR masks for a 64-byte vector starting 8 bytes before the IP header (prefix lanes all ones).
    private static final ByteVector IPV4_OR_0 = orMask(false, 0);
    private static final ByteVector IPV6_OR_0 = orMask(true, 0);
    /** Bytes of the first CRC call (from the scratch) for an IPv6 packet continued in place. */
    private static final int IPV6_HEADER_CALL = V + 16;

    /** Whether 64-byte vectors are native here (AVX-512): else this class is exact but slow. */
    private static final boolean ACCELERATED = ByteVector.SPECIES_PREFERRED.vectorBitSize() >= 512;

    private final Strategy strategy;
    private final int copyLimit;
    private final byte[] scratch;
    private final int[] indices = new int[16];
    private final byte[] scratch4 = new byte[4];
    private final CRC32 crc = new CRC32();
    private final NativeWindows windows = new NativeWindows();

    public VectorIcrc()
    {
        this(Strategy.AUTO, DEFAULT_COPY_LIMIT);
    }

    public VectorIcrc(final Strategy strategy)
    {
        this(strategy, DEFAULT_COPY_LIMIT);
    }

    /** @param copyLimit for {@link Strategy#MASKED_COPY}: regions up to this long are copied whole. */
    public VectorIcrc(final Strategy strategy, final int copyLimit)
    {
        if (copyLimit < 0 || copyLimit > MAX_COPY_LIMIT)
        {
            throw new IllegalArgumentException("copyLimit " + copyLimit);
        }
        this.strategy = strategy;
        this.copyLimit = copyLimit;
        this.scratch = new byte[PRE + MAX_COPY_LIMIT + 2 * V];
    }

    /** @return whether the CPU runs 64-byte vectors natively; {@link AdaptiveIcrc} uses this class only then. */
    public static boolean isAccelerated()
    {
        return ACCELERATED;
    }

    @Override
    public int compute(final DirectBuffer buffer, final int ipOffset, final boolean ipv6, final int icrcOffset)
    {
        final int length = Icrc.checkedLength(buffer, ipOffset, icrcOffset);
        final byte[] array = buffer.byteArray();
        final long address = buffer.addressOffset() + ipOffset;
        if (length < (ipv6 ? Icrc.IPV6_MASKED_LENGTH : Icrc.IPV4_MASKED_LENGTH))
        {
            // Shorter than its own headers: never a valid packet, so no need to be fast, only exact.
            return ~ScalarIcrc.update(Icrc.REGISTER_AFTER_PREFIX, array, address, length,
                ipv6 ? IcrcTables.IPV6_MASK_LONGS : IcrcTables.IPV4_MASK_LONGS);
        }
        final boolean copy = strategy == Strategy.MASKED_COPY || (strategy == Strategy.AUTO && length <= copyLimit);
        return copy ?
            maskedCopy(array, address, ipv6, length) :
            gatherSeed(array, address, ipOffset, ipv6, length);
    }

    private int gatherSeed(final byte[] array, final long address, final int ipIndex, final boolean ipv6,
        final int length)
    {
        final boolean before = IcrcSeeds.startBeforeIp(ipIndex, length);
        // Lanes 0..7 are read only when they are in the buffer; the header lanes always are.
        final int firstLane = before ? 0 : Math.max(0, PRE - ipIndex);
        final int lanes = PRE + (ipv6 ? Icrc.IPV6_MASKED_LENGTH : Icrc.IPV4_MASKED_LENGTH);
        final VectorMask<Byte> m = B64.indexInRange(-firstLane, lanes - firstLane);
        final ByteVector bytes = load(array, address - PRE, m);
        final ByteVector flips = bytes.not().and(ipv6 ?
            (before ? IPV6_FLIPS_BEFORE_IP : IPV6_FLIPS_AT_IP) :
            (before ? IPV4_FLIPS_BEFORE_IP : IPV4_FLIPS_AT_IP));
        final IntVector index = ((IntVector)flips.rearrange(ipv6 ? IPV6_PICK : IPV4_PICK)
            .convertShape(VectorOperators.ZERO_EXTEND_B2I, I16, 0))
            .add(ipv6 ? (before ? IPV6_ROWS_BEFORE_IP : IPV6_ROWS_AT_IP) :
                (before ? IPV4_ROWS_BEFORE_IP : IPV4_ROWS_AT_IP));
        index.intoArray(indices, 0);
        final int sum = IntVector.fromArray(I16, IcrcSeeds.G, 0, indices, 0).reduceLanes(VectorOperators.XOR);
        final CRC32 crc = this.crc;
        if (before)
        {
            IcrcSeeds.seed(crc, ~sum, scratch4);
            updateInPlace(crc, array, address - PRE, length + PRE);
        }
        else
        {
            IcrcSeeds.seed(crc, Icrc.REGISTER_AFTER_PREFIX ^ sum, scratch4);
            updateInPlace(crc, array, address, length);
        }
        return (int)crc.getValue();
    }

    private int maskedCopy(final byte[] array, final long address, final boolean ipv6, final int length)
    {
        final byte[] scratch = this.scratch;
        final CRC32 crc = this.crc;
        crc.reset();
        if (length <= copyLimit || length <= IPV6_HEADER_CALL - PRE)
        {
            copyMasked(array, address, ipv6, length, scratch, 0);
            crc.update(scratch, 0, PRE + length);
        }
        else if (!ipv6)
        {
            // 8 + 40 header bytes + 16 payload bytes: one vector, one short call, then the rest in place.
            copyMasked(array, address, false, V - PRE, scratch, 0);
            crc.update(scratch, 0, V);
            updateInPlace(crc, array, address + V - PRE, length - (V - PRE));
        }
        else
        {
            // 8 + 60 header bytes + 12 payload bytes: 80 = 64 + 16, so no intrinsic load straddles the two stores.
            copyMasked(array, address, true, IPV6_HEADER_CALL - PRE, scratch, 0);
            crc.update(scratch, 0, IPV6_HEADER_CALL);
            updateInPlace(crc, array, address + IPV6_HEADER_CALL - PRE, length - (IPV6_HEADER_CALL - PRE));
        }
        return (int)crc.getValue();
    }

    /**
     * Writes the ICRC input of a region of {@code length} bytes at {@code address} (8 bytes of 0xFF, then the
     * region with the variant fields set to ones) to {@code dst} from {@code dstOffset}, in whole 64-byte vector
     * stores: {@code dst} needs {@code 8 + length} rounded up to 64 bytes of room. Reads only the region.
     * Needs {@code length >= 53} for IPv6 (the last masked byte, BTH byte 4, is region byte 52, and every masked
     * byte must be in the first vector), or any length for IPv4 beyond its masked bytes.
     */
    static void copyMasked(final byte[] array, final long address, final boolean ipv6, final int length,
        final byte[] dst, final int dstOffset)
    {
        // First vector: lanes 0..7 become the 0xFF prefix whatever is before the IP header (not even read).
        load(array, address - PRE, B64.indexInRange(-PRE, Math.min(length, V - PRE)))
            .or(ipv6 ? IPV6_OR_0 : IPV4_OR_0)
            .intoArray(dst, dstOffset);
        for (int i = V - PRE; i < length; i += V)
        {
            load(array, address + i, B64.indexInRange(0, length - i)).intoArray(dst, dstOffset + PRE + i);
        }
    }

    private void updateInPlace(final CRC32 crc, final byte[] array, final long address, final int length)
    {
        if (array != null)
        {
            crc.update(array, (int)(address - BufferUtil.ARRAY_BASE_OFFSET), length);
        }
        else
        {
            crc.update(windows.view(address, length));
        }
    }

    @SuppressWarnings("restricted")
    private static MemorySegment allMemory()
    {
        return MemorySegment.NULL.reinterpret(Long.MAX_VALUE);
    }

    private static ByteVector load(final byte[] array, final long address, final VectorMask<Byte> m)
    {
        return array != null ?
            ByteVector.fromArray(B64, array, (int)(address - BufferUtil.ARRAY_BASE_OFFSET), m) :
            ByteVector.fromMemorySegment(B64, ALL_MEMORY, address, ByteOrder.LITTLE_ENDIAN, m);
    }

    /** Lanes to widen into the 16 gather indices: the 8 prefix lanes, then the masked header bytes. */
    private static VectorShuffle<Byte> pick(final boolean ipv6)
    {
        final int[] lanes = new int[V];
        int k = 0;
        for (int j = 0; j < PRE; j++)
        {
            lanes[k++] = j;
        }
        final byte[] mask = Icrc.mask(ipv6);
        for (int i = 0; i < mask.length; i++)
        {
            if (mask[i] != 0)
            {
                lanes[k++] = PRE + i;
            }
        }
        if (k > 16)
        {
            throw new IllegalStateException("more than 16 lanes to gather");
        }
        while (k < V)
        {
            lanes[k++] = V - 1; // a lane whose flip mask is 0: gathers G[row][0] == 0
        }
        return VectorShuffle.fromArray(B64, lanes, 0);
    }

    /** {@code ~b & flips} is what masking XORs in: the masks, plus all ones in the prefix lanes when used. */
    private static ByteVector flips(final boolean ipv6, final boolean beforeIp)
    {
        final byte[] f = new byte[V];
        if (beforeIp)
        {
            java.util.Arrays.fill(f, 0, PRE, (byte)0xFF);
        }
        System.arraycopy(Icrc.mask(ipv6), 0, f, PRE, Math.min(Icrc.maskedLength(ipv6), V - PRE));
        return ByteVector.fromArray(B64, f, 0);
    }

    /** Row base ({@code position << 8}) of each gathered lane in {@link IcrcSeeds#G}, positions from the pass start. */
    private static IntVector rows(final boolean ipv6, final int passStartBeforeIp)
    {
        final int[] r = new int[16];
        int k = 0;
        for (int j = 0; j < PRE; j++)
        {
            // Used only when the pass starts before the IP header; otherwise the flips are 0 and G[row][0] == 0.
            r[k++] = j << 8;
        }
        final byte[] mask = Icrc.mask(ipv6);
        for (int i = 0; i < mask.length; i++)
        {
            if (mask[i] != 0)
            {
                r[k++] = (i + passStartBeforeIp) << 8;
            }
        }
        return IntVector.fromArray(I16, r, 0);
    }

    /** OR mask for the 64 bytes starting at {@code ip - 8 + from}: the prefix lanes all ones, then the masks. */
    private static ByteVector orMask(final boolean ipv6, final int from)
    {
        final byte[] m = new byte[PRE + Icrc.IPV6_MASKED_LENGTH + 2 * V];
        java.util.Arrays.fill(m, 0, PRE, (byte)0xFF);
        System.arraycopy(Icrc.mask(ipv6), 0, m, PRE, Icrc.maskedLength(ipv6));
        return ByteVector.fromArray(B64, m, from);
    }
}
