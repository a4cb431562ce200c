package io.rnic.device;

import io.rnic.verbs.Errno;
import io.rnic.verbs.VerbsException;

import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What a device holds now, against its {@link DeviceLimits}: a create reserves its object's count and memory
 * ({@link ResourceCosts}) before allocating anything, and fails with ENOMEM past either limit; a destroy releases
 * them. Control path, any thread.
 */
public final class DeviceResources
{
    private final DeviceLimits limits;
    private final AtomicIntegerArray counts = new AtomicIntegerArray(ResourceKind.values().length);
    private final AtomicLong memoryBytes = new AtomicLong();

    public DeviceResources(final DeviceLimits limits)
    {
        this.limits = limits;
    }

    public DeviceLimits limits()
    {
        return limits;
    }

    /**
     * Counts one more object of {@code kind} taking {@code bytes}.
     *
     * @throws VerbsException ENOMEM when the device holds its limit of them, or the bytes do not fit in its memory.
     */
    public void reserve(final ResourceKind kind, final long bytes)
    {
        final int max = limits.max(kind);
        if (counts.incrementAndGet(kind.ordinal()) > max)
        {
            counts.decrementAndGet(kind.ordinal());
            throw new VerbsException(Errno.ENOMEM, kind.verb() + ": the device holds " + max + " " + kind.plural() +
                ", its " + kind.attribute());
        }
        final long total = memoryBytes.addAndGet(bytes);
        if (total > limits.memoryBytes())
        {
            memoryBytes.addAndGet(-bytes);
            counts.decrementAndGet(kind.ordinal());
            throw new VerbsException(Errno.ENOMEM, kind.verb() + ": this one takes " + bytes + " bytes and the " +
                "device's memory has " + Math.max(0, limits.memoryBytes() - (total - bytes)) + " of " +
                limits.memoryBytes() + " left (half of the JVM's -Xmx or -XX:MaxDirectMemorySize: raise them, or " +
                "destroy objects or make their queues smaller)");
        }
    }

    /** Gives back what {@link #reserve} took for an object now destroyed. */
    public void release(final ResourceKind kind, final long bytes)
    {
        counts.decrementAndGet(kind.ordinal());
        memoryBytes.addAndGet(-bytes);
    }

    /** Objects of {@code kind} held now. */
    public int count(final ResourceKind kind)
    {
        return counts.get(kind.ordinal());
    }

    /** The memory they take now, by {@link ResourceCosts}. */
    public long memoryBytes()
    {
        return memoryBytes.get();
    }
}
