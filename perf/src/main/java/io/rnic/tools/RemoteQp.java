package io.rnic.tools;

/** What a tool learned about one of the peer's QPs in the out-of-band exchange. */
record RemoteQp(int qpn, int psn, int rKey, long regionAddress, long gidHigh, long gidLow)
{
}
