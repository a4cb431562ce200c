package io.rnic.cm;

/**
 * A peer's communication ID with its CA GUID: together they name a connection on the peer's side (IBTA 12.9.5), the
 * key under which a duplicate REQ finds the connection it already made. Each connection owns one as its key; the
 * manager probes with one of its own, reset per MAD, so that a lookup allocates nothing.
 */
final class CmRemoteId
{
    private int commId;
    private long caGuid;

    CmRemoteId set(final int commId, final long caGuid)
    {
        this.commId = commId;
        this.caGuid = caGuid;
        return this;
    }

    @Override
    public boolean equals(final Object other)
    {
        return other instanceof CmRemoteId that && that.commId == commId && that.caGuid == caGuid;
    }

    @Override
    public int hashCode()
    {
        return 31 * commId + Long.hashCode(caGuid);
    }
}
