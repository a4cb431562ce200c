package io.rnic.datapath.driver;

import io.rnic.cnc.CncFile;
import io.rnic.cnc.ControlProtocol;
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
import io.rnic.shm.ShmException;
import io.rnic.verbs.VerbsException;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.errors.DistinctErrorLog;
import org.agrona.concurrent.ringbuffer.RingBuffer;

/**
 * Reads clients' commands from the CnC's ring, as Aeron's {@code ClientCommandAdapter}: each message's length must be
 * its type's ({@link ControlProtocol#commandLength}), an {@code ATTACH} must speak this driver's protocol version, and
 * a client must be attached; then the message is wrapped by its flyweight and handed to the conductor's handler for
 * its type ({@code onCreateQp(session, command)}). A refusal is one counted error answer, never a crash: a handler
 * refuses by throwing, and the exception's kind gives the error code.
 */
final class DriverCommandAdapter
{
    private static final int COMMANDS_PER_CYCLE = 32;

    private final RingBuffer toDriver;
    private final DriverConductor conductor;
    private final ClientSessions sessions;
    private final FdHandshake fds;
    private final ClientProxy clientProxy;
    private final DriverCounters counters;
    private final DistinctErrorLog errorLog;
    private final CorrelatedMessageFlyweight header = new CorrelatedMessageFlyweight();
    private final AttachFlyweight attach = new AttachFlyweight();
    private final HandleFlyweight handle = new HandleFlyweight();
    private final RegisterMrFlyweight registerMr = new RegisterMrFlyweight();
    private final CreateCqFlyweight createCq = new CreateCqFlyweight();
    private final CreateQpFlyweight createQp = new CreateQpFlyweight();
    private final ModifyQpFlyweight modifyQp = new ModifyQpFlyweight();
    private final ResolveMacFlyweight resolveMac = new ResolveMacFlyweight();
    private final CmPortFlyweight cmPort = new CmPortFlyweight();
    private final CmConnectFlyweight cmConnect = new CmConnectFlyweight();
    private final CmAcceptFlyweight cmAccept = new CmAcceptFlyweight();
    private final CmRejectFlyweight cmReject = new CmRejectFlyweight();
    private final AllocMwFlyweight allocMw = new AllocMwFlyweight();
    private final CreateSrqFlyweight createSrq = new CreateSrqFlyweight();
    private final ModifySrqFlyweight modifySrq = new ModifySrqFlyweight();
    private final OpenAsyncEventsFlyweight openAsyncEvents = new OpenAsyncEventsFlyweight();
    private long nowNs;

    DriverCommandAdapter(
        final RingBuffer toDriver, final DriverConductor conductor, final ClientSessions sessions,
        final FdHandshake fds, final ClientProxy clientProxy, final DriverCounters counters,
        final DistinctErrorLog errorLog)
    {
        this.toDriver = toDriver;
        this.conductor = conductor;
        this.sessions = sessions;
        this.fds = fds;
        this.clientProxy = clientProxy;
        this.counters = counters;
        this.errorLog = errorLog;
    }

    /** Handles up to a duty cycle's commands. */
    int receive(final long nowNs)
    {
        this.nowNs = nowNs;
        return toDriver.read(this::onMessage, COMMANDS_PER_CYCLE);
    }

    private void onMessage(final int type, final MutableDirectBuffer buffer, final int offset, final int length)
    {
        counters.commands.increment();
        if (length < CorrelatedMessageFlyweight.LENGTH)
        {
            counters.commandErrors.increment(); // names no client: nobody to answer
            return;
        }
        header.wrap(buffer, offset);
        final long clientId = header.clientId();
        final long correlationId = header.correlationId();
        final int expectedLength = ControlProtocol.commandLength(type);
        if (type == ControlProtocol.ATTACH && length >= AttachFlyweight.PROTOCOL_VERSION_OFFSET + Integer.BYTES)
        {
            final int version = attach.wrap(buffer, offset).protocolVersion();
            if (version != CncFile.VERSION)
            {
                refuse(clientId, correlationId, ControlProtocol.ERROR_PROTOCOL_VERSION, "attach: the client speaks " +
                    "protocol version " + version + ", this driver version " + CncFile.VERSION + ": use a client " +
                    "library of the driver's rnic build (or restart the driver from the client's)");
                return;
            }
        }
        final ClientSession session = sessions.get(clientId);
        if (expectedLength < 0)
        {
            refuse(clientId, correlationId, session == null ? ControlProtocol.ERROR_NOT_ATTACHED :
                ControlProtocol.ERROR_UNKNOWN_COMMAND, session == null ? notAttached(clientId) :
                "unknown command type " + type + " (a client of another rnic version?)");
            return;
        }
        if (length != expectedLength)
        {
            refuse(clientId, correlationId, ControlProtocol.ERROR_INVALID, "malformed " +
                ControlProtocol.commandName(type) + " of " + length + " bytes: it has " + expectedLength);
            return;
        }
        if (type == ControlProtocol.ATTACH)
        {
            execute(type, null, buffer, offset, clientId, correlationId);
            return;
        }
        if (session == null)
        {
            if (type != ControlProtocol.KEEPALIVE)
            {
                refuse(clientId, correlationId, ControlProtocol.ERROR_NOT_ATTACHED, notAttached(clientId));
            }
            return;
        }
        session.lastKeepaliveNs = nowNs;
        if (type != ControlProtocol.KEEPALIVE)
        {
            execute(type, session, buffer, offset, clientId, correlationId);
        }
    }

    private static String notAttached(final long clientId)
    {
        return "client " + Long.toHexString(clientId) + " is not attached to this driver (timed out, or the driver " +
            "restarted): open the context again";
    }

    private void refuse(final long clientId, final long correlationId, final int code, final String message)
    {
        counters.commandErrors.increment();
        clientProxy.error(clientId, correlationId, code, 0, message);
    }

    private void execute(
        final int type, final ClientSession session, final MutableDirectBuffer buffer, final int offset,
        final long clientId, final long correlationId)
    {
        try
        {
            dispatch(type, session, buffer, offset);
        }
        catch (final VerbsException ex)
        {
            counters.commandErrors.increment();
            // one naming its errno as the embedded call throws it (the name first), so that the client throws the same
            clientProxy.error(clientId, correlationId, ControlProtocol.ERROR_VERBS, ex.namesErrno() ? ex.errno() : 0,
                ex.namesErrno() ? ex.getMessage() : ControlProtocol.commandName(type) + ": " + ex.getMessage());
        }
        catch (final ShmException | IllegalArgumentException | IllegalStateException ex)
        {
            counters.commandErrors.increment();
            clientProxy.error(clientId, correlationId, codeOf(ex), 0,
                ControlProtocol.commandName(type) + ": " + ex.getMessage());
        }
        catch (final RuntimeException ex)
        {
            counters.commandErrors.increment();
            errorLog.record(ex);
            clientProxy.error(clientId, correlationId, ControlProtocol.ERROR_INVALID, 0,
                ControlProtocol.commandName(type) + " failed in the driver: " + ex);
        }
        finally
        {
            fds.discardUnmapped(); // the command failed before it mapped the memory it was sent, if it did
        }
    }

    private void dispatch(
        final int type, final ClientSession session, final MutableDirectBuffer buffer, final int offset)
    {
        switch (type)
        {
            case ControlProtocol.ATTACH -> conductor.onAttach(attach.wrap(buffer, offset), nowNs);
            case ControlProtocol.DETACH -> conductor.onDetach(session, header);
            case ControlProtocol.ALLOC_PD -> conductor.onAllocPd(session, header);
            case ControlProtocol.DEALLOC_PD -> conductor.onDeallocPd(session, handle.wrap(buffer, offset));
            case ControlProtocol.REG_MR -> conductor.onRegisterMr(session, registerMr.wrap(buffer, offset));
            case ControlProtocol.DEREG_MR -> conductor.onDeregMr(session, handle.wrap(buffer, offset));
            case ControlProtocol.CREATE_CQ -> conductor.onCreateCq(session, createCq.wrap(buffer, offset));
            case ControlProtocol.DESTROY_CQ -> conductor.onDestroyCq(session, handle.wrap(buffer, offset));
            case ControlProtocol.CREATE_QP -> conductor.onCreateQp(session, createQp.wrap(buffer, offset));
            case ControlProtocol.MODIFY_QP -> conductor.onModifyQp(session, modifyQp.wrap(buffer, offset));
            case ControlProtocol.DESTROY_QP -> conductor.onDestroyQp(session, handle.wrap(buffer, offset));
            case ControlProtocol.RESOLVE_MAC -> conductor.onResolveMac(session, resolveMac.wrap(buffer, offset));
            case ControlProtocol.CM_LISTEN -> conductor.onCmListen(session, cmPort.wrap(buffer, offset));
            case ControlProtocol.CM_STOP_LISTEN -> conductor.onCmStopListen(session, cmPort.wrap(buffer, offset));
            case ControlProtocol.CM_CONNECT -> conductor.onCmConnect(session, cmConnect.wrap(buffer, offset));
            case ControlProtocol.CM_ACCEPT -> conductor.onCmAccept(session, cmAccept.wrap(buffer, offset));
            case ControlProtocol.CM_REJECT -> conductor.onCmReject(session, cmReject.wrap(buffer, offset));
            case ControlProtocol.CM_DISCONNECT -> conductor.onCmDisconnect(session, handle.wrap(buffer, offset));
            case ControlProtocol.CM_RELEASE -> conductor.onCmRelease(session, handle.wrap(buffer, offset));
            case ControlProtocol.ALLOC_MW -> conductor.onAllocMw(session, allocMw.wrap(buffer, offset));
            case ControlProtocol.DEALLOC_MW -> conductor.onDeallocMw(session, handle.wrap(buffer, offset));
            case ControlProtocol.CREATE_SRQ -> conductor.onCreateSrq(session, createSrq.wrap(buffer, offset));
            case ControlProtocol.MODIFY_SRQ -> conductor.onModifySrq(session, modifySrq.wrap(buffer, offset));
            case ControlProtocol.QUERY_SRQ -> conductor.onQuerySrq(session, handle.wrap(buffer, offset));
            case ControlProtocol.DESTROY_SRQ -> conductor.onDestroySrq(session, handle.wrap(buffer, offset));
            case ControlProtocol.OPEN_ASYNC_EVENTS ->
                conductor.onOpenAsyncEvents(session, openAsyncEvents.wrap(buffer, offset));
            default -> throw new IllegalStateException("command type " + type + " has a length and no handler");
        }
    }

    private static int codeOf(final RuntimeException ex)
    {
        if (ex instanceof ShmException)
        {
            return ControlProtocol.ERROR_BAD_MEMORY;
        }
        if (ex instanceof ClientSessions.UnknownHandleException)
        {
            return ControlProtocol.ERROR_UNKNOWN_HANDLE;
        }
        return ControlProtocol.ERROR_INVALID;
    }
}
