package io.rnic.icrc;

import org.agrona.DirectBuffer;

import java.util.zip.CRC32;

/**
 * ICRCs of a burst of packets (a receive batch from an AF_PACKET or DPDK ring, or a batch of ACKs to send),
 * faster per packet than one {@link IcrcCalculator#compute} call after another.
 * <p>
 * Small packets (regions up to {@link #COPY_LIMIT} = 120 bytes on AVX-512, else none: ACKs, NAKs, CNPs, small sends) go in two phases,
 * {@value #CHUNK} at a time: first every packet is copied behind the 0xFF prefix with its variant fields set, by
 * {@link VectorIcrc#copyMasked} (one or two 64-byte vector loads, ORs and stores each, into its own 128-byte
 * slot); then the {@link CRC32} intrinsic runs over the copies back to back. One packet at a time, the intrinsic
 * would read a copy whose stores are still in flight and wait on store-to-load forwarding; here they were done a
 * whole phase earlier. Larger packets, where that wait is small next to the CRC itself, go through
 * {@link SeededIcrc} (one in-place pass, no copy).
 * <p>
 * Allocates nothing. Single-threaded.
 */
public final class IcrcBurst
{
    /** Packets copied per phase; bursts of any size are processed this many at a time. */
    public static final int CHUNK = 32;
    /**
     * Largest region (IP header to ICRC) that is copied rather than seeded: two 64-byte vectors; 0 (nothing copied,
     * {@link VectorIcrc} never loaded) without AVX-512 or without the Vector API module.
     */
    public static final int COPY_LIMIT = VectorApi.ACCELERATED ? 120 : 0;
    private static final int SLOT = 128;

    private final CRC32 crc = new CRC32();
    private final SeededIcrc seeded = new SeededIcrc();
    private final byte[] copies = new byte[CHUNK * SLOT];
    /** ICRC input length of the copy in each slot, 0 for packets left to {@link #seeded}. */
    private final int[] copied = new int[CHUNK];

    /**
     * Computes {@code results[i]} = the ICRC of packet {@code i} for {@code i < count}, as
     * {@link IcrcCalculator#compute}{@code (buffers[i], ipOffsets[i], ipv6[i], icrcOffsets[i])}.
     *
     * @throws IndexOutOfBoundsException if a packet's region is not inside its buffer.
     */
    public void compute(final DirectBuffer[] buffers, final int[] ipOffsets, final boolean[] ipv6,
        final int[] icrcOffsets, final int count, final int[] results)
    {
        for (int from = 0; from < count; from += CHUNK)
        {
            final int to = Math.min(count, from + CHUNK);
            for (int i = from; i < to; i++)
            {
                copy(i - from, buffers[i], ipOffsets[i], ipv6[i], icrcOffsets[i]);
            }
            for (int i = from; i < to; i++)
            {
                final int length = copied[i - from];
                results[i] = length != 0 ?
                    crcOfCopy(i - from, length) :
                    seeded.compute(buffers[i], ipOffsets[i], ipv6[i], icrcOffsets[i]);
            }
        }
    }

    /** As {@link #compute(DirectBuffer[], int[], boolean[], int[], int, int[])} with every packet in one buffer. */
    public void compute(final DirectBuffer buffer, final int[] ipOffsets, final boolean[] ipv6,
        final int[] icrcOffsets, final int count, final int[] results)
    {
        for (int from = 0; from < count; from += CHUNK)
        {
            final int to = Math.min(count, from + CHUNK);
            for (int i = from; i < to; i++)
            {
                copy(i - from, buffer, ipOffsets[i], ipv6[i], icrcOffsets[i]);
            }
            for (int i = from; i < to; i++)
            {
                final int length = copied[i - from];
                results[i] = length != 0 ?
                    crcOfCopy(i - from, length) :
                    seeded.compute(buffer, ipOffsets[i], ipv6[i], icrcOffsets[i]);
            }
        }
    }

    private void copy(final int slot, final DirectBuffer buffer, final int ipOffset, final boolean ipv6,
        final int icrcOffset)
    {
        final int length = Icrc.checkedLength(buffer, ipOffset, icrcOffset);
        if (length <= COPY_LIMIT && length >= (ipv6 ? Icrc.IPV6_MASKED_LENGTH : Icrc.IPV4_MASKED_LENGTH))
        {
            VectorIcrc.copyMasked(buffer.byteArray(), buffer.addressOffset() + ipOffset, ipv6, length,
                copies, slot * SLOT);
            copied[slot] = Icrc.PREFIX_LENGTH + length;
        }
        else
        {
            copied[slot] = 0;
        }
    }

    private int crcOfCopy(final int slot, final int length)
    {
        final CRC32 crc = this.crc;
        crc.reset();
        crc.update(copies, slot * SLOT, length);
        return (int)crc.getValue();
    }
}
