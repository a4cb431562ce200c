package io.rnic.cm;

/**
 * DisconnectRequest (DREQ, IBTA 12.6.10): the comm IDs and the QPN of the receiver's peer QP.
 * <pre>
 *   24 Local Comm ID   28 Remote Comm ID   32 Remote QPN/EECN (24) | reserved   36..255 private data (220)
 * </pre>
 * RTU and DREP carry the comm IDs only ({@link CmMadFlyweight}).
 */
public final class CmDreqFlyweight extends CmMadFlyweight
{
    static final int REMOTE_QPN_OFFSET = 32;

    public int remoteQpn()
    {
        return u24(REMOTE_QPN_OFFSET);
    }

    public CmDreqFlyweight remoteQpn(final int qpn)
    {
        putU24(REMOTE_QPN_OFFSET, qpn);
        return this;
    }
}
