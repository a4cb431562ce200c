package io.rnic.client;

import io.rnic.cnc.ControlProtocol;
import io.rnic.cnc.DeviceInfo;
import io.rnic.cnc.QpQueuesLayout;
import io.rnic.cnc.command.MrRegisteredFlyweight;
import io.rnic.cnc.command.MwAllocatedFlyweight;
import io.rnic.cnc.command.QpCreatedFlyweight;
import io.rnic.cnc.command.SrqAttributesFlyweight;
import io.rnic.device.JvmFlags;
import io.rnic.device.QueuePair;
import io.rnic.device.RnicContext;
import io.rnic.shm.SharedMemory;
import io.rnic.transport.LocalPort;
import io.rnic.verbs.AsyncEvent;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.EngineSharedReceiveQueue;
import io.rnic.verbs.Errno;
import io.rnic.verbs.EventRing;
import io.rnic.verbs.MemoryRegion;
import io.rnic.verbs.MemoryWindow;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.QpAttributes;
import io.rnic.verbs.QpInitAttributes;
import io.rnic.verbs.QpType;
import io.rnic.verbs.SharedReceiveQueue;
import io.rnic.verbs.SrqAttributes;
import io.rnic.verbs.VerbsException;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.concurrent.UnsafeBuffer;

import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * The verbs of a port served by an {@code rnic driver} in another process: this process attaches to the driver's
 * directory and holds nothing of the port itself (no engine, no DPDK, no AF_PACKET). Memory from {@link #allocate}
 * is a sealed memfd the driver maps, so the driver's engine writes received data into it directly; QPs' send and
 * receive queues and CQs are rings in shared memory, posted and polled without a system call. Control calls are
 * commands to the driver and wait for its answer.
 * <p>
 * Memfds reach the driver over its Unix socket ({@code SCM_RIGHTS}): any process that may open the directory's
 * {@code cnc.dat} and {@code fds.sock} (the driver's user or group) may attach, from any PID namespace.
 * <p>
 * The driver destroys everything of a client that stops sending keepalives or whose socket closes (a crash,
 * {@code kill -9}); a client whose driver dies gets a {@link io.rnic.cnc.CncException} saying so on its next call.
 * <p>
 * A shared receive queue's ring is shared memory too, posted into as a QP's receive queue; the driver raises this
 * client's asynchronous events (an SRQ's limit, a QP's last WQE) into a ring of its own that {@link #pollAsyncEvent}
 * reads, named by this context's objects.
 */
public final class DriverContext implements RnicContext
{
    private final Path directory;
    private final DriverConnection connection;
    private final DriverProxy driver;
    private final LocalPort port;
    private final List<SharedMemory> allocations = new ArrayList<>();
    private final Map<MemoryRegion, Integer> regions = new IdentityHashMap<>();
    private final Map<MemoryWindow, Integer> windows = new IdentityHashMap<>();
    private final Map<CompletionQueue, SharedMemory> cqs = new IdentityHashMap<>();
    private final List<ClientQueuePair> qps = new ArrayList<>();
    /** By handle: an event names its SRQ by handle. */
    private final Int2ObjectHashMap<ClientSharedReceiveQueue> srqs = new Int2ObjectHashMap<>();
    private final ClientEvents events;
    private boolean closed;

    private DriverContext(final Path directory, final DriverConnection connection, final DriverProxy driver)
    {
        this.directory = directory;
        this.connection = connection;
        this.driver = driver;
        this.port = portOf(DeviceInfo.read(connection.cnc().deviceInfoBuffer()));
        final long fileLength = EventRing.fileLength();
        final SharedMemory eventsMemory = SharedMemory.create("rnic-events", fileLength, false);
        try
        {
            final long token = connection.passFd(eventsMemory.fd(), ControlProtocol.OPEN_ASYNC_EVENTS);
            driver.openAsyncEvents(token, fileLength);
            this.events = new ClientEvents(eventsMemory);
            connection.onGone(events::wakeConsumers);
        }
        catch (final RuntimeException ex)
        {
            eventsMemory.close();
            throw ex;
        }
    }

    /**
     * Attaches to the driver serving {@code directory} (e.g. {@code /dev/shm/rnic-eth0}).
     *
     * @throws io.rnic.cnc.CncException with one line naming the fix when no driver serves it.
     */
    public static DriverContext open(final Path directory)
    {
        JvmFlags.check();
        final DriverConnection connection = new DriverConnection(directory);
        try
        {
            connection.start();
            final DriverProxy driver = new DriverProxy(connection);
            driver.attach(ProcessHandle.current().pid(), connection.nonce());
            return new DriverContext(directory, connection, driver);
        }
        catch (final RuntimeException ex)
        {
            connection.close();
            throw ex;
        }
    }

    private static LocalPort portOf(final List<Map.Entry<String, String>> info)
    {
        final String mac = DeviceInfo.value(info, DeviceInfo.PORT_MAC);
        final String mtu = DeviceInfo.value(info, DeviceInfo.PORT_ETHERNET_MTU);
        if (mac == null || mtu == null)
        {
            throw new VerbsException("the driver did not describe its port (" + DeviceInfo.PORT_MAC + ", " +
                DeviceInfo.PORT_ETHERNET_MTU + "): a driver of another version?");
        }
        final LocalPort port = new LocalPort(Long.parseUnsignedLong(mac, 16)).ethernetMtu(Integer.parseInt(mtu));
        for (int i = 0; i < LocalPort.MAX_GIDS; i++)
        {
            final String gid = DeviceInfo.value(info, DeviceInfo.PORT_GID_PREFIX + i);
            if (gid == null || gid.length() != 32)
            {
                break;
            }
            port.addGid(Long.parseUnsignedLong(gid.substring(0, 16), 16), Long.parseUnsignedLong(gid.substring(16), 16));
        }
        return port;
    }

    public Path directory()
    {
        return directory;
    }

    /** This client's id in the driver (its counters and error log name it). */
    public long clientId()
    {
        return connection.clientId();
    }

    public synchronized MemorySegment allocate(final long lengthBytes)
    {
        if (lengthBytes <= 0)
        {
            throw new VerbsException("cannot allocate " + lengthBytes + " bytes");
        }
        final long pageBytes = SharedMemory.pageSize(false);
        final long rounded = (lengthBytes + pageBytes - 1) / pageBytes * pageBytes;
        final SharedMemory memory = SharedMemory.create("rnic-memory", rounded, false);
        allocations.add(memory);
        return memory.segment().asSlice(0, lengthBytes);
    }

    public synchronized void free(final MemorySegment segment)
    {
        final SharedMemory memory = allocationOf(segment);
        for (final MemoryRegion region : regions.keySet())
        {
            if (allocationOf(region.segment()) == memory)
            {
                throw new VerbsException("memory still registered as " + region + ": deregister it first");
            }
        }
        allocations.remove(memory);
        memory.close();
    }

    private SharedMemory allocationOf(final MemorySegment segment)
    {
        for (final SharedMemory memory : allocations)
        {
            final long start = memory.segment().address();
            if (segment.address() >= start && segment.address() + segment.byteSize() <= start + memory.lengthBytes())
            {
                return memory;
            }
        }
        throw new VerbsException("memory at 0x" + Long.toHexString(segment.address()) + " does not come from this " +
            "context's allocate(): a driver can only map memory allocated through it");
    }

    public ProtectionDomain allocPd()
    {
        return new ProtectionDomain(driver.allocPd());
    }

    public synchronized MemoryRegion registerMemoryRegion(
        final ProtectionDomain pd, final MemorySegment segment, final int access)
    {
        if (pd == null)
        {
            throw new VerbsException("no protection domain given");
        }
        MemoryRegion.checkLength(segment.byteSize()); // as the embedded call, before the memory goes to the driver
        final SharedMemory memory = allocationOf(segment);
        final long token = connection.passFd(memory.fd(), ControlProtocol.REG_MR);
        final MrRegisteredFlyweight answer = driver.registerMr(pd.handle(), token, memory.lengthBytes(),
            segment.address() - memory.segment().address(), segment.byteSize(), segment.address(), access);
        final MemoryRegion region =
            MemoryRegion.registeredElsewhere(pd, segment, access, answer.lKey(), answer.rKey());
        regions.put(region, answer.mrHandle());
        return region;
    }

    public synchronized void deregisterMemoryRegion(final MemoryRegion region)
    {
        final Integer handle = regions.get(region);
        if (handle == null)
        {
            throw new VerbsException(region + " is not registered through this context");
        }
        driver.deregMr(handle);
        regions.remove(region);
    }

    /**
     * {@code ibv_alloc_mw} through the driver. The window's R_Key is the driver's; a type 1 window's moves here when
     * the bind verb posts ({@link QueuePair#bindMw}), a type 2 window's is the one the application gives its bind.
     */
    public synchronized MemoryWindow allocMw(final ProtectionDomain pd, final int type)
    {
        if (pd == null)
        {
            throw new VerbsException("no protection domain given");
        }
        final MwAllocatedFlyweight answer = driver.allocMw(pd.handle(), type);
        final MemoryWindow window = MemoryWindow.allocatedElsewhere(pd, type, answer.rKey());
        windows.put(window, answer.mwHandle());
        return window;
    }

    public synchronized void deallocMw(final MemoryWindow window)
    {
        final Integer handle = windows.get(window);
        if (handle == null)
        {
            throw new VerbsException("memory window is not allocated through this context: " + window);
        }
        driver.deallocMw(handle);
        windows.remove(window);
    }

    public synchronized CompletionQueue createCq(final int entries)
    {
        if (entries < 1 || entries > ControlProtocol.MAX_CQ_ENTRIES)
        {
            throw new VerbsException("CQ size " + entries + " out of range 1.." + ControlProtocol.MAX_CQ_ENTRIES);
        }
        final long fileLength = QpQueuesLayout.completionQueueFileLength(entries);
        final SharedMemory memory = SharedMemory.create("rnic-cq", fileLength, false);
        try
        {
            final long token = connection.passFd(memory.fd(), ControlProtocol.CREATE_CQ);
            final int handle = driver.createCq(token, fileLength, entries).cqHandle();
            final CompletionQueue cq = CompletionQueue.attach(handle,
                new UnsafeBuffer(memory.segment().address(), CompletionQueue.requiredBytes(entries)));
            cqs.put(cq, memory);
            return cq;
        }
        catch (final RuntimeException ex)
        {
            memory.close();
            throw ex;
        }
    }

    public synchronized void destroyCq(final CompletionQueue cq)
    {
        final SharedMemory memory = cqs.get(cq);
        if (memory == null)
        {
            throw new VerbsException("CQ " + cq.handle() + " is not one of this context's");
        }
        driver.destroyCq(cq.handle());
        cqs.remove(cq);
        memory.close();
    }

    /**
     * {@code ibv_create_srq} through the driver: the SRQ's receive ring is a memfd both map, formatted by the driver;
     * the SRQ is on one of the driver's engines, where its QPs go too. The sizes are checked here as embedded (EINVAL).
     */
    public synchronized SharedReceiveQueue createSrq(final ProtectionDomain pd, final SrqAttributes attributes)
    {
        EngineSharedReceiveQueue.check(pd, attributes);
        final long fileLength = QpQueuesLayout.srqFileLength(attributes.maxWr, attributes.maxSge);
        final SharedMemory memory = SharedMemory.create("rnic-srq", fileLength, false);
        try
        {
            final long token = connection.passFd(memory.fd(), ControlProtocol.CREATE_SRQ);
            final int handle = driver.createSrq(pd.handle(), attributes.maxWr, attributes.maxSge, attributes.srqLimit,
                token, fileLength).srqHandle();
            final ClientSharedReceiveQueue srq = new ClientSharedReceiveQueue(this, connection, handle, pd,
                memory, QpQueuesLayout.srqRingLength(attributes.maxWr, attributes.maxSge));
            srqs.put(srq.handle(), srq);
            return srq;
        }
        catch (final RuntimeException ex)
        {
            memory.close();
            throw ex;
        }
    }

    /** {@code ibv_destroy_srq}: EBUSY (from the driver) while QPs created with it remain. */
    public synchronized void destroySrq(final SharedReceiveQueue srq)
    {
        final ClientSharedReceiveQueue clientSrq = srqOf(srq, "ibv_destroy_srq");
        driver.destroySrq(clientSrq.handle());
        srqs.remove(clientSrq.handle());
        clientSrq.destroyed();
        clientSrq.memory().close();
    }

    synchronized void modifySrq(final ClientSharedReceiveQueue srq, final SrqAttributes attributes, final int mask)
    {
        driver.modifySrq(srqOf(srq, "ibv_modify_srq").handle(), mask, attributes.srqLimit);
    }

    synchronized SrqAttributes querySrq(final ClientSharedReceiveQueue srq, final SrqAttributes into)
    {
        final SrqAttributesFlyweight answer = driver.querySrq(srqOf(srq, "ibv_query_srq").handle());
        into.maxWr = answer.maxWr();
        into.maxSge = answer.maxSge();
        into.srqLimit = answer.srqLimit();
        return into;
    }

    /** One of this context's SRQs not destroyed, or EINVAL as the embedded verbs give for a destroyed one. */
    private ClientSharedReceiveQueue srqOf(final SharedReceiveQueue srq, final String verb)
    {
        if (!(srq instanceof ClientSharedReceiveQueue clientSrq) || srqs.get(clientSrq.handle()) != clientSrq)
        {
            throw new VerbsException(Errno.EINVAL, verb + ": " + srq + " is destroyed or not one of this context's");
        }
        return clientSrq;
    }

    /**
     * {@code ibv_get_async_event} without blocking: the oldest event the driver raised for this client's QPs and
     * SRQs. An event of an SRQ destroyed since names none ({@code srq} null).
     */
    public synchronized boolean pollAsyncEvent(final AsyncEvent event)
    {
        if (closed)
        {
            return false;
        }
        connection.checkAlive();
        return events.pollAsyncEvent(event, srqs::get);
    }

    /** Events the driver could not give this client because its ring was full (it did not poll). */
    public synchronized long droppedAsyncEvents()
    {
        return closed ? 0 : events.droppedEvents();
    }

    public synchronized QueuePair createQp(final QpInitAttributes init)
    {
        if (init.pd == null || init.sendCq == null || init.recvCq == null)
        {
            throw new VerbsException("a QP needs a protection domain, a send CQ and a receive CQ");
        }
        if (!cqs.containsKey(init.sendCq) || !cqs.containsKey(init.recvCq))
        {
            throw new VerbsException("the QP's CQs must come from this context");
        }
        final ClientSharedReceiveQueue srq = init.srq == null ? null : srqOf(init.srq, "ibv_create_qp");
        if (srq != null && init.type != QpType.RC && init.type != QpType.UD)
        {
            throw new VerbsException(Errno.EINVAL, "ibv_create_qp: an SRQ serves RC and UD QPs, not " + init.type);
        }
        // a QP of an SRQ has no receive queue of its own: the smallest ring stands in the file, never posted into
        final int maxRecvWr = srq != null ? 1 : init.maxRecvWr;
        final int maxRecvSge = srq != null ? 1 : init.maxRecvSge;
        if (init.maxSendWr < 1 || init.maxSendWr > ControlProtocol.MAX_QP_WR || maxRecvWr < 1 ||
            maxRecvWr > ControlProtocol.MAX_QP_WR)
        {
            throw new VerbsException("QP work queue sizes " + init.maxSendWr + "/" + init.maxRecvWr +
                " out of range 1.." + ControlProtocol.MAX_QP_WR);
        }
        final long fileLength = QpQueuesLayout.fileLength(init.maxSendWr, init.maxSendSge, maxRecvWr, maxRecvSge);
        final SharedMemory memory = SharedMemory.create("rnic-qp", fileLength, false);
        try
        {
            final long token = connection.passFd(memory.fd(), ControlProtocol.CREATE_QP);
            final QpCreatedFlyweight answer = driver.createQp(init.pd.handle(), init.sendCq.handle(),
                init.recvCq.handle(), srq == null ? 0 : srq.handle(), init.type, init.maxSendWr, maxRecvWr,
                init.maxSendSge, maxRecvSge, init.signalAll, token, fileLength);
            final ClientQueuePair qp = new ClientQueuePair(this, connection, answer.qpHandle(), answer.qpNum(),
                init.type, memory, init.maxSendWr, init.maxSendSge, maxRecvWr, maxRecvSge, srq != null);
            qps.add(qp);
            return qp;
        }
        catch (final RuntimeException ex)
        {
            memory.close();
            throw ex;
        }
    }

    void modify(final ClientQueuePair qp, final QpAttributes attributes, final int mask)
    {
        driver.modifyQp(qp.handle(), attributes, mask);
    }

    public synchronized void destroyQp(final QueuePair qp)
    {
        if (!(qp instanceof ClientQueuePair clientQp) || !qps.contains(clientQp))
        {
            throw new VerbsException("QP " + qp + " is not one of this context's");
        }
        driver.destroyQp(clientQp.handle());
        qps.remove(clientQp);
        clientQp.memory().close();
    }

    /** The driver's handle of one of this context's QPs. */
    synchronized int handleOf(final QueuePair qp)
    {
        if (!(qp instanceof ClientQueuePair clientQp) || !qps.contains(clientQp))
        {
            throw new VerbsException("QP " + qp + " is not one of this context's");
        }
        return clientQp.handle();
    }

    /** Whether the context is not closed yet. */
    public synchronized boolean isOpen()
    {
        return !closed;
    }

    /** Whether {@code qp} is one of this context's and not destroyed. */
    synchronized boolean holds(final QueuePair qp)
    {
        return qp instanceof ClientQueuePair clientQp && qps.contains(clientQp);
    }

    /**
     * The RDMA CM through the driver ({@code rdma_create_event_channel}): the driver runs the device's connection
     * manager; this client's ports, connections and connect requests are its own. Close it before the context.
     */
    public ClientConnectionManager openConnectionManager()
    {
        connection.checkAlive();
        return new ClientConnectionManager(this, connection, driver, events);
    }

    public LocalPort port()
    {
        return port;
    }

    /**
     * The driver resolves, waiting up to {@code timeout} (at most {@link ControlProtocol#MAX_RESOLVE_MS}); this waits
     * that long plus the driver's client timeout for its answer.
     *
     * @throws VerbsException {@code EHOSTUNREACH} naming the address when no neighbour answered: the peer's error,
     *                        after which the context goes on working.
     */
    public long resolveMac(final InetAddress address, final int sgidIndex, final Duration timeout)
    {
        final byte[] bytes = address.getAddress();
        final boolean ipv4 = address instanceof Inet4Address;
        final long high = ipv4 ? 0 : ByteBuffer.wrap(bytes).getLong(0);
        final long low = ipv4 ? ByteBuffer.wrap(bytes).getInt(0) & 0xFFFF_FFFFL : ByteBuffer.wrap(bytes).getLong(8);
        final int timeoutMs = (int)Math.clamp(timeout.toMillis(), 0, ControlProtocol.MAX_RESOLVE_MS);
        return driver.resolveMac(sgidIndex, timeoutMs, ipv4, high, low);
    }

    /**
     * Detaches: the driver destroys this client's QPs, SRQs, CQs and regions (when it is still there), then the shared
     * memory is unmapped. Idempotent.
     */
    public synchronized void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        try
        {
            if (connection.gone() == null)
            {
                driver.detach();
            }
        }
        catch (final RuntimeException ex)
        {
            // the driver went meanwhile: it has nothing of ours left to destroy
        }
        finally
        {
            connection.close();
            for (final ClientQueuePair qp : qps)
            {
                qp.memory().close();
            }
            for (final ClientSharedReceiveQueue srq : srqs.values())
            {
                srq.destroyed();
                srq.memory().close();
            }
            for (final SharedMemory memory : cqs.values())
            {
                memory.close();
            }
            events.wakeConsumers(); // a CM waiter looks again, and finds the context closed
            events.close();
            for (final SharedMemory memory : allocations)
            {
                memory.close();
            }
            qps.clear();
            srqs.clear();
            cqs.clear();
            allocations.clear();
            regions.clear();
            windows.clear();
        }
    }

    public String toString()
    {
        return "DriverContext{" + directory + ", client " + Long.toHexString(connection.clientId()) + '}';
    }
}
