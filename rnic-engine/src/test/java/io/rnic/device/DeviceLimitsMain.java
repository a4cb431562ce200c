package io.rnic.device;

import io.rnic.transport.LocalPort;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.Errno;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.QpInitAttributes;
import io.rnic.verbs.VerbsException;
import org.agrona.concurrent.SystemNanoClock;

import java.util.ArrayList;
import java.util.List;

/**
 * Asks a device with the default limits, in a JVM of a small heap ({@link DeviceLimitsTest}), for QPs of depth 1,
 * then of depth 128/128 with 16 SGEs, then CQs of 4 096 entries, each until refused: prints one line per kind, how many
 * it got and the refusal, and exits 0 only when each ended with ENOMEM. An OutOfMemoryError ends it with status 1.
 */
public final class DeviceLimitsMain
{
    private DeviceLimitsMain()
    {
    }

    public static void main(final String[] args)
    {
        final RnicDevice device = new RnicDevice(new LocalPort(0x02_00_00_00_00_01L), (buffer, offset, length) -> { },
            SystemNanoClock.INSTANCE);
        final DeviceLimits limits = device.resources().limits();
        System.out.println("memory " + limits.memoryBytes() + " max_qp " + limits.maxQp() + " max_cq " +
            limits.maxCq());
        final ProtectionDomain pd = device.allocPd();
        final CompletionQueue cq = device.createCq(1);
        boolean allEnomem = true;
        for (final int[] shape : new int[][]{ { 1, 1 }, { 128, 16 } })
        {
            final List<QueuePair> qps = new ArrayList<>();
            final VerbsException refused = until(() -> qps.add(device.createQp(new QpInitAttributes().pd(pd)
                .cqs(cq, cq).capacity(shape[0], shape[0]).maxSge(shape[1], shape[1]))));
            System.out.println("QPs " + shape[0] + "/" + shape[0] + ", " + shape[1] + " SGEs: " + qps.size() +
                ", then " + refused.getMessage());
            allEnomem &= refused.errno() == Errno.ENOMEM;
            qps.forEach(device::destroyQp);
        }
        final List<CompletionQueue> cqs = new ArrayList<>();
        final VerbsException refused = until(() -> cqs.add(device.createCq(4096)));
        System.out.println("CQs of 4096: " + cqs.size() + ", then " + refused.getMessage());
        allEnomem &= refused.errno() == Errno.ENOMEM;
        System.out.flush();
        System.exit(allEnomem ? 0 : 1);
    }

    private static VerbsException until(final Runnable create)
    {
        while (true)
        {
            try
            {
                create.run();
            }
            catch (final VerbsException ex)
            {
                return ex;
            }
        }
    }
}
