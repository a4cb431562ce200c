package io.rnic.icrc;

import org.agrona.DirectBuffer;

/**
 * The ICRC of a frame being built, computed before its variant fields get their values: the builder writes ones
 * into every masked field (IPv4 TOS, TTL and header checksum; IPv6 traffic class, flow label and hop limit; the UDP
 * checksum; BTH byte 4) and into the 8 bytes just before the IP header (where the Ethernet header will go), asks for
 * the ICRC, then writes the real values. The ICRC input is then exactly the bytes in the buffer from
 * {@code ipOffset - 8} to the ICRC field, so the ICRC is the plain CRC-32 of them: one pass of the {@link java.util.zip.CRC32}
 * intrinsic over the frame where it lies, with no masked copy (what {@link VectorIcrc} does for small frames, whose
 * stores the CRC then reads back) and no table lookups to fold the masks in (what {@link SeededIcrc} does for a
 * frame it only reads). The pass starts 8 bytes before the IP header, so a 4 KiB payload hands the intrinsic whole
 * 256-byte blocks.
 * <p>
 * On a CPU without 64-byte vectors the intrinsic's fixed cost loses to the table-driven {@link ScalarIcrc} for small
 * regions (up to {@link AdaptiveIcrc#SCALAR_LIMIT}, as the receiver chooses); that pass then reads the frame in place
 * too, with no masks to apply.
 * <p>
 * Only for a sender: a received frame's fields hold their values, and its ICRC is checked with an
 * {@link IcrcCalculator}. Allocates nothing per packet. Single-threaded.
 */
public final class PremaskedIcrc
{
    private static final long[] NO_MASKS = new long[0];

    /** The intrinsic's pass over the frame in one window (the same pass a frame sent in pieces takes). */
    private final PremaskedIcrcPass pass = new PremaskedIcrcPass();

    /**
     * @param buffer     holding the frame, its masked fields and the 8 bytes before {@code ipOffset} set to ones.
     * @param ipOffset   of the IP header; at least {@link Icrc#PREFIX_LENGTH}.
     * @param icrcOffset of the ICRC field (the end of the pad).
     * @return the ICRC value, for {@link Icrc#writeWire}.
     */
    public int compute(final DirectBuffer buffer, final int ipOffset, final int icrcOffset)
    {
        if (icrcOffset - ipOffset <= AdaptiveIcrc.SCALAR_LIMIT)
        {
            final int length = Icrc.checkedLength(buffer, ipOffset, icrcOffset);
            return ~ScalarIcrc.update(Icrc.REGISTER_AFTER_PREFIX, buffer.byteArray(), buffer.addressOffset() + ipOffset,
                length, NO_MASKS);
        }
        pass.start(buffer, ipOffset, icrcOffset);
        return pass.finish();
    }
}
