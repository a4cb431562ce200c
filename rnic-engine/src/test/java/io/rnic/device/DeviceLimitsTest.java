package io.rnic.device;

import io.rnic.testing.ForkedJvm;
import io.rnic.transport.LocalPort;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.Errno;
import io.rnic.verbs.MemoryRegion;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.QpInitAttributes;
import io.rnic.verbs.SharedReceiveQueue;
import io.rnic.verbs.SrqAttributes;
import io.rnic.verbs.VerbsException;
import org.agrona.concurrent.SystemNanoClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A device refuses what its memory cannot hold with ENOMEM, and gives it back when objects are destroyed. */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class DeviceLimitsTest
{
    private static RnicDevice device(final DeviceLimits limits)
    {
        return new RnicDevice(new LocalPort(0x02_00_00_00_00_01L), SystemNanoClock.INSTANCE, 1, null, limits);
    }

    @Test
    void shouldRefuseQpsPastTheDevicesMemoryWithEnomemAndTakeMoreOnceSomeAreDestroyed()
    {
        final DeviceLimits limits = DeviceLimits.ofMemory(1 << 20);
        final RnicDevice device = device(limits);
        final ProtectionDomain pd = device.allocPd();
        final CompletionQueue cq = device.createCq(1);
        final QpInitAttributes small = new QpInitAttributes().pd(pd).cqs(cq, cq).capacity(1, 1).maxSge(1, 1);
        final long room = limits.memoryBytes() - device.resources().memoryBytes();
        final int fit = (int)(room / ResourceCosts.queuePair(1, 1, 1, 1));
        final QueuePair[] qps = new QueuePair[fit];
        for (int i = 0; i < fit; i++)
        {
            qps[i] = device.createQp(small);
        }
        final VerbsException refused = assertThrows(VerbsException.class, () -> device.createQp(small));
        assertEquals(Errno.ENOMEM, refused.errno());
        assertTrue(refused.getMessage().startsWith("ENOMEM: ibv_create_qp: this one takes 4096 bytes and the " +
            "device's memory has "), refused.getMessage());
        assertEquals(fit, device.resources().count(ResourceKind.QP));

        device.destroyQp(qps[0]);
        device.destroyQp(qps[1]);
        final VerbsException deep = assertThrows(VerbsException.class,
            () -> device.createQp(new QpInitAttributes().pd(pd).cqs(cq, cq).capacity(128, 128)));
        assertEquals(Errno.ENOMEM, deep.errno(), "two small QPs' room does not hold a deep one");
        qps[0] = device.createQp(small);
        qps[1] = device.createQp(small);
        for (final QueuePair qp : qps)
        {
            device.destroyQp(qp);
        }
        assertEquals(0, device.resources().count(ResourceKind.QP));
    }

    @Test
    void shouldRefuseEachKindPastItsCountAndNameTheAttribute()
    {
        final DeviceLimits limits = DeviceLimits.ofMemory(64 * ResourceCosts.MR_BYTES);
        assertEquals(64, limits.maxMr());
        final RnicDevice device = device(limits);
        final ProtectionDomain pd = device.allocPd();
        try (Arena arena = Arena.ofConfined())
        {
            final MemoryRegion[] regions = new MemoryRegion[64];
            for (int i = 0; i < regions.length; i++)
            {
                regions[i] = device.registerMemoryRegion(pd, arena.allocate(64), AccessFlags.LOCAL_WRITE);
            }
            final VerbsException refused = assertThrows(VerbsException.class,
                () -> device.registerMemoryRegion(pd, arena.allocate(64), AccessFlags.LOCAL_WRITE));
            assertEquals("ENOMEM: ibv_reg_mr: the device holds 64 memory regions, its max_mr", refused.getMessage());
            device.deregisterMemoryRegion(regions[5]);
            regions[5] = device.registerMemoryRegion(pd, arena.allocate(64), AccessFlags.LOCAL_WRITE);
            assertEquals(64, device.resources().count(ResourceKind.MR));
        }
    }

    @Test
    void shouldChargeSrqsAndCqsAndGiveThemBack()
    {
        final RnicDevice device = device(DeviceLimits.ofMemory(1 << 24));
        final ProtectionDomain pd = device.allocPd();
        final CompletionQueue cq = device.createCq(4096);
        final SharedReceiveQueue srq = device.createSrq(pd, new SrqAttributes().maxWr(1000).maxSge(2));
        assertEquals(ResourceCosts.completionQueue(4096) + ResourceCosts.sharedReceiveQueue(1024, 2),
            device.resources().memoryBytes());
        device.destroySrq(srq);
        device.destroyCq(cq);
        device.destroyCq(cq);
        assertEquals(0, device.resources().memoryBytes(), "a second destroy gives back nothing");
        assertEquals(0, device.resources().count(ResourceKind.CQ));
    }

    @Test
    void shouldAdvertiseWhatItsMemoryHoldsOfTheSmallestObjects()
    {
        final DeviceLimits limits = DeviceLimits.ofMemory(1L << 30);
        assertEquals((1 << 30) / 4096, limits.maxQp(), "a QP of depth 1 and 1 SGE: 4 KiB");
        assertEquals(DeviceLimits.QPN_COUNT, DeviceLimits.ofMemory(1L << 40).maxQp(), "the QPNs bound it first");
    }

    /**
     * The run: createQp until OutOfMemoryError (1.55 M QPs of depth 1 in a 6 GiB heap). In a 64 MiB heap,
     * with the default limits, each kind ends in ENOMEM after what the advertised limits say.
     */
    @Test
    void shouldRefuseWithEnomemBeforeTheHeapRunsOutInASmallJvm() throws IOException, InterruptedException
    {
        final ForkedJvm.Result result = ForkedJvm.run(List.of("env", "JAVA_TOOL_OPTIONS=-Xmx64m"),
            DeviceLimitsMain.class, Set.of());

        assertEquals(0, result.exit(), result.toString());
        final Matcher limits = Pattern.compile("memory (\\d+) max_qp (\\d+) max_cq (\\d+)").matcher(result.stdout());
        assertTrue(limits.find(), result.toString());
        assertEquals(32L << 20, Long.parseLong(limits.group(1)), "half of -Xmx64m, " + result);
        final int maxQp = Integer.parseInt(limits.group(2));
        // all of the memory but what the one CQ of the QPs takes
        assertEquals(maxQp - 1, created(result, "QPs 1/1, 1 SGEs: (\\d+), then ENOMEM: ibv_create_qp: "));
        assertEquals((32L << 20) / ResourceCosts.queuePair(128, 16, 128, 16) - 1,
            created(result, "QPs 128/128, 16 SGEs: (\\d+), then ENOMEM: ibv_create_qp: "));
        assertEquals((32L << 20) / ResourceCosts.completionQueue(4096),
            created(result, "CQs of 4096: (\\d+), then ENOMEM: ibv_create_cq: "));
    }

    private static long created(final ForkedJvm.Result result, final String line)
    {
        final Matcher matcher = Pattern.compile(line).matcher(result.stdout());
        assertTrue(matcher.find(), "no line " + line + " in " + result);
        return Long.parseLong(matcher.group(1));
    }
}
