package io.rnic.tools.perftest;

import io.rnic.datapath.endpoint.InterfaceAddresses;
import io.rnic.device.ConnectParameters;
import io.rnic.device.QueuePair;
import io.rnic.device.RnicContext;
import io.rnic.tools.LocalQp;
import io.rnic.tools.QpLayout;
import io.rnic.tools.RemoteQp;
import io.rnic.tools.exchange.PerftestOutOfBand;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.MemoryRegion;
import io.rnic.verbs.PathMtu;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.QpInitAttributes;

import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.security.SecureRandom;
import java.time.Duration;

/**
 * The QPs of a perftest run, made as perftest makes them: one PD and one registered buffer cut into a region per QP
 * ({@link QpLayout}; the context's memory: through a driver, only that can be registered), a send and a receive CQ per QP sized for the depths, a random first PSN each; and, once the
 * exchange has told us the peer's QPs, the transitions to RTS where the RDMA CM does not make them.
 */
final class ToolQps
{
    private ToolQps()
    {
    }

    static LocalQp[] create(final RnicContext context, final ToolOptions options, final QpLayout layout)
    {
        final SecureRandom random = new SecureRandom();
        final ProtectionDomain pd = context.allocPd();
        final MemorySegment buffer = context.allocate(layout.regionBytes * options.qps);
        final MemoryRegion mr = context.registerMemoryRegion(pd, buffer, AccessFlags.ALL);
        final LocalQp[] qps = new LocalQp[options.qps];
        for (int i = 0; i < qps.length; i++)
        {
            final CompletionQueue sendCq = context.createCq(Math.max(64, options.txDepth * 2));
            final CompletionQueue recvCq = context.createCq(Math.max(64, options.rxDepth * 2));
            final QueuePair qp = context.createQp(new QpInitAttributes().type(options.flags.qpType(options.kind)).pd(pd)
                .cqs(sendCq, recvCq).capacity(Math.max(16, options.txDepth + 1), Math.max(16, options.rxDepth)));
            qps[i] = new LocalQp(qp, sendCq, recvCq, buffer.asSlice(i * layout.regionBytes, layout.regionBytes),
                mr.lKey(), mr.rKey(), layout);
            qps[i].psn = random.nextInt(1 << 24);
            qps[i].sges = options.sges;
        }
        return qps;
    }

    /** INIT to RTS towards the peer's QP {@code q.remote}, its MAC resolved from its GID. */
    static void connect(final RnicContext context, final LocalQp q, final int gidIndex, final int mtu,
        final ToolOptions options)
    {
        final RemoteQp remote = q.remote;
        final InetAddress peer = InterfaceAddresses.gidAddress(remote.gidHigh(), remote.gidLow());
        final long mac = context.resolveMac(peer, gidIndex, Duration.ofMillis(Math.min(options.timeoutMs, 30_000)));
        final ConnectParameters parameters = new ConnectParameters()
            .remote(remote.qpn(), remote.psn())
            .localPsn(q.psn)
            .pathMtu(PathMtu.ofBytes(mtu))
            // perftest gives its max_dest_rd_atomic the out_reads it announces: never have more outstanding
            .readAtomic(Math.max(1, Math.min(PerftestOutOfBand.OUT_READS, remote.outReads())),
                PerftestOutOfBand.OUT_READS);
        parameters.qkey = LocalQp.QKEY;
        parameters.timeout = options.qpTimeout;
        parameters.addressVector.destinationGid(remote.gidHigh(), remote.gidLow()).destinationMac(mac)
            .sourceGidIndex(gidIndex).hopLimit(64).trafficClass(options.flags.trafficClass)
            .serviceLevel(options.flags.serviceLevel);
        parameters.applyTo(q.qp);
        q.peerAddress.copyFrom(parameters.addressVector);
    }
}
