package io.rnic.datapath.driver;

import io.rnic.device.DeviceLimits;

import java.lang.management.ManagementFactory;

/**
 * What one client of a driver may hold, so that no client takes what every client shares (the device's limits, the
 * driver's memory, its mappings): QPs, CQs, SRQs, memory regions, the bytes of its registered regions, and the
 * driver's memory its QPs' work queues take ({@link io.rnic.device.ResourceCosts}). Each is a flag of
 * {@code rnic driver}; a command past one fails with ENOMEM naming the flag, and is counted.
 *
 * @param qps             {@code --max-client-qps}.
 * @param cqs             {@code --max-client-cqs}.
 * @param srqs            {@code --max-client-srqs}.
 * @param mrs             {@code --max-client-mrs}.
 * @param registeredBytes {@code --max-client-mr-bytes}: the lengths of its regions, summed.
 * @param queueBytes      {@code --max-client-queue-bytes}: the driver's memory its work queues take.
 */
public record ClientQuotas(int qps, int cqs, int srqs, int mrs, long registeredBytes, long queueBytes)
{
    public static final int QPS_DEFAULT = 4096;
    public static final int CQS_DEFAULT = 4096;
    public static final int SRQS_DEFAULT = 1024;
    public static final int MRS_DEFAULT = 8192;

    public ClientQuotas
    {
        if (qps < 1 || cqs < 1 || srqs < 1 || mrs < 1 || registeredBytes < 1 || queueBytes < 1)
        {
            throw new IllegalArgumentException("client quotas must be positive: " + this);
        }
    }

    /**
     * The defaults: 4 096 QPs and CQs, 1 024 SRQs and 8 192 regions (each a mapping of the client's memory in the
     * driver: about 17 000 of the kernel's 65 530 per process, {@code vm.max_map_count}), the machine's memory in
     * registered bytes, and a quarter of the device's memory ({@link DeviceLimits#forThisJvm}) for work queues.
     */
    public static ClientQuotas defaults()
    {
        return new ClientQuotas(QPS_DEFAULT, CQS_DEFAULT, SRQS_DEFAULT, MRS_DEFAULT, physicalMemoryBytes(),
            Math.max(1, DeviceLimits.forThisJvm().memoryBytes() / 4));
    }

    /** The machine's memory, or 1 TiB where the JVM does not say. */
    static long physicalMemoryBytes()
    {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os)
        {
            return os.getTotalMemorySize();
        }
        return 1L << 40;
    }

    public ClientQuotas withQps(final int qps)
    {
        return new ClientQuotas(qps, cqs, srqs, mrs, registeredBytes, queueBytes);
    }

    public ClientQuotas withCqs(final int cqs)
    {
        return new ClientQuotas(qps, cqs, srqs, mrs, registeredBytes, queueBytes);
    }

    public ClientQuotas withSrqs(final int srqs)
    {
        return new ClientQuotas(qps, cqs, srqs, mrs, registeredBytes, queueBytes);
    }

    public ClientQuotas withMrs(final int mrs)
    {
        return new ClientQuotas(qps, cqs, srqs, mrs, registeredBytes, queueBytes);
    }

    public ClientQuotas withRegisteredBytes(final long registeredBytes)
    {
        return new ClientQuotas(qps, cqs, srqs, mrs, registeredBytes, queueBytes);
    }

    public ClientQuotas withQueueBytes(final long queueBytes)
    {
        return new ClientQuotas(qps, cqs, srqs, mrs, registeredBytes, queueBytes);
    }
}
