package io.rnic.client;

import io.rnic.device.QueuePair;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.QpInitAttributes;
import io.rnic.verbs.VerbsException;

import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * What one client can hold of a running driver (BENCHMARKS.md, "Device limits"): CQs, then QPs of send/receive depth
 * {@code DEPTH} with {@code SGES} SGEs, then 4 KiB regions, each until refused; prints how many and the refusal.
 * <pre>
 * java ... -cp rnic-engine/target/classes:rnic-client/target/classes:rnic-client/target/test-classes:AGRONA io.rnic.client.ClientHoldMain DIR 128 16
 * </pre>
 */
public final class ClientHoldMain
{
    private ClientHoldMain()
    {
    }

    public static void main(final String[] args)
    {
        final int depth = Integer.parseInt(args[1]);
        final int sges = Integer.parseInt(args[2]);
        try (DriverContext context = DriverContext.open(Path.of(args[0])))
        {
            final ProtectionDomain pd = context.allocPd();
            final List<CompletionQueue> cqs = new ArrayList<>();
            hold("CQs of 16", () -> cqs.add(context.createCq(16)), cqs);
            final CompletionQueue cq = cqs.get(0);
            final List<QueuePair> qps = new ArrayList<>();
            hold("QPs " + depth + "/" + depth + ", " + sges + " SGEs", () -> qps.add(context.createQp(
                new QpInitAttributes().pd(pd).cqs(cq, cq).capacity(depth, depth).maxSge(sges, sges))), qps);
            final MemorySegment memory = context.allocate(4096);
            final List<Object> mrs = new ArrayList<>();
            hold("regions of 4 KiB", () -> mrs.add(context.registerMemoryRegion(pd, memory, AccessFlags.ALL)), mrs);
        }
    }

    private static void hold(final String what, final Supplier<Boolean> create, final List<?> held)
    {
        final long startNs = System.nanoTime();
        try
        {
            while (true)
            {
                create.get();
            }
        }
        catch (final VerbsException ex)
        {
            System.out.println(what + ": " + held.size() + " in " + (System.nanoTime() - startNs) / 1_000_000 +
                " ms, then " + ex.getMessage());
        }
    }
}
