package io.rnic.tools;

/**
 * What a tool learned about one of the peer's QPs in the out-of-band exchange. {@code regionAddress} is the buffer
 * the peer announced (its receive area); {@code outReads} the READs/atomics it lets us have outstanding (perftest's
 * {@code out_reads}: the value it gives its own {@code max_dest_rd_atomic}).
 */
public record RemoteQp(int qpn, int psn, int rKey, long regionAddress, long gidHigh, long gidLow, int outReads)
{
    public RemoteQp(final int qpn, final int psn, final int rKey, final long regionAddress, final long gidHigh,
        final long gidLow)
    {
        this(qpn, psn, rKey, regionAddress, gidHigh, gidLow, 1);
    }
}
