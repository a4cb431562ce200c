package io.rnic.icrc;

import org.agrona.UnsafeApi;

import java.util.zip.CRC32;

import static io.rnic.icrc.IcrcTables.getLongLE;

/**
 * Folds the ICRC masking (and, optionally, the 8-byte 0xFF prefix) into the starting state of one plain CRC-32
 * pass over the packet's own bytes, so the intrinsic can run over the buffer in place.
 * <p>
 * The CRC register is linear over GF(2). XORing a byte value {@code d} into the message at position {@code p}
 * (counted from where the CRC pass starts) changes the final register exactly as XORing
 * {@code G[p][d] = Z^-(p+1)(T[d])} into the starting register would, where {@code T} is the byte table and
 * {@code Z} steps the register over one zero byte ({@code Z} is invertible because the polynomial's constant term
 * is 1). Masking ORs ones into a byte {@code b}, i.e. XORs it with {@code mask & ~b}; so the ICRC is the plain
 * CRC-32 of the unmasked bytes from a starting register with one table lookup per masked byte: 7 for IPv4,
 * 8 for IPv6.
 * <p>
 * Two ways to start:
 * <ul>
 *   <li>at the IP header, from {@code REGISTER_AFTER_PREFIX ^ lookups}: the pass covers {@code n} bytes;</li>
 *   <li>8 bytes earlier (the tail of the Ethernet header, when the buffer has them), treating those 8 bytes as the
 *       0xFF prefix with a difference {@code ~e}: 8 more lookups, from {@code ~0 ^ lookups}. The pass then covers
 *       the same {@code 8 + n} bytes as a plain CRC over the ICRC input, which matters because the JDK's
 *       VPCLMULQDQ stub folds 256-byte blocks in parallel and the remainder 16 bytes at a time, serially:
 *       a region of 4088 bytes costs about as much as 4096 + 15 serial folds.</li>
 * </ul>
 * <p>
 * {@link CRC32} has no public way to start from a given register. When the JDK's {@code CRC32} keeps it in the usual
 * {@code private int crc} field (checked by a self-test at class initialisation) the register is written there with
 * {@code jdk.internal.misc.Unsafe}, which Agrona already needs; otherwise with public API only, by feeding the 4
 * bytes that take a reset {@code CRC32} to that register (one more, short, intrinsic call).
 */
final class IcrcSeeds
{
    /** Bytes before the IP header that can stand in for the 0xFF prefix. */
    static final int PRE = Icrc.PREFIX_LENGTH;
    /** Rows of {@link #G}: positions from the start of a pass, up to the last masked byte of IPv6 plus PRE. */
    private static final int ROWS = PRE + Icrc.IPV6_MASKED_LENGTH;
    /** {@code G[(p << 8) + d] = Z^-(p+1)(T[d])}. */
    static final int[] G = new int[ROWS * 256];
    /** Inverse of the top byte of the byte table: undoes one zero byte. */
    private static final int[] TOP_BYTE_INVERSE = new int[256];

    /** Offset of {@code CRC32.crc}, or -1 when the register cannot be written directly. */
    static final long CRC_FIELD_OFFSET;

    static
    {
        java.util.Arrays.fill(TOP_BYTE_INVERSE, -1);
        for (int b = 0; b < 256; b++)
        {
            final int top = IcrcTables.ZERO_EXTENDED[b] >>> 24;
            if (TOP_BYTE_INVERSE[top] != -1)
            {
                throw new IllegalStateException("CRC table top bytes are not distinct");
            }
            TOP_BYTE_INVERSE[top] = b;
        }
        for (int d = 0; d < 256; d++)
        {
            int r = IcrcTables.ZERO_EXTENDED[d];
            for (int p = 0; p < ROWS; p++)
            {
                r = unshift(r);
                G[(p << 8) + d] = r;
            }
        }
        CRC_FIELD_OFFSET = crcFieldOffset();
    }

    private IcrcSeeds()
    {
    }

    /** @return whether the JDK lets the register be written directly (else one extra 4-byte CRC call). */
    static boolean writesStateDirectly()
    {
        return CRC_FIELD_OFFSET >= 0;
    }

    /**
     * Whether starting the pass 8 bytes before the IP header pays: when it takes the pass over a multiple of 256
     * bytes (the stub's parallel block), saving up to 15 serial 16-byte folds for 8 lookups. Needs those 8 bytes to
     * be inside the buffer.
     */
    static boolean startBeforeIp(final int ipIndex, final int length)
    {
        return ipIndex >= PRE && (length & 0xFF) >= 256 - PRE && length >= 256 - PRE;
    }

    /** Starting register for a pass from the IP header of an IPv4 packet (40 masked bytes at {@code address}). */
    static int ipv4AtIp(final byte[] array, final long address)
    {
        return Icrc.REGISTER_AFTER_PREFIX ^ ipv4Masks(array, address, 0);
    }

    /** Starting register for a pass from the IP header of an IPv6 packet (60 masked bytes at {@code address}). */
    static int ipv6AtIp(final byte[] array, final long address)
    {
        return Icrc.REGISTER_AFTER_PREFIX ^ ipv6Masks(array, address, 0);
    }

    /** Starting register for a pass from {@code address - 8} of an IPv4 packet whose IP header is at address. */
    static int ipv4BeforeIp(final byte[] array, final long address)
    {
        return ~prefix(array, address - PRE) ^ ipv4Masks(array, address, PRE << 8);
    }

    /** Starting register for a pass from {@code address - 8} of an IPv6 packet whose IP header is at address. */
    static int ipv6BeforeIp(final byte[] array, final long address)
    {
        return ~prefix(array, address - PRE) ^ ipv6Masks(array, address, PRE << 8);
    }

    /** The 8 bytes at {@code address} as the 0xFF prefix: difference {@code ~e} at positions 0..7. */
    private static int prefix(final byte[] array, final long address)
    {
        final int[] g = G;
        final long d = ~getLongLE(array, address);
        final int lo = (int)d;
        final int hi = (int)(d >>> 32);
        return g[lo & 0xFF] ^ g[256 + ((lo >>> 8) & 0xFF)] ^ g[2 * 256 + ((lo >>> 16) & 0xFF)] ^
            g[3 * 256 + (lo >>> 24)] ^ g[4 * 256 + (hi & 0xFF)] ^ g[5 * 256 + ((hi >>> 8) & 0xFF)] ^
            g[6 * 256 + ((hi >>> 16) & 0xFF)] ^ g[7 * 256 + (hi >>> 24)];
    }

    /** IPv4 masked bytes 1 (TOS), 8 (TTL), 10-11 (checksum), 26-27 (UDP checksum), 32 (BTH byte 4). */
    private static int ipv4Masks(final byte[] array, final long address, final int rowBase)
    {
        final int[] g = G;
        final int d0 = ~(int)getLongLE(array, address);
        final long d1 = ~getLongLE(array, address + 8);
        final int d3 = ~(int)(getLongLE(array, address + 24) >>> 16);
        final int d4 = ~(int)getLongLE(array, address + 32);
        return g[rowBase + 256 + ((d0 >>> 8) & 0xFF)] ^
            g[rowBase + 8 * 256 + ((int)d1 & 0xFF)] ^
            g[rowBase + 10 * 256 + ((int)(d1 >>> 16) & 0xFF)] ^
            g[rowBase + 11 * 256 + ((int)(d1 >>> 24) & 0xFF)] ^
            g[rowBase + 26 * 256 + (d3 & 0xFF)] ^
            g[rowBase + 27 * 256 + ((d3 >>> 8) & 0xFF)] ^
            g[rowBase + 32 * 256 + (d4 & 0xFF)];
    }

    /** IPv6 bytes 0 (low nibble), 1-3 (class, flow label), 7 (hop limit), 46-47 (UDP checksum), 52 (BTH 4). */
    private static int ipv6Masks(final byte[] array, final long address, final int rowBase)
    {
        final int[] g = G;
        final long d0 = ~getLongLE(array, address);
        final int d5 = ~(int)(getLongLE(array, address + 40) >>> 48);
        final int d6 = ~(int)(getLongLE(array, address + 48) >>> 32);
        final int lo = (int)d0;
        return g[rowBase + (lo & 0x0F)] ^
            g[rowBase + 256 + ((lo >>> 8) & 0xFF)] ^
            g[rowBase + 2 * 256 + ((lo >>> 16) & 0xFF)] ^
            g[rowBase + 3 * 256 + (lo >>> 24)] ^
            g[rowBase + 7 * 256 + ((int)(d0 >>> 56) & 0xFF)] ^
            g[rowBase + 46 * 256 + (d5 & 0xFF)] ^
            g[rowBase + 47 * 256 + ((d5 >>> 8) & 0xFF)] ^
            g[rowBase + 52 * 256 + (d6 & 0xFF)];
    }

    /**
     * Sets {@code crc} so that its next update continues from CRC register {@code register}.
     *
     * @param scratch4 4 bytes of scratch, used only when the register cannot be written directly.
     */
    static void seed(final CRC32 crc, final int register, final byte[] scratch4)
    {
        if (CRC_FIELD_OFFSET >= 0)
        {
            UnsafeApi.putInt(crc, CRC_FIELD_OFFSET, ~register);
        }
        else
        {
            seedWithPublicApi(crc, register, scratch4);
        }
    }

    /** From reset (register ~0), 4 bytes {@code w} lead to {@code Z^4(~0 ^ w)}: feed {@code Z^-4(register) ^ ~0}. */
    static void seedWithPublicApi(final CRC32 crc, final int register, final byte[] scratch4)
    {
        final int w = ~unshift(unshift(unshift(unshift(register))));
        scratch4[0] = (byte)w;
        scratch4[1] = (byte)(w >>> 8);
        scratch4[2] = (byte)(w >>> 16);
        scratch4[3] = (byte)(w >>> 24);
        crc.reset();
        crc.update(scratch4, 0, 4);
    }

    /** Undoes one step of the register over a zero byte. */
    static int unshift(final int register)
    {
        final int low = TOP_BYTE_INVERSE[register >>> 24];
        return ((register ^ IcrcTables.ZERO_EXTENDED[low]) << 8) | low;
    }

    private static long crcFieldOffset()
    {
        try
        {
            final long offset = UnsafeApi.objectFieldOffset(CRC32.class.getDeclaredField("crc"));
            // Self-test: the field holds the complemented register and is what update() continues from.
            final byte[] data = new byte[300];
            for (int i = 0; i < data.length; i++)
            {
                data[i] = (byte)(i * 31 + 7);
            }
            final CRC32 probe = new CRC32();
            probe.update(data, 0, 5);
            if (UnsafeApi.getInt(probe, offset) != (int)probe.getValue())
            {
                return -1;
            }
            for (final int register : new int[]{ 0x1234_5678, Icrc.REGISTER_AFTER_PREFIX, 0, -1 })
            {
                for (final int length : new int[]{ 1, 17, 300 })
                {
                    final CRC32 seeded = new CRC32();
                    UnsafeApi.putInt(seeded, offset, ~register);
                    seeded.update(data, 0, length);
                    int expected = register;
                    for (int i = 0; i < length; i++)
                    {
                        expected = IcrcTables.update(expected, data[i] & 0xFF);
                    }
                    if ((int)seeded.getValue() != ~expected)
                    {
                        return -1;
                    }
                }
            }
            return offset;
        }
        catch (final ReflectiveOperationException | RuntimeException | LinkageError ex)
        {
            return -1;
        }
    }
}
