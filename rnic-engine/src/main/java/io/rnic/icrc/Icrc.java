package io.rnic.icrc;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import java.nio.ByteOrder;

/**
 * The RoCEv2 invariant CRC (IBTA annex A17.3.3): constants, wire byte order and the engine's default calculator.
 * <p>
 * The ICRC is CRC-32 of IEEE 802.3 (reflected polynomial {@code 0xEDB88320}, init all ones, final complement:
 * exactly {@link java.util.zip.CRC32}) over
 * <ol>
 *   <li>8 bytes of {@code 0xFF} (a stand-in for the LRH of native InfiniBand);</li>
 *   <li>the IP header with the variant fields set to ones: IPv4 TOS (byte 1), TTL (byte 8) and header checksum
 *       (bytes 10-11); IPv6 traffic class and flow label (the low nibble of byte 0 and bytes 1-3, so the version
 *       nibble is kept and a valid header reads {@code 6F FF FF FF}) and hop limit (byte 7);</li>
 *   <li>the UDP header with the checksum (bytes 6-7) set to {@code FFFF};</li>
 *   <li>the BTH with byte 4 (FECN, BECN, reserved) set to {@code FF};</li>
 *   <li>everything after the BTH up to the ICRC: extension headers, payload and pad.</li>
 * </ol>
 * The 32-bit value goes on the wire least-significant byte first (as rxe and ConnectX do). The ICRC's position is
 * found from the IP (or UDP) length, never from the end of the frame, which may carry Ethernet padding.
 * <p>
 * All masking is "OR with ones" over the masked region of {@link #IPV4_MASKED_LENGTH} or
 * {@link #IPV6_MASKED_LENGTH} bytes starting at the IP header; {@link #mask(boolean)} gives the OR masks.
 */
public final class Icrc
{
    /** Length of the ICRC field. */
    public static final int LENGTH = 4;
    /** Number of {@code 0xFF} bytes that precede the IP header in the CRC. */
    public static final int PREFIX_LENGTH = 8;
    public static final int IPV4_HEADER_LENGTH = 20;
    public static final int IPV6_HEADER_LENGTH = 40;
    public static final int UDP_HEADER_LENGTH = 8;
    public static final int BTH_LENGTH = 12;
    /** IPv4 (IHL=5) + UDP + BTH: the region starting at the IP header in which fields are masked. */
    public static final int IPV4_MASKED_LENGTH = IPV4_HEADER_LENGTH + UDP_HEADER_LENGTH + BTH_LENGTH;
    /** IPv6 + UDP + BTH: the region starting at the IP header in which fields are masked. */
    public static final int IPV6_MASKED_LENGTH = IPV6_HEADER_LENGTH + UDP_HEADER_LENGTH + BTH_LENGTH;

    /** IPv4 bytes set to ones: TOS. */
    public static final int IPV4_TOS_OFFSET = 1;
    /** IPv4 bytes set to ones: TTL. */
    public static final int IPV4_TTL_OFFSET = 8;
    /** IPv4 bytes set to ones: the two bytes of the header checksum. */
    public static final int IPV4_CHECKSUM_OFFSET = 10;
    /** IPv6 bytes 0..3 are ORed with {@code 0F FF FF FF}: traffic class and flow label, version kept. */
    public static final int IPV6_VERSION_CLASS_FLOW_MASK = 0x0FFF_FFFF;
    /** IPv6 byte set to ones: hop limit. */
    public static final int IPV6_HOP_LIMIT_OFFSET = 7;
    /** UDP bytes set to ones: the two bytes of the checksum (relative to the UDP header). */
    public static final int UDP_CHECKSUM_OFFSET = 6;
    /** BTH byte set to ones: FECN, BECN and 6 reserved bits (relative to the BTH). */
    public static final int BTH_FECN_BECN_OFFSET = 4;

    /**
     * CRC register (before the final complement) after the 8 prefix bytes of {@code 0xFF} from the all-ones init.
     * It is the seed rxe passes to {@code crc32_le} and, not by chance, the CRC-32 residue.
     */
    public static final int REGISTER_AFTER_PREFIX = 0xDEBB_20E3;

    private static final byte[] IPV4_MASK = new byte[IPV4_MASKED_LENGTH];
    private static final byte[] IPV6_MASK = new byte[IPV6_MASKED_LENGTH];

    static
    {
        IPV4_MASK[IPV4_TOS_OFFSET] = (byte)0xFF;
        IPV4_MASK[IPV4_TTL_OFFSET] = (byte)0xFF;
        IPV4_MASK[IPV4_CHECKSUM_OFFSET] = (byte)0xFF;
        IPV4_MASK[IPV4_CHECKSUM_OFFSET + 1] = (byte)0xFF;
        IPV4_MASK[IPV4_HEADER_LENGTH + UDP_CHECKSUM_OFFSET] = (byte)0xFF;
        IPV4_MASK[IPV4_HEADER_LENGTH + UDP_CHECKSUM_OFFSET + 1] = (byte)0xFF;
        IPV4_MASK[IPV4_HEADER_LENGTH + UDP_HEADER_LENGTH + BTH_FECN_BECN_OFFSET] = (byte)0xFF;

        IPV6_MASK[0] = (byte)(IPV6_VERSION_CLASS_FLOW_MASK >>> 24);
        IPV6_MASK[1] = (byte)(IPV6_VERSION_CLASS_FLOW_MASK >>> 16);
        IPV6_MASK[2] = (byte)(IPV6_VERSION_CLASS_FLOW_MASK >>> 8);
        IPV6_MASK[3] = (byte)IPV6_VERSION_CLASS_FLOW_MASK;
        IPV6_MASK[IPV6_HOP_LIMIT_OFFSET] = (byte)0xFF;
        IPV6_MASK[IPV6_HEADER_LENGTH + UDP_CHECKSUM_OFFSET] = (byte)0xFF;
        IPV6_MASK[IPV6_HEADER_LENGTH + UDP_CHECKSUM_OFFSET + 1] = (byte)0xFF;
        IPV6_MASK[IPV6_HEADER_LENGTH + UDP_HEADER_LENGTH + BTH_FECN_BECN_OFFSET] = (byte)0xFF;
    }

    private Icrc()
    {
    }

    /** @return the length of the masked region (IP + UDP + BTH) for the IP version. */
    public static int maskedLength(final boolean ipv6)
    {
        return ipv6 ? IPV6_MASKED_LENGTH : IPV4_MASKED_LENGTH;
    }

    /** @return a copy of the OR mask over the masked region (IP + UDP + BTH) for the IP version. */
    public static byte[] mask(final boolean ipv6)
    {
        return (ipv6 ? IPV6_MASK : IPV4_MASK).clone();
    }

    /** Reads the ICRC field as the CRC value: least-significant byte first. */
    public static int readWire(final DirectBuffer buffer, final int icrcOffset)
    {
        return buffer.getInt(icrcOffset, ByteOrder.LITTLE_ENDIAN);
    }

    /** Writes the CRC value into the ICRC field, least-significant byte first. */
    public static void writeWire(final MutableDirectBuffer buffer, final int icrcOffset, final int icrc)
    {
        buffer.putInt(icrcOffset, icrc, ByteOrder.LITTLE_ENDIAN);
    }

    /**
     * Whether this JVM has the Vector API ({@code --add-modules jdk.incubator.vector}); without it the default
     * calculator computes the same ICRC without vectors, a few nanoseconds slower per small packet on AVX-512.
     */
    public static boolean isVectorApiPresent()
    {
        return VectorApi.PRESENT;
    }

    /**
     * A new instance of the engine's default calculator, {@link AdaptiveIcrc}. Calculators are single-threaded,
     * so each engine thread (each validator, each builder) takes its own.
     */
    public static IcrcCalculator defaultCalculator()
    {
        return new AdaptiveIcrc();
    }

    /** Checks {@code [ipOffset, icrcOffset)} lies inside the buffer and returns its length. */
    static int checkedLength(final DirectBuffer buffer, final int ipOffset, final int icrcOffset)
    {
        final int length = icrcOffset - ipOffset;
        if (length < 0)
        {
            throw new IllegalArgumentException("icrcOffset " + icrcOffset + " < ipOffset " + ipOffset);
        }
        if (ipOffset < 0 || icrcOffset > buffer.capacity())
        {
            throw new IndexOutOfBoundsException(
                "[" + ipOffset + ", " + icrcOffset + ") outside buffer of capacity " + buffer.capacity());
        }
        return length;
    }
}
