package io.rnic.icrc;

import org.agrona.DirectBuffer;

/** TEMPORARY stand-in until the ICRC work lands. */
public interface IcrcCalculator
{
    int compute(DirectBuffer buffer, int ipOffset, boolean ipv6, int icrcOffset);
}
