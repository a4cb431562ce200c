package io.rnic.datapath.driver;

import io.rnic.cnc.AsyncEventRing;
import io.rnic.cnc.CmIdCodec;
import io.rnic.cnc.CncFile;
import io.rnic.cnc.ControlProtocol;
import io.rnic.cnc.QpAttributesCodec;
import io.rnic.cnc.QpQueuesLayout;
import io.rnic.datapath.agent.EngineAgent;
import io.rnic.datapath.endpoint.Endpoint;
import io.rnic.device.EngineQueuePair;
import io.rnic.device.ResourceCosts;
import io.rnic.device.ResourceKind;
import io.rnic.device.RnicDevice;
import io.rnic.shm.FdSocketServer;
import io.rnic.shm.SharedMemory;
import io.rnic.shm.ShmException;
import io.rnic.verbs.AsyncEvent;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.EngineSharedReceiveQueue;
import io.rnic.verbs.Errno;
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
import org.agrona.BitUtil;
import org.agrona.DirectBuffer;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.ManyToOneConcurrentLinkedQueue;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.broadcast.BroadcastTransmitter;
import org.agrona.concurrent.errors.DistinctErrorLog;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.status.CountersManager;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The driver's control thread, as Aeron's driver conductor: reads clients' commands from the CnC's ring, creates and
 * destroys what they ask for on the device, answers on the broadcast buffer, keeps the driver's heartbeat and times
 * out clients that stopped sending theirs. Every command is checked against the client that sends it; a bad one gets
 * an error answer and a counter, never a crash. It is the only thread that touches the sessions.
 * <p>
 * Clients' memfds arrive on {@code fds.sock} ({@link FdSocketServer}), each with a token the command that uses it
 * names: a token is looked up only among the descriptors that came over the connection linked to the commanding
 * client (by the nonce of its hello and of its {@code ATTACH}). A descriptor is closed once mapped, and those never
 * used when the client goes. A connection that closes is a client that died: it is reclaimed at once.
 * <p>
 * The device's asynchronous events (an SRQ's limit, a QP's last WQE) are routed here to the client that owns the
 * object, into that client's {@link AsyncEventRing} and named by its own handles; what finds no room is counted.
 */
final class DriverConductor implements Agent, FdSocketServer.Handler
{
    /** How often clients' liveness is checked. */
    static final long LIVENESS_CHECK_NS = 100_000_000L;
    private static final int COMMANDS_PER_CYCLE = 32;
    private static final int EVENTS_PER_CYCLE = 64;
    private static final long MAX_MEMORY_FILE_BYTES = 1L << 40;
    /** Memfds a connection may have sent and not yet named in a command: more is a client leaking the driver's fds. */
    static final int MAX_PENDING_FDS = 64;

    private final CncFile cnc;
    private final Endpoint endpoint;
    private final RnicDevice device;
    private final ClientQueues[] queues;
    private final EngineAgent[] agents;
    private final ManyToOneRingBuffer toDriver;
    private final BroadcastTransmitter toClients;
    private final DistinctErrorLog errorLog;
    private final DriverCounters counters;
    private final CountersManager countersManager;
    private final FdSocketServer fdServer;
    private final long clientTimeoutNs;
    private Consumer<String> events = line ->
    {
    };
    private final DriverCm cm;
    private final QuotaGuard quotaGuard;
    private final UnsafeBuffer answer = new UnsafeBuffer(ByteBuffer.allocateDirect(ControlProtocol.MAX_MESSAGE_LENGTH +
        4096));
    private final Long2ObjectHashMap<ClientSession> sessions = new Long2ObjectHashMap<>();
    /** Who owns each client QP (by QPN) and SRQ (by the device's handle): where their events go. */
    private final Int2ObjectHashMap<ClientSession> qpOwners = new Int2ObjectHashMap<>();
    private final Int2ObjectHashMap<ClientSrq> srqOwners = new Int2ObjectHashMap<>();
    private final AsyncEvent event = new AsyncEvent();
    private final SrqAttributes srqAttributes = new SrqAttributes();
    private final List<ClientFds> fdConnections = new ArrayList<>();
    /** Answers computed off this thread (address resolution waits for the wire), sent from it. */
    private final ManyToOneConcurrentLinkedQueue<long[]> lateResults = new ManyToOneConcurrentLinkedQueue<>();
    private final ManyToOneConcurrentLinkedQueue<Object[]> lateErrors = new ManyToOneConcurrentLinkedQueue<>();
    private int nextHandle = 1;
    private long nowNs;
    private long lastHeartbeatMs;
    private long nextLivenessCheckNs;
    private long deviceEventsDropped;

    DriverConductor(
        final CncFile cnc, final Endpoint endpoint, final ClientQueues[] queues, final DistinctErrorLog errorLog,
        final DriverCounters counters, final CountersManager countersManager, final FdSocketServer fdServer,
        final long clientTimeoutNs, final ClientQuotas quotas)
    {
        this.quotaGuard = new QuotaGuard(quotas, counters);
        this.countersManager = countersManager;
        this.fdServer = fdServer;
        this.cnc = cnc;
        this.endpoint = endpoint;
        this.device = endpoint.device();
        this.queues = queues;
        this.agents = endpoint.agents();
        this.toDriver = new ManyToOneRingBuffer(cnc.toDriverBuffer());
        this.toClients = new BroadcastTransmitter(cnc.toClientsBuffer());
        this.errorLog = errorLog;
        this.counters = counters;
        this.clientTimeoutNs = clientTimeoutNs;
        this.cm = new DriverCm(endpoint, () -> nextHandle++, counters.cmListeners);
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
        int work = fdServer.poll(this); // first: a command's memfd was sent before the command
        work += toDriver.read(this::onCommand, COMMANDS_PER_CYCLE);
        work += sendLateAnswers();
        work += routeAsyncEvents();
        work += cm.routeRequests();
        if (nowNs >= nextLivenessCheckNs)
        {
            nextLivenessCheckNs = nowNs + LIVENESS_CHECK_NS;
            work += timeOutClients();
            refreshQpCounters();
            countDeviceEventsDropped();
        }
        return work;
    }

    public void onClose()
    {
        for (final ClientSession session : new ArrayList<>(sessions.values()))
        {
            reclaim(session);
        }
        for (final ClientFds fds : new ArrayList<>(fdConnections))
        {
            closeFds(fds);
        }
        cm.close();
    }

    public String roleName()
    {
        return "rnic-driver-conductor";
    }

    int clientCount()
    {
        return sessions.size();
    }

    public void onConnected(final FdSocketServer.Connection connection)
    {
        final ClientFds fds = new ClientFds(connection, nowNs);
        connection.attachment = fds;
        fdConnections.add(fds);
    }

    public void onMessage(
        final FdSocketServer.Connection connection, final long tokenHigh, final long tokenLow, final int fd)
    {
        final ClientFds fds = (ClientFds)connection.attachment;
        if (!fds.helloed)
        {
            if (fd >= 0 || sessions.containsKey(tokenHigh) || helloOf(tokenHigh) != null)
            {
                // a hello carries no fd, and names a client no other connection serves: the first claim wins
                refuseFd(fd);
                closeFds(fds);
                return;
            }
            fds.helloed = true;
            fds.clientId = tokenHigh;
            fds.nonce = tokenLow;
            return;
        }
        if (fd < 0 || tokenHigh != fds.clientId || fds.pending.size() >= MAX_PENDING_FDS ||
            fds.pending.containsKey(tokenLow))
        {
            refuseFd(fd);
            return;
        }
        fds.pending.put(tokenLow, fd);
    }

    public void onMalformed(final FdSocketServer.Connection connection)
    {
        counters.fdMessagesRefused.increment();
    }

    public void onClosed(final FdSocketServer.Connection connection)
    {
        final ClientFds fds = (ClientFds)connection.attachment;
        final ClientSession session = fds.session;
        closeFds(fds);
        if (session != null && sessions.get(session.clientId) == session)
        {
            // a client that exits or is killed: an event of the driver's life, not an error of the driver's
            counters.clientsGone.increment();
            events.accept(session + " departed without detaching (its fds.sock connection closed: it exited or " +
                "was killed); its QPs, CQs and memory regions are destroyed");
            reclaim(session);
        }
    }

    private void refuseFd(final int fd)
    {
        counters.fdMessagesRefused.increment();
        if (fd >= 0)
        {
            FdSocketServer.closeFd(fd);
        }
    }

    /** The live connection whose hello named {@code clientId}, or null. */
    private ClientFds helloOf(final long clientId)
    {
        for (int i = 0; i < fdConnections.size(); i++)
        {
            final ClientFds fds = fdConnections.get(i);
            if (fds.helloed && fds.clientId == clientId)
            {
                return fds;
            }
        }
        return null;
    }

    /** Closes a connection and every memfd it sent that no command used. */
    private void closeFds(final ClientFds fds)
    {
        fds.pending.forEachLong((token, fd) -> FdSocketServer.closeFd((int)fd));
        fds.pending.clear();
        fdConnections.remove(fds);
        fds.connection.close();
    }

    /** A client's file for {@code what} must be exactly the length its layout gives: nothing is mapped otherwise. */
    private static void checkFileLength(final long fileLength, final long expected, final String what)
    {
        if (fileLength != expected)
        {
            throw new IllegalArgumentException(what + " needs a file of " + expected + " bytes, not " + fileLength);
        }
    }

    /**
     * Reads the memfd token of a command that passes memory (argument {@code index}) and notes it: if the command
     * fails before {@link #mapReceived} takes the memfd, {@link #onCommand} discards it, whatever check failed.
     */
    private long memfdToken(final ClientSession session, final DirectBuffer buffer, final int offset, final int index)
    {
        final long token = ControlProtocol.arg(buffer, offset, index);
        unmappedFdSession = session;
        unmappedFdToken = token;
        return token;
    }

    /**
     * Maps the memfd the client sent with {@code token} over its own connection. The socket is read again first when
     * it has not arrived: the client sent it before the command, so it waits in the socket if not yet read.
     */
    private SharedMemory mapReceived(final ClientSession session, final long token, final long fileLength)
    {
        if (session.fds == null)
        {
            throw new ShmException("this client attached without a connection to " +
                ControlProtocol.FD_SOCKET_FILE_NAME + " (no nonce in its attach): it can pass no memory");
        }
        int fd = session.fds.take(token);
        if (fd < 0)
        {
            fdServer.poll(this);
            fd = session.fds.connection.isClosed() ? -1 : session.fds.take(token);
        }
        if (fd < 0)
        {
            throw new ShmException("no memfd with token " + token + " came over this client's " +
                ControlProtocol.FD_SOCKET_FILE_NAME + " connection: send it there before the command");
        }
        unmappedFdSession = null; // taken: mapped or refused, fromReceivedFd closes it
        return SharedMemory.fromReceivedFd(fd, fileLength);
    }

    /** The memfd the executing command named and has not mapped yet ({@link #memfdToken}); null: none. */
    private ClientSession unmappedFdSession;
    private long unmappedFdToken;

    /**
     * A command that named {@code token} failed before mapping it: its memfd is of no more use. It may still wait in
     * the socket (sent before the command, not read yet): read the socket first, as {@link #mapReceived} does, or it
     * would hold one of the connection's {@link #MAX_PENDING_FDS} slots until the client detaches.
     */
    private void discardFd(final ClientSession session, final long token)
    {
        if (session.fds != null)
        {
            int fd = session.fds.take(token);
            if (fd < 0 && !session.fds.connection.isClosed())
            {
                fdServer.poll(this);
                fd = session.fds.take(token);
            }
            if (fd >= 0)
            {
                FdSocketServer.closeFd(fd);
            }
        }
    }

    private void onCommand(final int type, final DirectBuffer buffer, final int offset, final int length)
    {
        counters.commands.increment();
        final int args = ControlProtocol.argCount(length);
        if (args < 0)
        {
            counters.commandErrors.increment();
            if (length >= ControlProtocol.ARGS_OFFSET)
            {
                error(ControlProtocol.clientId(buffer, offset), ControlProtocol.correlationId(buffer, offset),
                    ControlProtocol.ERROR_INVALID, "malformed " + ControlProtocol.commandName(type) + " of " + length +
                    " bytes");
            }
            return;
        }
        final long clientId = ControlProtocol.clientId(buffer, offset);
        final long correlationId = ControlProtocol.correlationId(buffer, offset);
        try
        {
            execute(type, buffer, offset, args, clientId, correlationId);
        }
        catch (final VerbsException ex)
        {
            counters.commandErrors.increment();
            // one naming its errno as the embedded call throws it (the name first), so that the client throws the same
            error(clientId, correlationId, ControlProtocol.ERROR_VERBS, ex.namesErrno() ? ex.errno() : 0,
                ex.namesErrno() ? ex.getMessage() : ControlProtocol.commandName(type) + ": " + ex.getMessage());
        }
        catch (final ShmException | IllegalArgumentException | IllegalStateException ex)
        {
            counters.commandErrors.increment();
            error(clientId, correlationId, codeOf(ex), ControlProtocol.commandName(type) + ": " + ex.getMessage());
        }
        catch (final RuntimeException ex)
        {
            counters.commandErrors.increment();
            errorLog.record(ex);
            error(clientId, correlationId, ControlProtocol.ERROR_INVALID,
                ControlProtocol.commandName(type) + " failed in the driver: " + ex);
        }
        finally
        {
            if (unmappedFdSession != null) // the command failed before it mapped the memory it was sent
            {
                discardFd(unmappedFdSession, unmappedFdToken);
                unmappedFdSession = null;
            }
        }
    }

    private static int codeOf(final RuntimeException ex)
    {
        if (ex instanceof ShmException)
        {
            return ControlProtocol.ERROR_BAD_MEMORY;
        }
        if (ex instanceof UnknownHandleException)
        {
            return ControlProtocol.ERROR_UNKNOWN_HANDLE;
        }
        return ex instanceof VerbsException ? ControlProtocol.ERROR_VERBS : ControlProtocol.ERROR_INVALID;
    }

    private void execute(
        final int type, final DirectBuffer buffer, final int offset, final int args, final long clientId,
        final long correlationId)
    {
        if (type == ControlProtocol.ATTACH)
        {
            if (args != 1)
            {
                expectArgs(type, args, 2);
            }
            if (sessions.containsKey(clientId))
            {
                throw new IllegalArgumentException("client " + Long.toHexString(clientId) + " is attached already");
            }
            final long pid = ControlProtocol.arg(buffer, offset, 0);
            final ClientFds fds = args == 2 ? linkFds(clientId, ControlProtocol.arg(buffer, offset, 1)) : null;
            final ClientSession session = new ClientSession(clientId, pid, fds, nowNs);
            if (fds != null)
            {
                fds.session = session;
            }
            sessions.put(clientId, session);
            counters.clients.setOrdered(sessions.size());
            result(clientId, correlationId, clientTimeoutNs);
            return;
        }
        final ClientSession session = sessions.get(clientId);
        if (session == null)
        {
            if (type != ControlProtocol.KEEPALIVE)
            {
                counters.commandErrors.increment();
                error(clientId, correlationId, ControlProtocol.ERROR_NOT_ATTACHED, "client " +
                    Long.toHexString(clientId) + " is not attached to this driver (timed out, or the driver " +
                    "restarted): open the context again");
            }
            return;
        }
        session.lastKeepaliveNs = nowNs;
        switch (type)
        {
            case ControlProtocol.KEEPALIVE ->
            {
            }
            case ControlProtocol.DETACH ->
            {
                reclaim(session);
                result(clientId, correlationId, 0);
            }
            case ControlProtocol.ALLOC_PD ->
            {
                final int handle = nextHandle++;
                session.pds.put(handle, device.allocPd());
                counted(1);
                result(clientId, correlationId, handle);
            }
            case ControlProtocol.DEALLOC_PD ->
            {
                expectArgs(type, args, 1);
                final int handle = (int)ControlProtocol.arg(buffer, offset, 0);
                final ProtectionDomain pd = pd(session, handle);
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
                counted(-1);
                result(clientId, correlationId, 0);
            }
            case ControlProtocol.REG_MR -> registerMemory(session, buffer, offset, args, correlationId);
            case ControlProtocol.ALLOC_MW ->
            {
                expectArgs(type, args, 2);
                final ProtectionDomain pd = pd(session, (int)ControlProtocol.arg(buffer, offset, 0));
                final MemoryWindow window = device.allocMw(pd, (int)ControlProtocol.arg(buffer, offset, 1));
                final int handle = nextHandle++;
                session.mws.put(handle, window);
                counted(1);
                result(clientId, correlationId, handle, window.rKey() & 0xFFFF_FFFFL);
            }
            case ControlProtocol.DEALLOC_MW ->
            {
                expectArgs(type, args, 1);
                final int handle = (int)ControlProtocol.arg(buffer, offset, 0);
                final MemoryWindow window = session.mws.get(handle);
                if (window == null)
                {
                    throw new UnknownHandleException("memory window", handle);
                }
                device.deallocMw(window);
                session.mws.remove(handle);
                counted(-1);
                result(clientId, correlationId, 0);
            }
            case ControlProtocol.DEREG_MR ->
            {
                expectArgs(type, args, 1);
                final int handle = (int)ControlProtocol.arg(buffer, offset, 0);
                final ClientMr mr = session.mrs.get(handle);
                if (mr == null)
                {
                    throw new UnknownHandleException("memory region", handle);
                }
                deregister(session, mr);
                result(clientId, correlationId, 0);
            }
            case ControlProtocol.CREATE_CQ -> createCq(session, buffer, offset, args, correlationId);
            case ControlProtocol.DESTROY_CQ ->
            {
                expectArgs(type, args, 1);
                final int handle = (int)ControlProtocol.arg(buffer, offset, 0);
                final ClientCq cq = cq(session, handle);
                for (final ClientQp qp : session.qps.values())
                {
                    if (qp.sendCq == cq || qp.recvCq == cq)
                    {
                        throw new VerbsException("CQ " + handle + " is in use by QP 0x" +
                            Integer.toHexString(qp.qp.qpn()) + ": destroy the QP first");
                    }
                }
                destroyCq(session, cq);
                result(clientId, correlationId, 0);
            }
            case ControlProtocol.CREATE_QP -> createQp(session, buffer, offset, args, correlationId);
            case ControlProtocol.MODIFY_QP ->
            {
                expectArgs(type, args, 2 + QpAttributesCodec.ARGS);
                final ClientQp qp = qp(session, (int)ControlProtocol.arg(buffer, offset, 0));
                final int mask = (int)ControlProtocol.arg(buffer, offset, 1);
                final QpAttributes attributes = new QpAttributes();
                QpAttributesCodec.decode(buffer, offset, 2, attributes);
                qp.qp.modify(attributes, mask);
                final int state = qp.qp.state().ordinal();
                qp.header.putIntOrdered(QpQueuesLayout.STATE_OFFSET, state); // before the answer: the client posts next
                result(clientId, correlationId, state);
            }
            case ControlProtocol.DESTROY_QP ->
            {
                expectArgs(type, args, 1);
                final int handle = (int)ControlProtocol.arg(buffer, offset, 0);
                destroyQp(session, qp(session, handle));
                result(clientId, correlationId, 0);
            }
            case ControlProtocol.RESOLVE_MAC -> resolveMac(buffer, offset, args, clientId, correlationId);
            case ControlProtocol.CREATE_SRQ -> createSrq(session, buffer, offset, args, correlationId);
            case ControlProtocol.MODIFY_SRQ ->
            {
                expectArgs(type, args, 3);
                final ClientSrq srq = srq(session, (int)ControlProtocol.arg(buffer, offset, 0));
                final long mask = ControlProtocol.arg(buffer, offset, 1);
                final long limit = ControlProtocol.arg(buffer, offset, 2);
                srqAttributes.srqLimit = limit < Integer.MIN_VALUE || limit > Integer.MAX_VALUE ? -1 : (int)limit;
                srq.srq().modify(srqAttributes, mask != (int)mask ? -1 : (int)mask);
                result(clientId, correlationId, 0);
            }
            case ControlProtocol.QUERY_SRQ ->
            {
                expectArgs(type, args, 1);
                final SrqAttributes attributes =
                    srq(session, (int)ControlProtocol.arg(buffer, offset, 0)).srq().query(srqAttributes);
                result(clientId, correlationId, attributes.maxWr, attributes.maxSge, attributes.srqLimit);
            }
            case ControlProtocol.DESTROY_SRQ ->
            {
                expectArgs(type, args, 1);
                destroySrq(session, srq(session, (int)ControlProtocol.arg(buffer, offset, 0)));
                result(clientId, correlationId, 0);
            }
            case ControlProtocol.OPEN_ASYNC_EVENTS -> openAsyncEvents(session, buffer, offset, args, correlationId);
            case ControlProtocol.CM_LISTEN, ControlProtocol.CM_STOP_LISTEN, ControlProtocol.CM_CONNECT,
                ControlProtocol.CM_ACCEPT, ControlProtocol.CM_REJECT, ControlProtocol.CM_DISCONNECT,
                ControlProtocol.CM_RELEASE, ControlProtocol.CM_POLL ->
                connectionManager(type, session, buffer, offset, args, correlationId);
            default ->
            {
                counters.commandErrors.increment();
                error(clientId, correlationId, ControlProtocol.ERROR_UNKNOWN_COMMAND, "unknown command type " + type +
                    " (a client of another rnic version?)");
            }
        }
    }

    /** The RDMA CM's commands ({@link DriverCm}). */
    private void connectionManager(
        final int type, final ClientSession session, final DirectBuffer buffer, final int offset, final int args,
        final long correlationId)
    {
        final long[] values = new long[args];
        for (int i = 0; i < args; i++)
        {
            values[i] = ControlProtocol.arg(buffer, offset, i);
        }
        switch (type)
        {
            case ControlProtocol.CM_LISTEN ->
            {
                expectArgs(type, args, 1);
                cm.listen(session, (int)values[0]);
                result(session.clientId, correlationId, 0);
            }
            case ControlProtocol.CM_STOP_LISTEN ->
            {
                expectArgs(type, args, 1);
                cm.stopListening(session, (int)values[0]);
                result(session.clientId, correlationId, 0);
            }
            case ControlProtocol.CM_CONNECT ->
            {
                atLeastArgs(type, args, 9);
                final ClientQp qp = qp(session, (int)values[0]);
                final byte[] privateData = CmIdCodec.privateData(values, 8, args);
                final int handle = cm.connect(session, qp, (int)values[1], values[2], values[3], (int)values[4],
                    (int)values[5], (int)values[6], (int)values[7], privateData);
                result(session.clientId, correlationId, handle);
            }
            case ControlProtocol.CM_ACCEPT ->
            {
                atLeastArgs(type, args, 5);
                final DriverCm.TrackedId id = cmId(session, (int)values[0]);
                final ClientQp qp = qp(session, (int)values[1]);
                cm.accept(id, qp, (int)values[2], (int)values[3], CmIdCodec.privateData(values, 4, args));
                result(session.clientId, correlationId, 0);
            }
            case ControlProtocol.CM_REJECT ->
            {
                atLeastArgs(type, args, 1);
                cm.reject(cmId(session, (int)values[0]), args > 1 ? CmIdCodec.privateData(values, 1, args) :
                    new byte[0]);
                result(session.clientId, correlationId, 0);
            }
            case ControlProtocol.CM_DISCONNECT ->
            {
                expectArgs(type, args, 1);
                cm.disconnect(cmId(session, (int)values[0]));
                result(session.clientId, correlationId, 0);
            }
            case ControlProtocol.CM_RELEASE ->
            {
                expectArgs(type, args, 1);
                cmId(session, (int)values[0]);
                cm.release(session, (int)values[0]);
                result(session.clientId, correlationId, 0);
            }
            default ->
            {
                expectArgs(type, args, 0);
                final int count = cm.poll(session);
                resultValues(session.clientId, correlationId, cm.values(), count);
            }
        }
    }

    private static DriverCm.TrackedId cmId(final ClientSession session, final int handle)
    {
        final DriverCm.TrackedId id = session.cmIds.get(handle);
        if (id == null)
        {
            throw new UnknownHandleException("CM id", handle);
        }
        return id;
    }

    /** The connection that said hello with this client id and nonce, read again from the socket when not there yet. */
    private ClientFds linkFds(final long clientId, final long nonce)
    {
        ClientFds fds = helloOf(clientId);
        if (fds == null)
        {
            fdServer.poll(this); // the hello was sent before the attach: it waits in the socket
            fds = helloOf(clientId);
        }
        if (fds == null || fds.nonce != nonce || fds.session != null)
        {
            throw new IllegalArgumentException("no " + ControlProtocol.FD_SOCKET_FILE_NAME + " connection said " +
                "hello with this client's id and nonce: connect there and say hello before attaching");
        }
        return fds;
    }

    private void registerMemory(
        final ClientSession session, final DirectBuffer buffer, final int offset, final int args,
        final long correlationId)
    {
        expectArgs(ControlProtocol.REG_MR, args, 7);
        final long token = memfdToken(session, buffer, offset, 1);
        final long fileLength = ControlProtocol.arg(buffer, offset, 2);
        final long fileOffset = ControlProtocol.arg(buffer, offset, 3);
        final long length = ControlProtocol.arg(buffer, offset, 4);
        final long iova = ControlProtocol.arg(buffer, offset, 5);
        final int access = (int)ControlProtocol.arg(buffer, offset, 6);
        quotaGuard.checkMr(session, length);
        final SharedMemory memory;
        final ProtectionDomain pd = pd(session, (int)ControlProtocol.arg(buffer, offset, 0));
        MemoryRegion.checkLength(length); // before the memory is mapped
        if (fileLength <= 0 || fileLength > MAX_MEMORY_FILE_BYTES || fileOffset < 0 || length <= 0 ||
            fileOffset > fileLength - length)
        {
            throw new IllegalArgumentException("region of " + length + " bytes at offset " + fileOffset +
                " does not lie in a file of " + fileLength + " bytes");
        }
        memory = mapReceived(session, token, fileLength);
        final MemoryRegion region;
        try
        {
            region = device.registerMemoryRegion(pd, memory.segment().asSlice(fileOffset, length), iova, access);
        }
        catch (final RuntimeException ex)
        {
            memory.close();
            throw ex;
        }
        final int handle = nextHandle++;
        session.mrs.put(handle, new ClientMr(handle, region, memory));
        session.registeredBytes += region.length();
        counted(1);
        result(session.clientId, correlationId, handle, region.lKey(), region.rKey());
    }

    private void deregister(final ClientSession session, final ClientMr mr)
    {
        device.deregisterMemoryRegion(mr.region()); // returns once no engine touches the memory any more
        mr.memory().close();
        session.mrs.remove(mr.handle());
        session.registeredBytes -= mr.region().length();
        counted(-1);
    }

    private void createCq(
        final ClientSession session, final DirectBuffer buffer, final int offset, final int args,
        final long correlationId)
    {
        expectArgs(ControlProtocol.CREATE_CQ, args, 3);
        final long token = memfdToken(session, buffer, offset, 0);
        final long fileLength = ControlProtocol.arg(buffer, offset, 1);
        final long entries = ControlProtocol.arg(buffer, offset, 2);
        if (entries < 1 || entries > (1 << 22))
        {
            throw new VerbsException("CQ size " + entries + " out of range 1.." + (1 << 22));
        }
        final long expected = QpQueuesLayout.completionQueueFileLength((int)entries);
        checkFileLength(fileLength, expected, "a CQ of " + entries + " entries");
        quotaGuard.checkCq(session);
        final SharedMemory memory = mapReceived(session, token, fileLength);
        final int handle = nextHandle++;
        final CompletionQueue cq;
        try
        {
            cq = CompletionQueue.format(handle, (int)entries,
                new UnsafeBuffer(memory.segment().address(), CompletionQueue.requiredBytes((int)entries)));
            device.resources().reserve(ResourceKind.CQ, ResourceCosts.clientCompletionQueue()); // max_cq
        }
        catch (final RuntimeException ex)
        {
            memory.close();
            throw ex;
        }
        session.cqs.put(handle, new ClientCq(handle, cq, memory));
        counted(1);
        result(session.clientId, correlationId, handle, cq.capacity());
    }

    /** Destroys a CQ no QP of the client uses; the client's memory is unmapped. */
    private void destroyCq(final ClientSession session, final ClientCq cq)
    {
        session.cqs.remove(cq.handle());
        cq.memory().close();
        device.resources().release(ResourceKind.CQ, ResourceCosts.clientCompletionQueue());
        counted(-1);
    }

    private void createQp(
        final ClientSession session, final DirectBuffer buffer, final int offset, final int args,
        final long correlationId)
    {
        if (args != 11)
        {
            expectArgs(ControlProtocol.CREATE_QP, args, 12);
        }
        final int srqHandle = args == 12 ? (int)ControlProtocol.arg(buffer, offset, 11) : 0;
        final long typeOrdinal = ControlProtocol.arg(buffer, offset, 3);
        final boolean signalAll = ControlProtocol.arg(buffer, offset, 8) != 0;
        final long token = memfdToken(session, buffer, offset, 9);
        final long fileLength = ControlProtocol.arg(buffer, offset, 10);
        final ProtectionDomain pd = pd(session, (int)ControlProtocol.arg(buffer, offset, 0));
        final ClientSrq srq = srqHandle == 0 ? null : srq(session, srqHandle);
        final ClientCq sendCq = cq(session, (int)ControlProtocol.arg(buffer, offset, 1));
        final ClientCq recvCq = cq(session, (int)ControlProtocol.arg(buffer, offset, 2));
        final int maxSendWr = bounded(ControlProtocol.arg(buffer, offset, 4), 1 << 16, "max send WR");
        final int maxRecvWr = bounded(ControlProtocol.arg(buffer, offset, 5), 1 << 16, "max receive WR");
        final int maxSendSge = bounded(ControlProtocol.arg(buffer, offset, 6), ScatterGatherList.MAX_SGE,
            "max send SGE");
        final int maxRecvSge = bounded(ControlProtocol.arg(buffer, offset, 7), ScatterGatherList.MAX_SGE,
            "max receive SGE");
        if (typeOrdinal < 0 || typeOrdinal >= QpType.values().length)
        {
            throw new IllegalArgumentException("QP type " + typeOrdinal + " is not a type");
        }
        final long expected = QpQueuesLayout.fileLength(maxSendWr, maxSendSge, maxRecvWr, maxRecvSge);
        checkFileLength(fileLength, expected, "a QP of these queue sizes");
        final long queueBytes =
            ResourceCosts.queuePair(maxSendWr, maxSendSge, srq == null ? maxRecvWr : 0, maxRecvSge);
        quotaGuard.checkQp(session, queueBytes);
        final SharedMemory memory = mapReceived(session, token, fileLength);
        final QpInitAttributes init = new QpInitAttributes();
        init.type = QpType.values()[(int)typeOrdinal];
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
        final int handle = nextHandle++;
        final ClientQp clientQp = new ClientQp(handle, qp, pd, sendCq, recvCq, memory, sendRing, recvRing);
        final ClientQueues shardQueues = queuesOf(qp);
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
        session.qps.put(handle, clientQp);
        qpOwners.put(qp.qpn(), session);
        counted(1);
        result(session.clientId, correlationId, handle, qp.qpn());
    }

    private void createSrq(
        final ClientSession session, final DirectBuffer buffer, final int offset, final int args,
        final long correlationId)
    {
        expectArgs(ControlProtocol.CREATE_SRQ, args, 6);
        final long token = memfdToken(session, buffer, offset, 4);
        final long fileLength = ControlProtocol.arg(buffer, offset, 5);
        final ProtectionDomain pd = pd(session, (int)ControlProtocol.arg(buffer, offset, 0));
        final long wr = ControlProtocol.arg(buffer, offset, 1);
        final long sge = ControlProtocol.arg(buffer, offset, 2);
        final long srqLimit = ControlProtocol.arg(buffer, offset, 3);
        // rxe's checks, with the errno an embedded create gives (a long out of int's range is out of range too)
        EngineSharedReceiveQueue.check(pd, new SrqAttributes().maxWr(clamp(wr)).maxSge(clamp(sge))
            .srqLimit(clamp(srqLimit)));
        final int maxWr = (int)wr;
        final int maxSge = (int)sge;
        final int limit = (int)srqLimit;
        final long expected = QpQueuesLayout.srqFileLength(maxWr, maxSge);
        checkFileLength(fileLength, expected, "an SRQ of " + maxWr + " requests of " + maxSge + " SGEs");
        quotaGuard.checkSrq(session);
        final SharedMemory memory = mapReceived(session, token, fileLength);
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
        final int handle = nextHandle++;
        final ClientSrq clientSrq = new ClientSrq(handle, srq, memory, session);
        session.srqs.put(handle, clientSrq);
        srqOwners.put(srq.handle(), clientSrq);
        counted(1);
        result(session.clientId, correlationId, handle, srq.query(srqAttributes).maxWr);
    }

    /** A long argument as an int, or -1 (out of every range) when it does not fit. */
    private static int clamp(final long value)
    {
        return value < 0 || value > Integer.MAX_VALUE ? -1 : (int)value;
    }

    /** Refused (EBUSY) while QPs of the client use it; then the ring's file is unmapped: no engine takes from it. */
    private void destroySrq(final ClientSession session, final ClientSrq srq)
    {
        device.destroySrq(srq.srq());
        srqOwners.remove(srq.srq().handle());
        session.srqs.remove(srq.handle());
        srq.memory().close();
        counted(-1);
    }

    private void openAsyncEvents(
        final ClientSession session, final DirectBuffer buffer, final int offset, final int args,
        final long correlationId)
    {
        expectArgs(ControlProtocol.OPEN_ASYNC_EVENTS, args, 2);
        final long token = memfdToken(session, buffer, offset, 0);
        final long fileLength = ControlProtocol.arg(buffer, offset, 1);
        if (session.events != null)
        {
            throw new IllegalArgumentException("this client's event ring is open already");
        }
        checkFileLength(fileLength, AsyncEventRing.fileLength(), "an event ring");
        final SharedMemory memory = mapReceived(session, token, fileLength);
        session.eventsMemory = memory;
        session.events = AsyncEventRing.format(new UnsafeBuffer(memory.segment().address(), (int)fileLength));
        result(session.clientId, correlationId, session.events.capacity());
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
                final ClientSrq srq = srqOwners.get(event.srq.handle());
                owner = srq == null ? null : srq.owner();
                srqHandle = srq == null ? 0 : srq.handle();
            }
            else
            {
                owner = qpOwners.get(event.qpNum);
                srqHandle = 0;
            }
            if (owner != null && (owner.events == null || !owner.events.offer(event.eventType, event.qpNum, srqHandle)))
            {
                counters.asyncEventsDropped.increment();
            }
        }
        return routed;
    }

    private ClientQueues queuesOf(final EngineQueuePair qp)
    {
        for (int i = 0; i < agents.length; i++)
        {
            if (agents[i].engine() == qp.engine())
            {
                return queues[i];
            }
        }
        throw new IllegalStateException("QP 0x" + Integer.toHexString(qp.qpn()) + " has no engine of this driver");
    }

    private void destroyQp(final ClientSession session, final ClientQp qp)
    {
        cm.qpDestroyed(session, qp);
        final ClientQueues shardQueues = queuesOf(qp.qp);
        qp.qp.engine().execute(() ->
        {
            shardQueues.remove(qp);
            return null;
        });
        device.destroyQp(qp.qp); // on the engine thread: no frame reaches the QP once this returns
        qpOwners.remove(qp.qp.qpn());
        qp.memory.close();
        if (qp.counters != null)
        {
            qp.counters.free();
        }
        session.qps.remove(qp.handle);
        session.queueBytes -= qp.queueBytes;
        counted(-1);
    }

    private void resolveMac(
        final DirectBuffer buffer, final int offset, final int args, final long clientId, final long correlationId)
    {
        expectArgs(ControlProtocol.RESOLVE_MAC, args, 5);
        final int sgidIndex = (int)ControlProtocol.arg(buffer, offset, 0);
        final long timeoutMs =
            Math.min(ControlProtocol.MAX_RESOLVE_MS, Math.max(1, ControlProtocol.arg(buffer, offset, 1)));
        final boolean ipv4 = ControlProtocol.arg(buffer, offset, 2) != 0;
        final long high = ControlProtocol.arg(buffer, offset, 3);
        final long low = ControlProtocol.arg(buffer, offset, 4);
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
                final long mac = endpoint.resolveMac(address, sgidIndex, Duration.ofMillis(timeoutMs));
                lateResults.offer(new long[]{ clientId, correlationId, mac });
            }
            catch (final IllegalStateException ex)
            {
                // nobody answered: the peer's error, as a socket's connect after ARP fails, not the client's mistake
                lateErrors.offer(new Object[]{ clientId, correlationId, Errno.EHOSTUNREACH, ex.getMessage() });
            }
            catch (final RuntimeException ex)
            {
                lateErrors.offer(new Object[]{ clientId, correlationId, 0, ex.getMessage() });
            }
        });
    }

    private int sendLateAnswers()
    {
        int work = 0;
        long[] late;
        while ((late = lateResults.poll()) != null)
        {
            result(late[0], late[1], late[2]);
            work++;
        }
        Object[] lateError;
        while ((lateError = lateErrors.poll()) != null)
        {
            counters.commandErrors.increment();
            final int errno = (Integer)lateError[2];
            error((Long)lateError[0], (Long)lateError[1], errno != 0 ? ControlProtocol.ERROR_VERBS :
                ControlProtocol.ERROR_INVALID, errno, (errno != 0 ? Errno.name(errno) + ": " : "") + "resolve_mac: " +
                lateError[3]);
            work++;
        }
        return work;
    }

    /** The per-QP counters, as often as liveness is checked: a live view for {@code stat}, not a per-packet one. */
    private void refreshQpCounters()
    {
        for (final ClientSession session : sessions.values())
        {
            for (final ClientQp qp : session.qps.values())
            {
                if (qp.counters != null)
                {
                    qp.counters.refresh();
                }
            }
        }
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

    private int timeOutClients()
    {
        for (int i = fdConnections.size() - 1; i >= 0; i--)
        {
            final ClientFds fds = fdConnections.get(i);
            if (fds.session == null && nowNs - fds.connectedNs > clientTimeoutNs)
            {
                closeFds(fds); // connected and never attached
            }
        }
        List<ClientSession> expired = null;
        for (final ClientSession session : sessions.values())
        {
            if (nowNs - session.lastKeepaliveNs > clientTimeoutNs)
            {
                expired = expired == null ? new ArrayList<>() : expired;
                expired.add(session);
            }
        }
        if (expired == null)
        {
            return 0;
        }
        for (final ClientSession session : expired)
        {
            counters.clientTimeouts.increment();
            errorLog.record(new IllegalStateException(session + " timed out: no keepalive for " +
                clientTimeoutNs / 1_000_000 + " ms; its QPs, CQs and memory regions were destroyed"));
            reclaim(session);
        }
        return expired.size();
    }

    /** Destroys everything a client holds, QPs first (their peers see them vanish), then SRQs, CQs and memory. */
    private void reclaim(final ClientSession session)
    {
        cm.reclaim(session); // its ports closed and its connections let go of its QPs before these go
        for (final ClientQp qp : new ArrayList<>(session.qps.values()))
        {
            destroyQp(session, qp);
        }
        for (final ClientSrq srq : new ArrayList<>(session.srqs.values()))
        {
            destroySrq(session, srq); // its QPs are gone: nothing refuses
        }
        for (final ClientCq cq : new ArrayList<>(session.cqs.values()))
        {
            destroyCq(session, cq);
        }
        for (final MemoryWindow window : session.mws.values())
        {
            device.deallocMw(window); // unbound first: a region with windows bound is not deregistered
        }
        counted(-session.mws.size());
        session.mws.clear();
        for (final ClientMr mr : new ArrayList<>(session.mrs.values()))
        {
            deregister(session, mr);
        }
        counted(-session.pds.size());
        session.pds.clear();
        if (session.eventsMemory != null)
        {
            session.events = null;
            session.eventsMemory.close();
            session.eventsMemory = null;
        }
        if (session.fds != null)
        {
            closeFds(session.fds); // its unused memfds with it
        }
        sessions.remove(session.clientId);
        counters.clients.setOrdered(sessions.size());
    }

    private void counted(final int resources)
    {
        counters.resources.getAndAdd(resources);
    }

    private static ProtectionDomain pd(final ClientSession session, final int handle)
    {
        final ProtectionDomain pd = session.pds.get(handle);
        if (pd == null)
        {
            throw new UnknownHandleException("protection domain", handle);
        }
        return pd;
    }

    private static ClientCq cq(final ClientSession session, final int handle)
    {
        final ClientCq cq = session.cqs.get(handle);
        if (cq == null)
        {
            throw new UnknownHandleException("completion queue", handle);
        }
        return cq;
    }

    private static ClientSrq srq(final ClientSession session, final int handle)
    {
        final ClientSrq srq = session.srqs.get(handle);
        if (srq == null)
        {
            throw new UnknownHandleException("shared receive queue", handle);
        }
        return srq;
    }

    private static ClientQp qp(final ClientSession session, final int handle)
    {
        final ClientQp qp = session.qps.get(handle);
        if (qp == null)
        {
            throw new UnknownHandleException("queue pair", handle);
        }
        return qp;
    }

    private static int bounded(final long value, final int max, final String name)
    {
        if (value < 1 || value > max)
        {
            throw new VerbsException(name + " " + value + " out of range 1.." + max);
        }
        return (int)value;
    }

    private static void atLeastArgs(final int type, final int args, final int expected)
    {
        if (args < expected)
        {
            throw new IllegalArgumentException("malformed " + ControlProtocol.commandName(type) + ": " + args +
                " arguments, expected at least " + expected);
        }
    }

    private static void expectArgs(final int type, final int args, final int expected)
    {
        if (args != expected)
        {
            throw new IllegalArgumentException("malformed " + ControlProtocol.commandName(type) + ": " + args +
                " arguments, expected " + expected);
        }
    }

    private void result(final long clientId, final long correlationId, final long... values)
    {
        resultValues(clientId, correlationId, values, values.length);
    }

    private void resultValues(final long clientId, final long correlationId, final long[] values, final int count)
    {
        ControlProtocol.putHeader(answer, 0, clientId, correlationId);
        for (int i = 0; i < count; i++)
        {
            ControlProtocol.putArg(answer, 0, i, values[i]);
        }
        toClients.transmit(ControlProtocol.RESULT, answer, 0, ControlProtocol.length(count));
    }

    private void error(final long clientId, final long correlationId, final int code, final String message)
    {
        error(clientId, correlationId, code, 0, message);
    }

    private void error(
        final long clientId, final long correlationId, final int code, final int errno, final String message)
    {
        final int length = ControlProtocol.putError(answer, 0, clientId, correlationId, code, errno, message);
        toClients.transmit(ControlProtocol.ERROR, answer, 0, length);
    }

    /** A handle the client does not hold: unknown, destroyed, or another client's. */
    static final class UnknownHandleException extends IllegalArgumentException
    {
        UnknownHandleException(final String what, final int handle)
        {
            super("no " + what + " with handle " + handle + " belongs to this client");
        }
    }
}
