package io.rnic.icrc;

import org.agrona.DirectBuffer;

import static io.rnic.icrc.IcrcTables.getByte;
import static io.rnic.icrc.IcrcTables.getLongLE;

/**
 * Pure-Java, table-driven ICRC: slicing-by-16 (16 KB of tables), masking the invariant fields on the fly while
 * reading little-endian longs straight from the buffer (heap, direct {@code ByteBuffer} or raw address: all are
 * an Agrona {@code (byteArray(), addressOffset())} pair). No copy, no scratch, no state: thread-safe.
 * <p>
 * The 8 prefix bytes of {@code 0xFF} are folded into the starting register {@link Icrc#REGISTER_AFTER_PREFIX}.
 */
public final class ScalarIcrc implements IcrcCalculator
{
    @Override
    public int compute(final DirectBuffer buffer, final int ipOffset, final boolean ipv6, final int icrcOffset)
    {
        final int length = Icrc.checkedLength(buffer, ipOffset, icrcOffset);
        return ~update(Icrc.REGISTER_AFTER_PREFIX, buffer.byteArray(), buffer.addressOffset() + ipOffset, length,
            ipv6 ? IcrcTables.IPV6_MASK_LONGS : IcrcTables.IPV4_MASK_LONGS);
    }

    /**
     * The CRC register after {@code length} bytes at {@code address} of {@code array}, the first of which are ORed
     * with {@code masks} (little-endian longs). Bounds must have been checked by the caller.
     */
    static int update(final int register, final byte[] array, final long address, final int length, final long[] masks)
    {
        int reg = register;
        int i = 0;
        // the masked longs 16 bytes at a time too: each step of the register costs a table load and a few XORs
        // however many bytes it covers, so fewer, wider steps make a shorter chain
        final int maskedLongs = Math.min(masks.length, length >>> 3);
        int k = 0;
        for (; k + 1 < maskedLongs; k += 2, i += 16)
        {
            reg = IcrcTables.update16(reg, getLongLE(array, address + i) | masks[k],
                getLongLE(array, address + i + 8) | masks[k + 1]);
        }
        if (k < maskedLongs)
        {
            if (length - i >= 16)
            {
                final long nextMask = k + 1 < masks.length ? masks[k + 1] : 0;
                reg = IcrcTables.update16(reg, getLongLE(array, address + i) | masks[k],
                    getLongLE(array, address + i + 8) | nextMask);
                i += 16;
            }
            else
            {
                reg = IcrcTables.update8(reg, getLongLE(array, address + i) | masks[k]);
                i += 8;
            }
        }
        final int end16 = i + ((length - i) & ~15);
        for (; i < end16; i += 16)
        {
            reg = IcrcTables.update16(reg, getLongLE(array, address + i), getLongLE(array, address + i + 8));
        }
        if (length - i >= 8)
        {
            reg = IcrcTables.update8(reg, getLongLE(array, address + i)); // past the masked longs (see above)
            i += 8;
        }
        for (; i < length; i++)
        {
            reg = IcrcTables.update(reg, getByte(array, address + i) | IcrcTables.maskByte(masks, i));
        }
        return reg;
    }
}
