package io.rnic.device;

import com.sun.management.HotSpotDiagnosticMXBean;
import io.rnic.transport.QpTable;
import io.rnic.verbs.MemoryRegionTable;
import io.rnic.verbs.MemoryWindowTable;

import java.lang.management.ManagementFactory;

/**
 * What a device may hold ({@code ibv_query_device}'s {@code max_qp}, {@code max_cq}, {@code max_srq}, {@code max_mr},
 * {@code max_mw}), and the memory its objects may take all together. The memory is the part of the process's that
 * the objects can really have: by default half of the smaller of the heap the JVM may grow to ({@code -Xmx}) and its
 * direct memory ({@code -XX:MaxDirectMemorySize}, the heap's size unless set), the rest left to the engine, the
 * application or the driver around them. Each count is what that memory holds of the smallest such object
 * ({@link ResourceCosts}), within what the keys and QPNs can name. Past either, a create fails with ENOMEM rather than
 * the process with OutOfMemoryError.
 */
public final class DeviceLimits
{
    /** The QPNs a device hands out (0 and 1 are reserved). */
    public static final int QPN_COUNT = QpTable.MAX_QPN - QpTable.FIRST_QPN + 1;
    /** SRQs and CQs a device numbers at most, as max_qp. */
    private static final int MAX_HANDLES = QPN_COUNT;

    private final long memoryBytes;
    private final int maxQp;
    private final int maxCq;
    private final int maxSrq;
    private final int maxMr;
    private final int maxMw;

    private DeviceLimits(final long memoryBytes)
    {
        if (memoryBytes <= 0)
        {
            throw new IllegalArgumentException("device memory " + memoryBytes + " bytes");
        }
        this.memoryBytes = memoryBytes;
        this.maxQp = fit(memoryBytes, ResourceCosts.queuePair(1, 1, 1, 1), QPN_COUNT);
        this.maxCq = fit(memoryBytes, ResourceCosts.completionQueue(1), MAX_HANDLES);
        this.maxSrq = fit(memoryBytes, ResourceCosts.sharedReceiveQueue(1, 1), MAX_HANDLES);
        this.maxMr = fit(memoryBytes, ResourceCosts.MR_BYTES, MemoryRegionTable.MAX_REGIONS);
        this.maxMw = fit(memoryBytes, ResourceCosts.MW_BYTES, MemoryWindowTable.MAX_WINDOWS);
    }

    /** Limits for objects that may take {@code memoryBytes} all together. */
    public static DeviceLimits ofMemory(final long memoryBytes)
    {
        return new DeviceLimits(memoryBytes);
    }

    /** The default: half of the smaller of this JVM's maximum heap and direct memory. */
    public static DeviceLimits forThisJvm()
    {
        return new DeviceLimits(Math.min(Runtime.getRuntime().maxMemory(), maxDirectMemory()) / 2);
    }

    /** {@code -XX:MaxDirectMemorySize}, or the maximum heap when it is not set (the JVM's own default). */
    static long maxDirectMemory()
    {
        final long heap = Runtime.getRuntime().maxMemory();
        try
        {
            final long set = Long.parseLong(ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class)
                .getVMOption("MaxDirectMemorySize").getValue());
            return set > 0 ? set : heap;
        }
        catch (final RuntimeException ex) // not a HotSpot JVM: its default
        {
            return heap;
        }
    }

    private static int fit(final long memoryBytes, final long objectBytes, final int most)
    {
        return (int)Math.min(most, memoryBytes / objectBytes);
    }

    /** The memory the device's objects may take all together. */
    public long memoryBytes()
    {
        return memoryBytes;
    }

    /** The most objects of {@code kind} the device holds. */
    public int max(final ResourceKind kind)
    {
        return switch (kind)
        {
            case QP -> maxQp;
            case CQ -> maxCq;
            case SRQ -> maxSrq;
            case MR -> maxMr;
            case MW -> maxMw;
        };
    }

    public int maxQp()
    {
        return maxQp;
    }

    public int maxCq()
    {
        return maxCq;
    }

    public int maxSrq()
    {
        return maxSrq;
    }

    public int maxMr()
    {
        return maxMr;
    }

    public int maxMw()
    {
        return maxMw;
    }
}
