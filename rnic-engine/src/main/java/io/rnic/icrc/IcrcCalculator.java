package io.rnic.icrc;

import org.agrona.DirectBuffer;

/**
 * Computes the RoCEv2 invariant CRC (IBTA annex A17.3.3) of one packet held in a {@link DirectBuffer}.
 * <p>
 * Implementations keep per-instance scratch state, so an instance is single-threaded: one per engine thread.
 * {@link #compute} allocates nothing and reads nothing outside the buffer. Apart from the region
 * {@code [ipOffset, icrcOffset)} it may read the (at most 8) bytes just before {@code ipOffset} that are inside the
 * buffer; their values never change the result.
 *
 * @see Icrc for the rule, the wire byte order and the default implementation.
 */
public interface IcrcCalculator
{
    /**
     * Returns the ICRC value (annex A17.3.3) of the packet whose IP header starts at {@code ipOffset} and whose
     * 4-byte ICRC field starts at {@code icrcOffset} (= end of pad). {@code ipv6} selects the 40-byte IPv6 header,
     * else IPv4 IHL=5.
     *
     * @param buffer     holding the packet.
     * @param ipOffset   of the first byte of the IP header.
     * @param ipv6       true for a 40-byte IPv6 header, false for a 20-byte IPv4 header.
     * @param icrcOffset of the ICRC field, found from the IP/UDP length (never from the frame end).
     * @return the CRC value; put it on the wire with {@link Icrc#writeWire}, compare it with {@link Icrc#readWire}.
     * @throws IndexOutOfBoundsException if {@code [ipOffset, icrcOffset)} is not inside the buffer.
     * @throws IllegalArgumentException   if {@code icrcOffset < ipOffset}.
     */
    int compute(DirectBuffer buffer, int ipOffset, boolean ipv6, int icrcOffset);
}
