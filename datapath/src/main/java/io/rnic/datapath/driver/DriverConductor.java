package io.rnic.datapath.driver;

import io.rnic.cnc.CncFile;
import io.rnic.cnc.ControlProtocol;
import io.rnic.cnc.QpAttributesCodec;
import io.rnic.cnc.QpQueuesLayout;
import io.rnic.cnc.command.AllocMwFlyweight;
import io.rnic.cnc.command.AttachFlyweight;
import io.rnic.cnc.command.CmAcceptFlyweight;
import io.rnic.cnc.command.CmConnectFlyweight;
import io.rnic.cnc.command.CmPortFlyweight;
import io.rnic.cnc.command.CmRejectFlyweight;
import io.rnic.cnc.command.CorrelatedMessageFlyweight;
import io.rnic.cnc.command.CreateCqFlyweight;
import io.rnic.cnc.command.CreateQpFlyweight;
import io.rnic.cnc.command.CreateSrqFlyweight;
import io.rnic.cnc.command.HandleFlyweight;
import io.rnic.cnc.command.ModifyQpFlyweight;
import io.rnic.cnc.command.ModifySrqFlyweight;
import io.rnic.cnc.command.OpenAsyncEventsFlyweight;
import io.rnic.cnc.command.RegisterMrFlyweight;
import io.rnic.cnc.command.ResolveMacFlyweight;
import io.rnic.datapath.endpoint.Endpoint;
import io.rnic.device.EngineQueuePair;
import io.rnic.device.ResourceCosts;
import io.rnic.device.ResourceKind;
import io.rnic.device.RnicDevice;
import io.rnic.shm.FdSocketServer;
import io.rnic.shm.SharedMemory;
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
import io.rnic.verbs.ScatterGatherList;
import io.rnic.verbs.SrqAttributes;
import io.rnic.verbs.VerbsException;
import io.rnic.verbs.WorkRequestRing;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.broadcast.BroadcastTransmitter;
import org.agrona.concurrent.errors.DistinctErrorLog;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.status.CountersManager;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * The driver's control thread, as Aeron's driver conductor: its duty cycle reads clients' memfds
 * ({@link FdHandshake}) and commands ({@link DriverCommandAdapter}), sends late answers ({@link LateAnswers}), routes
 * the device's events, keeps the driver's heartbeat and clients' liveness ({@link ClientLiveness}). It holds one
 * handler per command ({@code onCreateQp(session, command)}), which makes on the device what a client asks for, keeps
 * it in the client's session ({@link ClientSessions}) and answers through the {@link ClientProxy}; a handler refuses
 * by throwing, and the adapter answers the refusal. It is the only thread that touches the sessions.
 * <p>
 * The device's asynchronous events (an SRQ's limit, a QP's last WQE) are routed here to the client that owns the
 * object, into that client's {@link EventRing} and named by its own handles; what finds no room is counted. Its CM
 * ids' changes go into the same ring ({@link DriverCm#pushEvents}).
 */
final class DriverConductor implements Agent
{
    private static final int EVENTS_PER_CYCLE = 64;

    private final CncFile cnc;
    private final Endpoint endpoint;
    private final RnicDevice device;
    private final DriverCounters counters;
    private final CountersManager countersManager;
    private final long clientTimeoutNs;
    private Consumer<String> events = line ->
    {
    };
    private final DriverCm cm;
    private final QuotaGuard quotaGuard;
    private final ClientProxy clientProxy;
    private final FdHandshake fds;
    private final ClientSessions sessions;
    private final ClientLiveness liveness;
    private final LateAnswers lateAnswers;
    private final DriverCommandAdapter commandAdapter;
    private final AsyncEvent event = new AsyncEvent();
    private final SrqAttributes srqAttributes = new SrqAttributes();
    private long nowNs;
    private long lastHeartbeatMs;
    private long deviceEventsDropped;

    DriverConductor(
        final CncFile cnc, final Endpoint endpoint, final ClientQueues[] queues, final DistinctErrorLog errorLog,
        final DriverCounters counters, final CountersManager countersManager, final FdSocketServer fdServer,
        final long clientTimeoutNs, final ClientQuotas quotas)
    {
        this.quotaGuard = new QuotaGuard(quotas, counters);
        this.countersManager = countersManager;
        this.cnc = cnc;
        this.endpoint = endpoint;
        this.device = endpoint.device();
        this.counters = counters;
        this.clientTimeoutNs = clientTimeoutNs;
        this.clientProxy = new ClientProxy(new BroadcastTransmitter(cnc.toClientsBuffer()));
        this.fds = new FdHandshake(fdServer, counters, this::isAttached, this::onDeparted);
        this.cm = new DriverCm(endpoint, this::nextHandle, counters.cmListeners);
        this.sessions = new ClientSessions(device, endpoint.agents(), queues, cm, fds, counters);
        this.liveness = new ClientLiveness(sessions, fds, errorLog, counters, clientTimeoutNs);
        this.lateAnswers = new LateAnswers(clientProxy, counters);
        this.commandAdapter = new DriverCommandAdapter(new ManyToOneRingBuffer(cnc.toDriverBuffer()), this, sessions,
            fds, clientProxy, counters, errorLog);
    }

    /** Where one line per client event goes (a departure without detaching): the driver's own output. */
    void events(final Consumer<String> events)
    {
        this.events = events;
    }

    public int doWork()
    {
        nowNs = System.nanoTime();
        final long nowMs = System.currentTimeMillis();
        if (nowMs != lastHeartbeatMs)
        {
            lastHeartbeatMs = nowMs;
            cnc.heartbeat(nowMs);
        }
        int work = fds.poll(nowNs); // first: a command's memfd was sent before the command
        work += commandAdapter.receive(nowNs);
        work += lateAnswers.send();
        work += routeAsyncEvents();
        work += cm.routeRequests();
        work += cm.pushEvents();
        if (liveness.isDue(nowNs))
        {
            work += liveness.timeOut(nowNs);
            sessions.refreshQpCounters();
            countDeviceEventsDropped();
        }
        return work;
    }

    public void onClose()
    {
        sessions.reclaimAll();
        fds.closeAll();
        cm.close();
    }

    public String roleName()
    {
        return "rnic-driver-conductor";
    }

    int clientCount()
    {
        return sessions.count();
    }

    private boolean isAttached(final long clientId)
    {
        return sessions.isAttached(clientId);
    }

    private int nextHandle()
    {
        return sessions.nextHandle();
    }

    /** A client whose {@code fds.sock} connection closed. */
    private void onDeparted(final ClientSession session)
    {
        if (sessions.holds(session))
        {
            // a client that exits or is killed: an event of the driver's life, not an error of the driver's
            counters.clientsGone.increment();
            events.accept(session + " departed without detaching (its fds.sock connection closed: it exited or " +
                "was killed); its QPs, CQs and memory regions are destroyed");
            sessions.reclaim(session);
        }
    }

    /** A client's file for {@code what} must be exactly the length its layout gives: nothing is mapped otherwise. */
    private static void checkFileLength(final long fileLength, final long expected, final String what)
    {
        if (fileLength != expected)
        {
            throw new IllegalArgumentException(what + " needs a file of " + expected + " bytes, not " + fileLength);
        }
    }

    void onAttach(final AttachFlyweight command, final long nowNs)
    {
        final long clientId = command.clientId();
        if (sessions.isAttached(clientId))
        {
            throw new IllegalArgumentException("client " + Long.toHexString(clientId) + " is attached already");
        }
        final long nonce = command.nonce();
        final ClientFds clientFds = nonce != 0 ? fds.link(clientId, nonce) : null;
        sessions.attach(clientId, command.pid(), clientFds, nowNs);
        clientProxy.attached(clientId, command.correlationId(), clientTimeoutNs);
    }

    void onDetach(final ClientSession session, final CorrelatedMessageFlyweight command)
    {
        sessions.reclaim(session);
        clientProxy.operationSucceeded(session.clientId, command.correlationId());
    }

    void onAllocPd(final ClientSession session, final CorrelatedMessageFlyweight command)
    {
        final int handle = sessions.nextHandle();
        session.pds.put(handle, device.allocPd());
        sessions.counted(1);
        clientProxy.handle(session.clientId, command.correlationId(), handle);
    }

    void onDeallocPd(final ClientSession session, final HandleFlyweight command)
    {
        final int handle = command.handle();
        final ProtectionDomain pd = ClientSessions.pd(session, handle);
        for (final ClientMr mr : session.mrs.values())
        {
            if (mr.region().pd() == pd)
            {
                throw new VerbsException("PD " + handle + " still has memory region " + mr.handle());
            }
        }
        for (final ClientQp qp : session.qps.values())
        {
            if (qp.pd == pd)
            {
                throw new VerbsException("PD " + handle + " still has QP 0x" + Integer.toHexString(qp.qp.qpn()));
            }
        }
        for (final ClientSrq srq : session.srqs.values())
        {
            if (srq.srq().pd() == pd)
            {
                throw new VerbsException("PD " + handle + " still has SRQ " + srq.handle());
            }
        }
        for (final MemoryWindow window : session.mws.values())
        {
            if (window.pd() == pd)
            {
                throw new VerbsException("PD " + handle + " still has memory window 0x" +
                    Integer.toHexString(window.rKey()));
            }
        }
        session.pds.remove(handle);
        sessions.counted(-1);
        clientProxy.operationSucceeded(session.clientId, command.correlationId());
    }

    void onRegisterMr(final ClientSession session, final RegisterMrFlyweight command)
    {
        final long token = fds.noteToken(session, command.memfdToken());
        final long fileLength = command.fileLengthBytes();
        final long fileOffset = command.fileOffsetBytes();
        final long length = command.lengthBytes();
        quotaGuard.checkMr(session, length);
        final ProtectionDomain pd = ClientSessions.pd(session, command.pdHandle());
        MemoryRegion.checkLength(length); // before the memory is mapped
        if (fileLength <= 0 || fileLength > ControlProtocol.MAX_MEMORY_FILE_BYTES || fileOffset < 0 || length <= 0 ||
            fileOffset > fileLength - length)
        {
            throw new IllegalArgumentException("region of " + length + " bytes at offset " + fileOffset +
                " does not lie in a file of " + fileLength + " bytes");
        }
        final SharedMemory memory = fds.map(session, token, fileLength);
        final MemoryRegion region;
        try
        {
            region = device.registerMemoryRegion(pd, memory.segment().asSlice(fileOffset, length), command.iova(),
                command.accessFlags());
        }
        catch (final RuntimeException ex)
        {
            memory.close();
            throw ex;
        }
        final int handle = sessions.nextHandle();
        session.mrs.put(handle, new ClientMr(handle, region, memory));
        session.registeredBytes += region.length();
        sessions.counted(1);
        clientProxy.mrRegistered(session.clientId, command.correlationId(), handle, region.lKey(), region.rKey());
    }

    void onDeregMr(final ClientSession session, final HandleFlyweight command)
    {
        sessions.deregister(session, ClientSessions.mr(session, command.handle()));
        clientProxy.operationSucceeded(session.clientId, command.correlationId());
    }

    void onAllocMw(final ClientSession session, final AllocMwFlyweight command)
    {
        final ProtectionDomain pd = ClientSessions.pd(session, command.pdHandle());
        final MemoryWindow window = device.allocMw(pd, command.mwType());
        final int handle = sessions.nextHandle();
        session.mws.put(handle, window);
        sessions.counted(1);
        clientProxy.mwAllocated(session.clientId, command.correlationId(), handle, window.rKey());
    }

    void onDeallocMw(final ClientSession session, final HandleFlyweight command)
    {
        final int handle = command.handle();
        device.deallocMw(ClientSessions.mw(session, handle));
        session.mws.remove(handle);
        sessions.counted(-1);
        clientProxy.operationSucceeded(session.clientId, command.correlationId());
    }

    void onCreateCq(final ClientSession session, final CreateCqFlyweight command)
    {
        final long token = fds.noteToken(session, command.memfdToken());
        final long fileLength = command.fileLengthBytes();
        final int entries = command.entries();
        if (entries < 1 || entries > ControlProtocol.MAX_CQ_ENTRIES)
        {
            throw new VerbsException("CQ size " + entries + " out of range 1.." + ControlProtocol.MAX_CQ_ENTRIES);
        }
        final long expected = QpQueuesLayout.completionQueueFileLength(entries);
        checkFileLength(fileLength, expected, "a CQ of " + entries + " entries");
        quotaGuard.checkCq(session);
        final SharedMemory memory = fds.map(session, token, fileLength);
        final int handle = sessions.nextHandle();
        final CompletionQueue cq;
        try
        {
            cq = CompletionQueue.format(handle, entries,
                new UnsafeBuffer(memory.segment().address(), CompletionQueue.requiredBytes(entries)));
            device.resources().reserve(ResourceKind.CQ, ResourceCosts.clientCompletionQueue()); // max_cq
        }
        catch (final RuntimeException ex)
        {
            memory.close();
            throw ex;
        }
        session.cqs.put(handle, new ClientCq(handle, cq, memory));
        sessions.counted(1);
        clientProxy.cqCreated(session.clientId, command.correlationId(), handle, cq.capacity());
    }

    void onDestroyCq(final ClientSession session, final HandleFlyweight command)
    {
        final int handle = command.handle();
        final ClientCq cq = ClientSessions.cq(session, handle);
        for (final ClientQp qp : session.qps.values())
        {
            if (qp.sendCq == cq || qp.recvCq == cq)
            {
                throw new VerbsException("CQ " + handle + " is in use by QP 0x" +
                    Integer.toHexString(qp.qp.qpn()) + ": destroy the QP first");
            }
        }
        sessions.destroyCq(session, cq);
        clientProxy.operationSucceeded(session.clientId, command.correlationId());
    }

    void onCreateQp(final ClientSession session, final CreateQpFlyweight command)
    {
        final int srqHandle = command.srqHandle();
        final int typeValue = command.qpType();
        final boolean signalAll = command.signalAll() != 0;
        final long token = fds.noteToken(session, command.memfdToken());
        final long fileLength = command.fileLengthBytes();
        final ProtectionDomain pd = ClientSessions.pd(session, command.pdHandle());
        final ClientSrq srq = srqHandle == 0 ? null : ClientSessions.srq(session, srqHandle);
        final ClientCq sendCq = ClientSessions.cq(session, command.sendCqHandle());
        final ClientCq recvCq = ClientSessions.cq(session, command.recvCqHandle());
        final int maxSendWr = bounded(command.maxSendWr(), ControlProtocol.MAX_QP_WR, "max send WR");
        final int maxRecvWr = bounded(command.maxRecvWr(), ControlProtocol.MAX_QP_WR, "max receive WR");
        final int maxSendSge = bounded(command.maxSendSge(), ScatterGatherList.MAX_SGE, "max send SGE");
        final int maxRecvSge = bounded(command.maxRecvSge(), ScatterGatherList.MAX_SGE, "max receive SGE");
        final QpType type = QpType.ofValue(typeValue);
        if (type == null)
        {
            throw new IllegalArgumentException("QP type " + typeValue + " is not an ibv_qp_type of RoCEv2 (RC " +
                QpType.RC.value() + ", UC " + QpType.UC.value() + ", UD " + QpType.UD.value() + ")");
        }
        final long expected = QpQueuesLayout.fileLength(maxSendWr, maxSendSge, maxRecvWr, maxRecvSge);
        checkFileLength(fileLength, expected, "a QP of these queue sizes");
        final long queueBytes =
            ResourceCosts.queuePair(maxSendWr, maxSendSge, srq == null ? maxRecvWr : 0, maxRecvSge);
        quotaGuard.checkQp(session, queueBytes);
        final SharedMemory memory = fds.map(session, token, fileLength);
        final QpInitAttributes init = new QpInitAttributes();
        init.type = type;
        init.pd = pd;
        init.sendCq = sendCq.cq();
        init.recvCq = recvCq.cq();
        init.maxSendWr = maxSendWr;
        init.maxRecvWr = maxRecvWr;
        init.maxSendSge = maxSendSge;
        init.maxRecvSge = maxRecvSge;
        init.signalAll = signalAll;
        init.srq = srq == null ? null : srq.srq(); // the device checks its type and PD and puts the QP on its engine
        final EngineQueuePair qp;
        final WorkRequestRing sendRing;
        final WorkRequestRing recvRing;
        try
        {
            // the engine's QP takes its work from the rings in the client's file, in place
            sendRing = ClientQp.formatSendRing(memory, init, counters.malformedWorkRequests);
            recvRing = ClientQp.formatRecvRing(memory, init, counters.malformedWorkRequests);
            qp = device.createQp(init, sendRing, recvRing);
        }
        catch (final RuntimeException ex)
        {
            memory.close();
            throw ex;
        }
        final int handle = sessions.nextHandle();
        final ClientQp clientQp = new ClientQp(handle, qp, pd, sendCq, recvCq, memory, sendRing, recvRing);
        final ClientQueues shardQueues = sessions.queuesOf(qp);
        qp.engine().execute(() ->
        {
            shardQueues.add(clientQp);
            return null;
        });
        clientQp.counters = QpCounters.allocate(countersManager, qp, session.clientId);
        if (clientQp.counters != null)
        {
            clientQp.counters.refresh();
        }
        clientQp.queueBytes = queueBytes;
        session.queueBytes += queueBytes;
        sessions.addQp(session, clientQp);
        clientProxy.qpCreated(session.clientId, command.correlationId(), handle, qp.qpn());
    }

    void onModifyQp(final ClientSession session, final ModifyQpFlyweight command)
    {
        final ClientQp qp = ClientSessions.qp(session, command.qpHandle());
        final QpAttributes attributes = new QpAttributes();
        QpAttributesCodec.decode(command, attributes);
        qp.qp.modify(attributes, command.attrMask());
        final int state = qp.qp.state().ordinal();
        qp.header.putIntOrdered(QpQueuesLayout.STATE_OFFSET, state); // before the answer: the client posts next
        clientProxy.qpModified(session.clientId, command.correlationId(), state);
    }

    void onDestroyQp(final ClientSession session, final HandleFlyweight command)
    {
        sessions.destroyQp(session, ClientSessions.qp(session, command.handle()));
        clientProxy.operationSucceeded(session.clientId, command.correlationId());
    }

    void onCreateSrq(final ClientSession session, final CreateSrqFlyweight command)
    {
        final long token = fds.noteToken(session, command.memfdToken());
        final long fileLength = command.fileLengthBytes();
        final ProtectionDomain pd = ClientSessions.pd(session, command.pdHandle());
        final int maxWr = command.maxWr();
        final int maxSge = command.maxSge();
        final int limit = command.srqLimit();
        // rxe's checks, with the errno an embedded create gives
        EngineSharedReceiveQueue.check(pd, new SrqAttributes().maxWr(maxWr).maxSge(maxSge).srqLimit(limit));
        final long expected = QpQueuesLayout.srqFileLength(maxWr, maxSge);
        checkFileLength(fileLength, expected, "an SRQ of " + maxWr + " requests of " + maxSge + " SGEs");
        quotaGuard.checkSrq(session);
        final SharedMemory memory = fds.map(session, token, fileLength);
        final EngineSharedReceiveQueue srq;
        try
        {
            final WorkRequestRing ring = WorkRequestRing.format(WorkRequestRing.RECV, maxWr, maxSge, false,
                new UnsafeBuffer(memory.segment().address(), QpQueuesLayout.srqRingLength(maxWr, maxSge)),
                counters.malformedWorkRequests);
            srq = device.createSrq(pd, ring, limit);
        }
        catch (final RuntimeException ex)
        {
            memory.close();
            throw ex;
        }
        final int handle = sessions.nextHandle();
        sessions.addSrq(session, new ClientSrq(handle, srq, memory, session));
        clientProxy.srqCreated(session.clientId, command.correlationId(), handle, srq.query(srqAttributes).maxWr);
    }

    void onModifySrq(final ClientSession session, final ModifySrqFlyweight command)
    {
        final ClientSrq srq = ClientSessions.srq(session, command.srqHandle());
        srqAttributes.srqLimit = command.srqLimit();
        srq.srq().modify(srqAttributes, command.attrMask());
        clientProxy.operationSucceeded(session.clientId, command.correlationId());
    }

    void onQuerySrq(final ClientSession session, final HandleFlyweight command)
    {
        final SrqAttributes attributes = ClientSessions.srq(session, command.handle()).srq().query(srqAttributes);
        clientProxy.srqAttributes(session.clientId, command.correlationId(), attributes.maxWr, attributes.maxSge,
            attributes.srqLimit);
    }

    void onDestroySrq(final ClientSession session, final HandleFlyweight command)
    {
        sessions.destroySrq(session, ClientSessions.srq(session, command.handle()));
        clientProxy.operationSucceeded(session.clientId, command.correlationId());
    }

    void onOpenAsyncEvents(final ClientSession session, final OpenAsyncEventsFlyweight command)
    {
        final long token = fds.noteToken(session, command.memfdToken());
        final long fileLength = command.fileLengthBytes();
        if (session.events != null)
        {
            throw new IllegalArgumentException("this client's event ring is open already");
        }
        checkFileLength(fileLength, EventRing.fileLength(), "an event ring");
        final SharedMemory memory = fds.map(session, token, fileLength);
        session.eventsMemory = memory;
        session.events = EventRing.format(new UnsafeBuffer(memory.segment().address(), (int)fileLength));
        clientProxy.asyncEventsOpened(session.clientId, command.correlationId(), session.events.capacity());
    }

    /**
     * Hands the device's events to the clients that own their QPs and SRQs. An event of a QP or SRQ destroyed since
     * it was raised concerns nobody any more and goes; one that finds its client's ring full (or no ring) is counted.
     */
    private int routeAsyncEvents()
    {
        int routed = 0;
        while (routed < EVENTS_PER_CYCLE && device.pollAsyncEvent(event))
        {
            routed++;
            final ClientSession owner;
            final int srqHandle;
            if (event.srq != null)
            {
                final ClientSrq srq = sessions.srqOwner(event.srq.handle());
                owner = srq == null ? null : srq.owner();
                srqHandle = srq == null ? 0 : srq.handle();
            }
            else
            {
                owner = sessions.qpOwner(event.qpNum);
                srqHandle = 0;
            }
            if (owner != null &&
                (owner.events == null || !owner.events.offerAsyncEvent(event.eventType, event.qpNum, srqHandle)))
            {
                counters.asyncEventsDropped.increment();
            }
        }
        return routed;
    }

    void onResolveMac(final ClientSession session, final ResolveMacFlyweight command)
    {
        final int sgidIndex = command.sgidIndex();
        final long timeoutMs = Math.min(ControlProtocol.MAX_RESOLVE_MS, Math.max(1, command.timeoutMs()));
        final boolean ipv4 = command.ipv4() != 0;
        final long high = command.addressHigh();
        final long low = command.addressLow();
        final long clientId = session.clientId;
        final long correlationId = command.correlationId();
        final InetAddress address;
        try
        {
            address = ipv4 ? InetAddress.getByAddress(ByteBuffer.allocate(4).putInt((int)low).array()) :
                InetAddress.getByAddress(ByteBuffer.allocate(16).putLong(high).putLong(low).array());
        }
        catch (final UnknownHostException ex)
        {
            throw new IllegalArgumentException("not an address: " + ex.getMessage());
        }
        // waits for the wire (ARP): off this thread, so that other clients' commands go on meanwhile
        Thread.ofVirtual().name("rnic-resolve-" + address.getHostAddress()).start(() ->
        {
            try
            {
                lateAnswers.macResolved(clientId, correlationId,
                    endpoint.resolveMac(address, sgidIndex, Duration.ofMillis(timeoutMs)));
            }
            catch (final IllegalStateException ex)
            {
                // nobody answered: the peer's error, as a socket's connect after ARP fails, not the client's mistake
                lateAnswers.macRefused(clientId, correlationId, Errno.EHOSTUNREACH, ex.getMessage());
            }
            catch (final RuntimeException ex)
            {
                lateAnswers.macRefused(clientId, correlationId, 0, ex.getMessage());
            }
        });
    }

    void onCmListen(final ClientSession session, final CmPortFlyweight command)
    {
        cm.listen(session, command.port());
        clientProxy.operationSucceeded(session.clientId, command.correlationId());
    }

    void onCmStopListen(final ClientSession session, final CmPortFlyweight command)
    {
        cm.stopListening(session, command.port());
        clientProxy.operationSucceeded(session.clientId, command.correlationId());
    }

    void onCmConnect(final ClientSession session, final CmConnectFlyweight command)
    {
        final ClientQp qp = ClientSessions.qp(session, command.qpHandle());
        final int handle = cm.connect(session, qp, command.sgidIndex(), command.peerGidHigh(), command.peerGidLow(),
            command.port(), command.responderResources(), command.initiatorDepth(), command.typeOfService(),
            command.privateData());
        clientProxy.handle(session.clientId, command.correlationId(), handle);
    }

    void onCmAccept(final ClientSession session, final CmAcceptFlyweight command)
    {
        final DriverCm.TrackedId id = ClientSessions.cmId(session, command.cmIdHandle());
        final ClientQp qp = ClientSessions.qp(session, command.qpHandle());
        cm.accept(id, qp, command.responderResources(), command.initiatorDepth(), command.privateData());
        clientProxy.operationSucceeded(session.clientId, command.correlationId());
    }

    void onCmReject(final ClientSession session, final CmRejectFlyweight command)
    {
        cm.reject(ClientSessions.cmId(session, command.cmIdHandle()), command.privateData());
        clientProxy.operationSucceeded(session.clientId, command.correlationId());
    }

    void onCmDisconnect(final ClientSession session, final HandleFlyweight command)
    {
        cm.disconnect(ClientSessions.cmId(session, command.handle()));
        clientProxy.operationSucceeded(session.clientId, command.correlationId());
    }

    void onCmRelease(final ClientSession session, final HandleFlyweight command)
    {
        ClientSessions.cmId(session, command.handle());
        cm.release(session, command.handle());
        clientProxy.operationSucceeded(session.clientId, command.correlationId());
    }

    /** Events the device's own queue dropped before this thread routed them (it fell behind): counted too. */
    private void countDeviceEventsDropped()
    {
        final long dropped = device.asyncEvents().droppedEvents();
        if (dropped != deviceEventsDropped)
        {
            counters.asyncEventsDropped.getAndAdd(dropped - deviceEventsDropped);
            deviceEventsDropped = dropped;
        }
    }

    private static int bounded(final int value, final int max, final String name)
    {
        if (value < 1 || value > max)
        {
            throw new VerbsException(name + " " + value + " out of range 1.." + max);
        }
        return value;
    }
}
