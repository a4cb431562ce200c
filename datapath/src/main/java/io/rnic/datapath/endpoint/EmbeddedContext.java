package io.rnic.datapath.endpoint;

import io.rnic.device.QueuePair;
import io.rnic.device.RnicContext;
import io.rnic.device.RnicDevice;
import io.rnic.transport.LocalPort;
import io.rnic.verbs.AsyncEvent;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.MemoryRegion;
import io.rnic.verbs.MemoryWindow;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.QpInitAttributes;
import io.rnic.verbs.SharedReceiveQueue;
import io.rnic.verbs.SrqAttributes;
import io.rnic.verbs.VerbsException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.time.Duration;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * The verbs of an endpoint running in this process ({@link Endpoint}): the same API a driver's client has
 * ({@code io.rnic.client.DriverContext}), so that code written against {@link RnicContext} runs on either. Memory
 * from {@link #allocate} is freed by {@link #close()} only after the engine threads have stopped: closing the
 * context cannot free memory an engine is still writing.
 */
public final class EmbeddedContext implements RnicContext
{
    private final Endpoint endpoint;
    private final RnicDevice device;
    private final Map<MemorySegment, Arena> allocations = new IdentityHashMap<>();
    private boolean closed;

    private EmbeddedContext(final Endpoint endpoint)
    {
        this.endpoint = endpoint;
        this.device = endpoint.device();
    }

    /** A context over a started endpoint; the context owns it from now on and closes it. */
    public static EmbeddedContext of(final Endpoint endpoint)
    {
        return new EmbeddedContext(endpoint);
    }

    public Endpoint endpoint()
    {
        return endpoint;
    }

    public synchronized MemorySegment allocate(final long lengthBytes)
    {
        if (lengthBytes <= 0)
        {
            throw new VerbsException("cannot allocate " + lengthBytes + " bytes");
        }
        final Arena arena = Arena.ofShared();
        final MemorySegment segment = arena.allocate(lengthBytes, 4096);
        allocations.put(segment, arena);
        return segment;
    }

    public synchronized void free(final MemorySegment segment)
    {
        final Arena arena = allocations.remove(segment);
        if (arena == null)
        {
            throw new VerbsException("memory at 0x" + Long.toHexString(segment.address()) + " does not come from " +
                "this context's allocate()");
        }
        arena.close();
    }

    public ProtectionDomain allocPd()
    {
        return device.allocPd();
    }

    public MemoryRegion registerMemoryRegion(final ProtectionDomain pd, final MemorySegment segment, final int access)
    {
        return device.registerMemoryRegion(pd, segment, access);
    }

    public void deregisterMemoryRegion(final MemoryRegion region)
    {
        device.deregisterMemoryRegion(region);
    }

    public MemoryWindow allocMw(final ProtectionDomain pd, final int type)
    {
        return device.allocMw(pd, type);
    }

    public void deallocMw(final MemoryWindow window)
    {
        device.deallocMw(window);
    }

    public CompletionQueue createCq(final int entries)
    {
        return device.createCq(entries);
    }

    public void destroyCq(final CompletionQueue cq)
    {
        device.destroyCq(cq); // the engine holds a CQ only through its QPs: its memory goes with its last reference
    }

    public QueuePair createQp(final QpInitAttributes init)
    {
        return device.createQp(init);
    }

    public void destroyQp(final QueuePair qp)
    {
        device.destroyQp(qp);
    }

    public SharedReceiveQueue createSrq(final ProtectionDomain pd, final SrqAttributes attributes)
    {
        return device.createSrq(pd, attributes);
    }

    public void destroySrq(final SharedReceiveQueue srq)
    {
        device.destroySrq(srq);
    }

    public boolean pollAsyncEvent(final AsyncEvent event)
    {
        return device.pollAsyncEvent(event);
    }

    public LocalPort port()
    {
        return endpoint.localPort();
    }

    public long resolveMac(final InetAddress address, final int sgidIndex, final Duration timeout)
    {
        return endpoint.resolveMac(address, sgidIndex, timeout);
    }

    /** Stops the endpoint, then frees the memory from {@link #allocate}. Idempotent. */
    public synchronized void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        endpoint.close();
        for (final Arena arena : allocations.values())
        {
            arena.close();
        }
        allocations.clear();
    }
}
