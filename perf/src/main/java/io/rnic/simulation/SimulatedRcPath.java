package io.rnic.simulation;

import io.rnic.device.ConnectParameters;
import io.rnic.device.QueuePair;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.PathMtu;

/**
 * Brings one end of a simulated RC connection to RTS: the simulations have no out-of-band exchange, so each side is
 * given the other's QPN, first PSN, IPv4 and MAC directly. {@link Workload} and {@link CongestionScenario} connect
 * their flows the same way and differ only in the timers.
 */
final class SimulatedRcPath
{
    private SimulatedRcPath()
    {
    }

    /**
     * @param sqPsn      this side's first PSN (its requester's).
     * @param rqPsn      the other side's first PSN (what this side's responder expects).
     * @param timeout    ibverbs' local ACK timeout exponent (0..31).
     * @param retryCount ibverbs' retry count (0..7).
     * @param rnrRetry   ibverbs' RNR retry count (0..7).
     */
    static void bringUp(
        final QueuePair qp, final int remoteQpn, final int remoteIp, final long remoteMac, final int sqPsn,
        final int rqPsn, final PathMtu mtu, final int timeout, final int retryCount, final int rnrRetry)
    {
        final ConnectParameters parameters = new ConnectParameters()
            .remote(remoteQpn, rqPsn)
            .localPsn(sqPsn)
            .pathMtu(mtu)
            .timers(timeout, retryCount, rnrRetry, 1)
            .readAtomic(16, 16);
        parameters.accessFlags(parameters.accessFlags | AccessFlags.FLUSH_GLOBAL); // the workload's FLUSHes
        parameters.addressVector.destinationIpv4(remoteIp).destinationMac(remoteMac).sourceGidIndex(0);
        parameters.applyTo(qp);
    }
}
