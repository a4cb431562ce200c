package io.rnic.icrc;

import org.agrona.UnsafeApi;

import java.nio.ByteOrder;

/**
 * Shared tables of the reflected CRC-32 (polynomial {@code 0xEDB88320}) and raw little-endian reads.
 * <p>
 * {@code ZERO_EXTENDED[d * 256 + b]} is the CRC register (init 0, no final xor) after the byte {@code b} followed
 * by {@code d} zero bytes: rows 0..7 are the slicing-by-8 tables, rows 0..15 the slicing-by-16 ones.
 */
final class IcrcTables
{
    private static final int ROWS = 16;

    static final int[] ZERO_EXTENDED = new int[ROWS * 256];

    /** The IPv4 OR masks as little-endian longs over the 40 masked bytes. */
    static final long[] IPV4_MASK_LONGS = maskLongs(Icrc.mask(false), 5);
    /** The IPv6 OR masks as little-endian longs over the 60 masked bytes, padded with zeros to 64. */
    static final long[] IPV6_MASK_LONGS = maskLongs(Icrc.mask(true), 8);

    private static final boolean BIG_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.BIG_ENDIAN;

    static
    {
        for (int b = 0; b < 256; b++)
        {
            int c = b;
            for (int k = 0; k < 8; k++)
            {
                c = (c & 1) != 0 ? (c >>> 1) ^ 0xEDB8_8320 : c >>> 1;
            }
            ZERO_EXTENDED[b] = c;
        }
        for (int d = 1; d < ROWS; d++)
        {
            for (int b = 0; b < 256; b++)
            {
                final int prev = ZERO_EXTENDED[(d - 1) * 256 + b];
                ZERO_EXTENDED[d * 256 + b] = (prev >>> 8) ^ ZERO_EXTENDED[prev & 0xFF];
            }
        }
        int reg = 0xFFFF_FFFF;
        for (int i = 0; i < Icrc.PREFIX_LENGTH; i++)
        {
            reg = update(reg, 0xFF);
        }
        if (reg != Icrc.REGISTER_AFTER_PREFIX)
        {
            throw new IllegalStateException("CRC tables are wrong: " + Integer.toHexString(reg));
        }
    }

    private IcrcTables()
    {
    }

    /** One byte of the table-driven reflected CRC. */
    static int update(final int reg, final int b)
    {
        return ZERO_EXTENDED[(reg ^ b) & 0xFF] ^ (reg >>> 8);
    }

    /**
     * Slicing-by-8: the register after the 8 bytes of {@code w} (little-endian, first byte lowest).
     * <p>
     * The XORs are grouped, not chained: Java evaluates {@code a ^ b ^ c ^ ...} left to right and C2 keeps that
     * order, so a chain starting with the four lookups that wait for the register made every lookup after them wait
     * too. Grouped, the lookups of the bytes the register does not touch run while the register is still being
     * computed, and the path from one register to the next is one load and three XORs.
     */
    static int update8(final int reg, final long w)
    {
        final int[] t = ZERO_EXTENDED;
        final int lo = (int)w ^ reg;
        final int hi = (int)(w >>> 32);
        final int independent = (t[3 * 256 + (hi & 0xFF)] ^ t[2 * 256 + ((hi >>> 8) & 0xFF)]) ^
            (t[256 + ((hi >>> 16) & 0xFF)] ^ t[hi >>> 24]);
        return ((t[7 * 256 + (lo & 0xFF)] ^ t[6 * 256 + ((lo >>> 8) & 0xFF)]) ^
            (t[5 * 256 + ((lo >>> 16) & 0xFF)] ^ t[4 * 256 + (lo >>> 24)])) ^ independent;
    }

    /** Slicing-by-16: the register after the 16 bytes of {@code w0} then {@code w1} (XORs grouped: see update8). */
    static int update16(final int reg, final long w0, final long w1)
    {
        final int[] t = ZERO_EXTENDED;
        final int a = (int)w0 ^ reg;
        final int b = (int)(w0 >>> 32);
        final int c = (int)w1;
        final int d = (int)(w1 >>> 32);
        final int independent =
            ((t[11 * 256 + (b & 0xFF)] ^ t[10 * 256 + ((b >>> 8) & 0xFF)]) ^
            (t[9 * 256 + ((b >>> 16) & 0xFF)] ^ t[8 * 256 + (b >>> 24)])) ^
            ((t[7 * 256 + (c & 0xFF)] ^ t[6 * 256 + ((c >>> 8) & 0xFF)]) ^
            (t[5 * 256 + ((c >>> 16) & 0xFF)] ^ t[4 * 256 + (c >>> 24)])) ^
            ((t[3 * 256 + (d & 0xFF)] ^ t[2 * 256 + ((d >>> 8) & 0xFF)]) ^
            (t[256 + ((d >>> 16) & 0xFF)] ^ t[d >>> 24]));
        return ((t[15 * 256 + (a & 0xFF)] ^ t[14 * 256 + ((a >>> 8) & 0xFF)]) ^
            (t[13 * 256 + ((a >>> 16) & 0xFF)] ^ t[12 * 256 + (a >>> 24)])) ^ independent;
    }

    /**
     * Little-endian long at {@code address} of {@code array} (null for off-heap), as Agrona's
     * {@code (byteArray(), addressOffset())} pair addresses any {@link org.agrona.DirectBuffer}.
     */
    static long getLongLE(final byte[] array, final long address)
    {
        final long w = UnsafeApi.getLong(array, address);
        return BIG_ENDIAN ? Long.reverseBytes(w) : w;
    }

    static int getByte(final byte[] array, final long address)
    {
        return UnsafeApi.getByte(array, address) & 0xFF;
    }

    /** The OR mask of byte {@code index} of the masked region, 0 beyond it. */
    static int maskByte(final long[] maskLongs, final int index)
    {
        final int word = index >>> 3;
        return word < maskLongs.length ? (int)(maskLongs[word] >>> ((index & 7) << 3)) & 0xFF : 0;
    }

    private static long[] maskLongs(final byte[] mask, final int longs)
    {
        final long[] result = new long[longs];
        for (int i = 0; i < mask.length; i++)
        {
            result[i >>> 3] |= (mask[i] & 0xFFL) << ((i & 7) << 3);
        }
        return result;
    }
}
