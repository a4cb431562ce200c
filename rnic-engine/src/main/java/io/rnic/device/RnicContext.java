package io.rnic.device;

import io.rnic.transport.LocalPort;
import io.rnic.verbs.AsyncEvent;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.MemoryRegion;
import io.rnic.verbs.MemoryWindow;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.QpInitAttributes;
import io.rnic.verbs.SharedReceiveQueue;
import io.rnic.verbs.SrqAttributes;

import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.time.Duration;

/**
 * The verbs API of one port ({@code ibv_context}), the same whether the engine runs embedded in this process or in an
 * {@code rnic driver} this process is a client of: code written against it runs unchanged on either. Control calls
 * (everything but the QP's post calls and the CQ's poll) may block and may be made from any thread.
 * <p>
 * Memory to register comes from {@link #allocate}: embedded, it is freed only after the engine has stopped (closing
 * memory before the endpoint cannot crash it); through a driver, it is a sealed shared-memory file the driver maps,
 * so that received data lands in the application's memory without a copy.
 */
public interface RnicContext extends AutoCloseable
{
    /** Memory the context can register, zeroed and page-aligned; it lives until {@link #close()} or {@link #free}. */
    MemorySegment allocate(long lengthBytes);

    /** Gives back memory from {@link #allocate}; deregister its regions first. */
    void free(MemorySegment segment);

    ProtectionDomain allocPd();

    /** Registers (part of) memory from {@link #allocate} with the given {@link io.rnic.verbs.AccessFlags}. */
    MemoryRegion registerMemoryRegion(ProtectionDomain pd, MemorySegment segment, int access);

    /** ibverbs {@code dereg_mr}: once it returns, no packet reads or writes the region's memory. */
    void deregisterMemoryRegion(MemoryRegion region);

    /**
     * ibverbs {@code alloc_mw}: a memory window of {@link MemoryWindow#TYPE_1} or {@link MemoryWindow#TYPE_2} in
     * {@code pd}, bound to nothing.
     */
    MemoryWindow allocMw(ProtectionDomain pd, int type);

    /** ibverbs {@code dealloc_mw}: the window is unbound and its R_Key refused from now on. */
    void deallocMw(MemoryWindow window);

    CompletionQueue createCq(int entries);

    /** Destroys a CQ that no QP uses any more. */
    void destroyCq(CompletionQueue cq);

    QueuePair createQp(QpInitAttributes init);

    void destroyQp(QueuePair qp);

    /**
     * ibverbs {@code create_srq}: a shared receive queue for RC and UD QPs created with it
     * ({@link QpInitAttributes#srq}); {@link io.rnic.verbs.VerbsException} EINVAL for sizes out of range.
     */
    SharedReceiveQueue createSrq(ProtectionDomain pd, SrqAttributes attributes);

    /** ibverbs {@code destroy_srq}; {@link io.rnic.verbs.VerbsException} EBUSY while QPs created with it remain. */
    void destroySrq(SharedReceiveQueue srq);

    /**
     * {@code ibv_get_async_event} without blocking: the oldest asynchronous event ({@link AsyncEvent}) into
     * {@code event}, true if there was one. One thread at a time.
     */
    boolean pollAsyncEvent(AsyncEvent event);

    /** The port's addressing: MAC, Ethernet MTU and GID table (the source GID indexes of address vectors). */
    LocalPort port();

    /** The MAC of {@code address} on the port's link (ARP / neighbour discovery), waiting up to {@code timeout}. */
    long resolveMac(InetAddress address, int sgidIndex, Duration timeout);

    /** Destroys what is left, stops using the port, then frees the memory from {@link #allocate}. */
    void close();
}
