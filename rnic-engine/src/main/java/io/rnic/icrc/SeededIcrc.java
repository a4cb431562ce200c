package io.rnic.icrc;

import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;

import java.util.zip.CRC32;

/**
 * One pass of the {@link CRC32} intrinsic over the packet in place, with the masking folded into the starting
 * register by linearity ({@link IcrcSeeds}): 7 (IPv4) or 8 (IPv6) table lookups, plus 8 when the pass starts 8
 * bytes before the IP header to hand the intrinsic whole 256-byte blocks. No copy, and no freshly stored bytes for
 * the CRC to read back (a copy's stores stall the intrinsic's loads: store-to-load forwarding fails across
 * differently sized accesses, about 9 ns on the benchmark machine).
 * <p>
 * Heap buffers go through {@code update(byte[], off, len)}, off-heap ones through {@code update(ByteBuffer)} on a
 * cached view ({@link NativeWindows}). Allocates nothing per packet. Single-threaded.
 */
public final class SeededIcrc implements IcrcCalculator
{
    private final CRC32 crc = new CRC32();
    private final NativeWindows windows = new NativeWindows();
    private final byte[] scratch4 = new byte[4];
    private final boolean direct;

    public SeededIcrc()
    {
        this(true);
    }

    /** @param writeStateDirectly false forces the public-API seeding (for tests). */
    SeededIcrc(final boolean writeStateDirectly)
    {
        this.direct = writeStateDirectly && IcrcSeeds.writesStateDirectly();
    }

    /** @return whether the CRC register is written directly (else one extra 4-byte intrinsic call per packet). */
    public static boolean writesStateDirectly()
    {
        return IcrcSeeds.writesStateDirectly();
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
        final int register;
        final long start;
        final int passLength;
        if (IcrcSeeds.startBeforeIp(ipOffset, length))
        {
            register = ipv6 ? IcrcSeeds.ipv6BeforeIp(array, address) : IcrcSeeds.ipv4BeforeIp(array, address);
            start = address - IcrcSeeds.PRE;
            passLength = length + IcrcSeeds.PRE;
        }
        else
        {
            register = ipv6 ? IcrcSeeds.ipv6AtIp(array, address) : IcrcSeeds.ipv4AtIp(array, address);
            start = address;
            passLength = length;
        }
        return pass(register, array, start, passLength);
    }

    private int pass(final int register, final byte[] array, final long start, final int length)
    {
        final CRC32 crc = this.crc;
        if (direct)
        {
            IcrcSeeds.seed(crc, register, scratch4);
        }
        else
        {
            IcrcSeeds.seedWithPublicApi(crc, register, scratch4);
        }
        if (array != null)
        {
            crc.update(array, (int)(start - BufferUtil.ARRAY_BASE_OFFSET), length);
        }
        else
        {
            crc.update(windows.view(start, length));
        }
        return (int)crc.getValue();
    }
}
