package io.rnic.datapath.driver;

import io.rnic.cnc.CncFile;
import io.rnic.cnc.ControlProtocol;
import io.rnic.cnc.command.AsyncEventsOpenedFlyweight;
import io.rnic.cnc.command.AttachedFlyweight;
import io.rnic.cnc.command.CorrelatedMessageFlyweight;
import io.rnic.cnc.command.CqCreatedFlyweight;
import io.rnic.cnc.command.ErrorAnswerFlyweight;
import io.rnic.cnc.command.HandleFlyweight;
import io.rnic.cnc.command.MacResolvedFlyweight;
import io.rnic.cnc.command.MrRegisteredFlyweight;
import io.rnic.cnc.command.MwAllocatedFlyweight;
import io.rnic.cnc.command.QpCreatedFlyweight;
import io.rnic.cnc.command.QpModifiedFlyweight;
import io.rnic.cnc.command.SrqAttributesFlyweight;
import io.rnic.cnc.command.SrqCreatedFlyweight;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.broadcast.BroadcastTransmitter;

import java.nio.ByteBuffer;

/**
 * The driver's side of the answers, as Aeron's {@code ClientProxy}: one typed answer per command's result shape, each
 * written through its flyweight and transmitted on the broadcast buffer with the client's id and the command's
 * correlation id. Conductor thread only.
 */
final class ClientProxy
{
    private final BroadcastTransmitter toClients;
    private final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(ControlProtocol.MAX_MESSAGE_LENGTH));
    private final CorrelatedMessageFlyweight succeeded = new CorrelatedMessageFlyweight().wrap(buffer, 0);
    private final ErrorAnswerFlyweight error = new ErrorAnswerFlyweight().wrap(buffer, 0);
    private final AttachedFlyweight attached = new AttachedFlyweight().wrap(buffer, 0);
    private final HandleFlyweight handle = new HandleFlyweight().wrap(buffer, 0);
    private final MrRegisteredFlyweight mrRegistered = new MrRegisteredFlyweight().wrap(buffer, 0);
    private final CqCreatedFlyweight cqCreated = new CqCreatedFlyweight().wrap(buffer, 0);
    private final QpCreatedFlyweight qpCreated = new QpCreatedFlyweight().wrap(buffer, 0);
    private final QpModifiedFlyweight qpModified = new QpModifiedFlyweight().wrap(buffer, 0);
    private final MacResolvedFlyweight macResolved = new MacResolvedFlyweight().wrap(buffer, 0);
    private final MwAllocatedFlyweight mwAllocated = new MwAllocatedFlyweight().wrap(buffer, 0);
    private final SrqCreatedFlyweight srqCreated = new SrqCreatedFlyweight().wrap(buffer, 0);
    private final SrqAttributesFlyweight srqAttributes = new SrqAttributesFlyweight().wrap(buffer, 0);
    private final AsyncEventsOpenedFlyweight asyncEventsOpened = new AsyncEventsOpenedFlyweight().wrap(buffer, 0);

    ClientProxy(final BroadcastTransmitter toClients)
    {
        this.toClients = toClients;
    }

    void operationSucceeded(final long clientId, final long correlationId)
    {
        succeeded.header(clientId, correlationId);
        transmit(ControlProtocol.OPERATION_SUCCEEDED, CorrelatedMessageFlyweight.LENGTH);
    }

    /** A refusal naming the verbs' {@code errno} (0: none). */
    void error(final long clientId, final long correlationId, final int code, final int errno, final String message)
    {
        error.header(clientId, correlationId);
        error.code(code).errnoValue(errno).message(message);
        transmit(ControlProtocol.ERROR, error.length());
    }

    void attached(final long clientId, final long correlationId, final long clientTimeoutNs)
    {
        attached.header(clientId, correlationId);
        attached.clientTimeoutNs(clientTimeoutNs).protocolVersion(CncFile.VERSION);
        transmit(ControlProtocol.ATTACHED, AttachedFlyweight.LENGTH);
    }

    void handle(final long clientId, final long correlationId, final int objectHandle)
    {
        handle.header(clientId, correlationId);
        handle.handle(objectHandle);
        transmit(ControlProtocol.HANDLE, HandleFlyweight.LENGTH);
    }

    void mrRegistered(final long clientId, final long correlationId, final int mrHandle, final int lKey, final int rKey)
    {
        mrRegistered.header(clientId, correlationId);
        mrRegistered.mrHandle(mrHandle).lKey(lKey).rKey(rKey);
        transmit(ControlProtocol.MR_REGISTERED, MrRegisteredFlyweight.LENGTH);
    }

    void cqCreated(final long clientId, final long correlationId, final int cqHandle, final int capacity)
    {
        cqCreated.header(clientId, correlationId);
        cqCreated.cqHandle(cqHandle).capacity(capacity);
        transmit(ControlProtocol.CQ_CREATED, CqCreatedFlyweight.LENGTH);
    }

    void qpCreated(final long clientId, final long correlationId, final int qpHandle, final int qpNum)
    {
        qpCreated.header(clientId, correlationId);
        qpCreated.qpHandle(qpHandle).qpNum(qpNum);
        transmit(ControlProtocol.QP_CREATED, QpCreatedFlyweight.LENGTH);
    }

    void qpModified(final long clientId, final long correlationId, final int qpState)
    {
        qpModified.header(clientId, correlationId);
        qpModified.qpState(qpState);
        transmit(ControlProtocol.QP_MODIFIED, QpModifiedFlyweight.LENGTH);
    }

    void macResolved(final long clientId, final long correlationId, final long mac)
    {
        macResolved.header(clientId, correlationId);
        macResolved.mac(mac);
        transmit(ControlProtocol.MAC_RESOLVED, MacResolvedFlyweight.LENGTH);
    }

    void mwAllocated(final long clientId, final long correlationId, final int mwHandle, final int rKey)
    {
        mwAllocated.header(clientId, correlationId);
        mwAllocated.mwHandle(mwHandle).rKey(rKey);
        transmit(ControlProtocol.MW_ALLOCATED, MwAllocatedFlyweight.LENGTH);
    }

    void srqCreated(final long clientId, final long correlationId, final int srqHandle, final int maxWr)
    {
        srqCreated.header(clientId, correlationId);
        srqCreated.srqHandle(srqHandle).maxWr(maxWr);
        transmit(ControlProtocol.SRQ_CREATED, SrqCreatedFlyweight.LENGTH);
    }

    void srqAttributes(
        final long clientId, final long correlationId, final int maxWr, final int maxSge, final int srqLimit)
    {
        srqAttributes.header(clientId, correlationId);
        srqAttributes.maxWr(maxWr).maxSge(maxSge).srqLimit(srqLimit);
        transmit(ControlProtocol.SRQ_ATTRIBUTES, SrqAttributesFlyweight.LENGTH);
    }

    void asyncEventsOpened(final long clientId, final long correlationId, final int capacity)
    {
        asyncEventsOpened.header(clientId, correlationId);
        asyncEventsOpened.capacity(capacity);
        transmit(ControlProtocol.ASYNC_EVENTS_OPENED, AsyncEventsOpenedFlyweight.LENGTH);
    }

    private void transmit(final int type, final int length)
    {
        toClients.transmit(type, buffer, 0, length);
    }
}
