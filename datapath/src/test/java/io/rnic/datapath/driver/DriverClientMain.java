package io.rnic.datapath.driver;

import io.rnic.client.DriverContext;
import io.rnic.device.QueuePair;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.MemoryRegion;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.QpInitAttributes;

import java.nio.file.Path;

/**
 * A client of {@link FdPassingTest}'s driver in a process of its own (run as another user): attaches to the
 * directory {@code DIR}, registers a memory region and creates a CQ and a QP (three memfds passed), prints what it
 * got, and exits without detaching, as a client that dies does.
 */
public final class DriverClientMain
{
    private DriverClientMain()
    {
    }

    public static void main(final String[] args)
    {
        final DriverContext client = DriverContext.open(Path.of(args[0]));
        final ProtectionDomain pd = client.allocPd();
        final MemoryRegion region = client.registerMemoryRegion(pd, client.allocate(64 * 1024), AccessFlags.ALL);
        final CompletionQueue cq = client.createCq(16);
        final QueuePair qp = client.createQp(new QpInitAttributes().pd(pd).cqs(cq, cq).capacity(4, 4));
        System.out.println("attached as " + Long.toHexString(client.clientId()) + ": rkey " +
            (region.rKey() != 0) + ", qpn " + (qp.qpn() > 1));
        System.exit(0); // no close: the driver sees the socket close
    }
}
