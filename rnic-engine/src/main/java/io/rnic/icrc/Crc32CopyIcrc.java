package io.rnic.icrc;

import org.agrona.DirectBuffer;

import java.util.zip.CRC32;

/**
 * The baseline: copy the region into a preallocated scratch {@code byte[]} behind the 8 prefix bytes of
 * {@code 0xFF}, set the variant fields to ones there, and run {@link CRC32} (one reused instance, reset per packet).
 * Single-threaded (it owns the scratch and the {@code CRC32}).
 */
public final class Crc32CopyIcrc implements IcrcCalculator
{
    /** Room for the largest IP datagram: 40 bytes of IPv6 header + 65535 bytes of payload. */
    private static final int SCRATCH_LENGTH = Icrc.PREFIX_LENGTH + Icrc.IPV6_HEADER_LENGTH + 0xFFFF;

    private final byte[] scratch = new byte[SCRATCH_LENGTH];
    private final CRC32 crc = new CRC32();

    public Crc32CopyIcrc()
    {
        java.util.Arrays.fill(scratch, 0, Icrc.PREFIX_LENGTH, (byte)0xFF);
    }

    @Override
    public int compute(final DirectBuffer buffer, final int ipOffset, final boolean ipv6, final int icrcOffset)
    {
        final int length = Icrc.checkedLength(buffer, ipOffset, icrcOffset);
        final byte[] scratch = this.scratch;
        final CRC32 crc = this.crc;
        crc.reset();
        int done = 0;
        int start = Icrc.PREFIX_LENGTH;
        while (true)
        {
            final int chunk = Math.min(length - done, SCRATCH_LENGTH - start);
            buffer.getBytes(ipOffset + done, scratch, start, chunk);
            if (done == 0)
            {
                mask(scratch, Icrc.PREFIX_LENGTH, chunk, ipv6);
            }
            crc.update(scratch, 0, start + chunk);
            done += chunk;
            if (done == length)
            {
                return (int)crc.getValue();
            }
            start = 0;
        }
    }

    private static void mask(final byte[] b, final int ip, final int available, final boolean ipv6)
    {
        if (ipv6)
        {
            orIfPresent(b, ip, 0, available, 0x0F);
            orIfPresent(b, ip, 1, available, 0xFF);
            orIfPresent(b, ip, 2, available, 0xFF);
            orIfPresent(b, ip, 3, available, 0xFF);
            orIfPresent(b, ip, Icrc.IPV6_HOP_LIMIT_OFFSET, available, 0xFF);
        }
        else
        {
            orIfPresent(b, ip, Icrc.IPV4_TOS_OFFSET, available, 0xFF);
            orIfPresent(b, ip, Icrc.IPV4_TTL_OFFSET, available, 0xFF);
            orIfPresent(b, ip, Icrc.IPV4_CHECKSUM_OFFSET, available, 0xFF);
            orIfPresent(b, ip, Icrc.IPV4_CHECKSUM_OFFSET + 1, available, 0xFF);
        }
        final int udp = ipv6 ? Icrc.IPV6_HEADER_LENGTH : Icrc.IPV4_HEADER_LENGTH;
        orIfPresent(b, ip, udp + Icrc.UDP_CHECKSUM_OFFSET, available, 0xFF);
        orIfPresent(b, ip, udp + Icrc.UDP_CHECKSUM_OFFSET + 1, available, 0xFF);
        orIfPresent(b, ip, udp + Icrc.UDP_HEADER_LENGTH + Icrc.BTH_FECN_BECN_OFFSET, available, 0xFF);
    }

    private static void orIfPresent(final byte[] b, final int ip, final int index, final int available, final int mask)
    {
        if (index < available)
        {
            b[ip + index] |= (byte)mask;
        }
    }
}
