package io.rnic.client;

import io.rnic.cnc.CncFile;
import io.rnic.cnc.ControlProtocol;
import io.rnic.cnc.QpAttributesCodec;
import io.rnic.cnc.command.AllocMwFlyweight;
import io.rnic.cnc.command.AsyncEventsOpenedFlyweight;
import io.rnic.cnc.command.AttachFlyweight;
import io.rnic.cnc.command.AttachedFlyweight;
import io.rnic.cnc.command.CmAcceptFlyweight;
import io.rnic.cnc.command.CmConnectFlyweight;
import io.rnic.cnc.command.CmPortFlyweight;
import io.rnic.cnc.command.CmRejectFlyweight;
import io.rnic.cnc.command.CorrelatedMessageFlyweight;
import io.rnic.cnc.command.CqCreatedFlyweight;
import io.rnic.cnc.command.CreateCqFlyweight;
import io.rnic.cnc.command.CreateQpFlyweight;
import io.rnic.cnc.command.CreateSrqFlyweight;
import io.rnic.cnc.command.HandleFlyweight;
import io.rnic.cnc.command.MacResolvedFlyweight;
import io.rnic.cnc.command.ModifyQpFlyweight;
import io.rnic.cnc.command.ModifySrqFlyweight;
import io.rnic.cnc.command.MrRegisteredFlyweight;
import io.rnic.cnc.command.MwAllocatedFlyweight;
import io.rnic.cnc.command.OpenAsyncEventsFlyweight;
import io.rnic.cnc.command.QpCreatedFlyweight;
import io.rnic.cnc.command.QpModifiedFlyweight;
import io.rnic.cnc.command.RegisterMrFlyweight;
import io.rnic.cnc.command.ResolveMacFlyweight;
import io.rnic.cnc.command.SrqAttributesFlyweight;
import io.rnic.cnc.command.SrqCreatedFlyweight;
import io.rnic.verbs.QpAttributes;
import io.rnic.verbs.QpType;
import org.agrona.MutableDirectBuffer;

import java.util.concurrent.TimeUnit;

/**
 * The client's side of the commands, as Aeron's {@code DriverProxy}: one typed call per command, each written into
 * the connection's command buffer through its flyweight and answered by its typed answer. An answer returned as a
 * flyweight is valid until the next call; copy what you keep. Every call fails as {@link DriverConnection#call} does.
 */
final class DriverProxy
{
    private final DriverConnection connection;
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
    private final AttachedFlyweight attached = new AttachedFlyweight();
    private final HandleFlyweight handleAnswer = new HandleFlyweight();
    private final MrRegisteredFlyweight mrRegistered = new MrRegisteredFlyweight();
    private final CqCreatedFlyweight cqCreated = new CqCreatedFlyweight();
    private final QpCreatedFlyweight qpCreated = new QpCreatedFlyweight();
    private final QpModifiedFlyweight qpModified = new QpModifiedFlyweight();
    private final MacResolvedFlyweight macResolved = new MacResolvedFlyweight();
    private final MwAllocatedFlyweight mwAllocated = new MwAllocatedFlyweight();
    private final SrqCreatedFlyweight srqCreated = new SrqCreatedFlyweight();
    private final SrqAttributesFlyweight srqAttributes = new SrqAttributesFlyweight();
    private final AsyncEventsOpenedFlyweight asyncEventsOpened = new AsyncEventsOpenedFlyweight();

    DriverProxy(final DriverConnection connection)
    {
        this.connection = connection;
        final MutableDirectBuffer command = connection.commandBuffer();
        final MutableDirectBuffer answer = connection.answerBuffer();
        attach.wrap(command, 0);
        handle.wrap(command, 0);
        registerMr.wrap(command, 0);
        createCq.wrap(command, 0);
        createQp.wrap(command, 0);
        modifyQp.wrap(command, 0);
        resolveMac.wrap(command, 0);
        cmPort.wrap(command, 0);
        cmConnect.wrap(command, 0);
        cmAccept.wrap(command, 0);
        cmReject.wrap(command, 0);
        allocMw.wrap(command, 0);
        createSrq.wrap(command, 0);
        modifySrq.wrap(command, 0);
        openAsyncEvents.wrap(command, 0);
        attached.wrap(answer, 0);
        handleAnswer.wrap(answer, 0);
        mrRegistered.wrap(answer, 0);
        cqCreated.wrap(answer, 0);
        qpCreated.wrap(answer, 0);
        qpModified.wrap(answer, 0);
        macResolved.wrap(answer, 0);
        mwAllocated.wrap(answer, 0);
        srqCreated.wrap(answer, 0);
        srqAttributes.wrap(answer, 0);
        asyncEventsOpened.wrap(answer, 0);
    }

    /** Attaches with this build's protocol version; the driver's answer names its own. */
    synchronized AttachedFlyweight attach(final long pid, final long nonce)
    {
        attach.protocolVersion(CncFile.VERSION).pid(pid).nonce(nonce);
        connection.call(ControlProtocol.ATTACH, AttachFlyweight.LENGTH, ControlProtocol.ATTACHED);
        return attached;
    }

    synchronized void detach()
    {
        connection.call(ControlProtocol.DETACH, CorrelatedMessageFlyweight.LENGTH, ControlProtocol.OPERATION_SUCCEEDED);
    }

    /** The new PD's handle. */
    synchronized int allocPd()
    {
        connection.call(ControlProtocol.ALLOC_PD, CorrelatedMessageFlyweight.LENGTH, ControlProtocol.HANDLE);
        return handleAnswer.handle();
    }

    synchronized void deallocPd(final int pdHandle)
    {
        onHandle(ControlProtocol.DEALLOC_PD, pdHandle);
    }

    synchronized MrRegisteredFlyweight registerMr(
        final int pdHandle, final long memfdToken, final long fileLengthBytes, final long fileOffsetBytes,
        final long lengthBytes, final long iova, final int accessFlags)
    {
        registerMr.pdHandle(pdHandle).accessFlags(accessFlags).memfdToken(memfdToken).fileLengthBytes(fileLengthBytes)
            .fileOffsetBytes(fileOffsetBytes).lengthBytes(lengthBytes).iova(iova);
        connection.call(ControlProtocol.REG_MR, RegisterMrFlyweight.LENGTH, ControlProtocol.MR_REGISTERED);
        return mrRegistered;
    }

    synchronized void deregMr(final int mrHandle)
    {
        onHandle(ControlProtocol.DEREG_MR, mrHandle);
    }

    synchronized MwAllocatedFlyweight allocMw(final int pdHandle, final int mwType)
    {
        allocMw.pdHandle(pdHandle).mwType(mwType);
        connection.call(ControlProtocol.ALLOC_MW, AllocMwFlyweight.LENGTH, ControlProtocol.MW_ALLOCATED);
        return mwAllocated;
    }

    synchronized void deallocMw(final int mwHandle)
    {
        onHandle(ControlProtocol.DEALLOC_MW, mwHandle);
    }

    synchronized CqCreatedFlyweight createCq(final long memfdToken, final long fileLengthBytes, final int entries)
    {
        createCq.memfdToken(memfdToken).fileLengthBytes(fileLengthBytes).entries(entries);
        connection.call(ControlProtocol.CREATE_CQ, CreateCqFlyweight.LENGTH, ControlProtocol.CQ_CREATED);
        return cqCreated;
    }

    synchronized void destroyCq(final int cqHandle)
    {
        onHandle(ControlProtocol.DESTROY_CQ, cqHandle);
    }

    /** {@code srqHandle} 0: none. */
    synchronized QpCreatedFlyweight createQp(
        final int pdHandle, final int sendCqHandle, final int recvCqHandle, final int srqHandle, final QpType type,
        final int maxSendWr, final int maxRecvWr, final int maxSendSge, final int maxRecvSge, final boolean signalAll,
        final long memfdToken, final long fileLengthBytes)
    {
        createQp.pdHandle(pdHandle).sendCqHandle(sendCqHandle).recvCqHandle(recvCqHandle).srqHandle(srqHandle)
            .qpType(type.value()).maxSendWr(maxSendWr).maxRecvWr(maxRecvWr).maxSendSge(maxSendSge)
            .maxRecvSge(maxRecvSge).signalAll(signalAll ? 1 : 0).memfdToken(memfdToken).fileLengthBytes(fileLengthBytes);
        connection.call(ControlProtocol.CREATE_QP, CreateQpFlyweight.LENGTH, ControlProtocol.QP_CREATED);
        return qpCreated;
    }

    /** The QP's new state ({@code ibv_qp_state}). */
    synchronized int modifyQp(final int qpHandle, final QpAttributes attributes, final int attrMask)
    {
        modifyQp.qpHandle(qpHandle).attrMask(attrMask);
        QpAttributesCodec.encode(attributes, modifyQp);
        connection.call(ControlProtocol.MODIFY_QP, ModifyQpFlyweight.LENGTH, ControlProtocol.QP_MODIFIED);
        return qpModified.qpState();
    }

    synchronized void destroyQp(final int qpHandle)
    {
        onHandle(ControlProtocol.DESTROY_QP, qpHandle);
    }

    /** The neighbour's MAC; the answer is awaited the driver's wait longer. */
    synchronized long resolveMac(
        final int sgidIndex, final int timeoutMs, final boolean ipv4, final long addressHigh, final long addressLow)
    {
        resolveMac.sgidIndex(sgidIndex).timeoutMs(timeoutMs).ipv4(ipv4 ? 1 : 0).addressHigh(addressHigh)
            .addressLow(addressLow);
        connection.callWaiting(TimeUnit.MILLISECONDS.toNanos(timeoutMs), ControlProtocol.RESOLVE_MAC,
            ResolveMacFlyweight.LENGTH, ControlProtocol.MAC_RESOLVED);
        return macResolved.mac();
    }

    synchronized SrqCreatedFlyweight createSrq(
        final int pdHandle, final int maxWr, final int maxSge, final int srqLimit, final long memfdToken,
        final long fileLengthBytes)
    {
        createSrq.pdHandle(pdHandle).maxWr(maxWr).maxSge(maxSge).srqLimit(srqLimit).memfdToken(memfdToken)
            .fileLengthBytes(fileLengthBytes);
        connection.call(ControlProtocol.CREATE_SRQ, CreateSrqFlyweight.LENGTH, ControlProtocol.SRQ_CREATED);
        return srqCreated;
    }

    synchronized void modifySrq(final int srqHandle, final int attrMask, final int srqLimit)
    {
        modifySrq.srqHandle(srqHandle).attrMask(attrMask).srqLimit(srqLimit);
        connection.call(ControlProtocol.MODIFY_SRQ, ModifySrqFlyweight.LENGTH, ControlProtocol.OPERATION_SUCCEEDED);
    }

    synchronized SrqAttributesFlyweight querySrq(final int srqHandle)
    {
        handle.handle(srqHandle);
        connection.call(ControlProtocol.QUERY_SRQ, HandleFlyweight.LENGTH, ControlProtocol.SRQ_ATTRIBUTES);
        return srqAttributes;
    }

    synchronized void destroySrq(final int srqHandle)
    {
        onHandle(ControlProtocol.DESTROY_SRQ, srqHandle);
    }

    /** The ring's capacity. */
    synchronized int openAsyncEvents(final long memfdToken, final long fileLengthBytes)
    {
        openAsyncEvents.memfdToken(memfdToken).fileLengthBytes(fileLengthBytes);
        connection.call(ControlProtocol.OPEN_ASYNC_EVENTS, OpenAsyncEventsFlyweight.LENGTH,
            ControlProtocol.ASYNC_EVENTS_OPENED);
        return asyncEventsOpened.capacity();
    }

    synchronized void cmListen(final int port)
    {
        cmPort.port(port);
        connection.call(ControlProtocol.CM_LISTEN, CmPortFlyweight.LENGTH, ControlProtocol.OPERATION_SUCCEEDED);
    }

    synchronized void cmStopListen(final int port)
    {
        cmPort.port(port);
        connection.call(ControlProtocol.CM_STOP_LISTEN, CmPortFlyweight.LENGTH, ControlProtocol.OPERATION_SUCCEEDED);
    }

    /** The new CM id's handle. */
    synchronized int cmConnect(
        final int qpHandle, final int sgidIndex, final long peerGidHigh, final long peerGidLow, final int port,
        final int responderResources, final int initiatorDepth, final int typeOfService, final byte[] privateData)
    {
        cmConnect.qpHandle(qpHandle).sgidIndex(sgidIndex).peerGidHigh(peerGidHigh).peerGidLow(peerGidLow).port(port)
            .responderResources(responderResources).initiatorDepth(initiatorDepth).typeOfService(typeOfService)
            .privateData(privateData);
        connection.call(ControlProtocol.CM_CONNECT, CmConnectFlyweight.LENGTH, ControlProtocol.HANDLE);
        return handleAnswer.handle();
    }

    synchronized void cmAccept(
        final int cmIdHandle, final int qpHandle, final int responderResources, final int initiatorDepth,
        final byte[] privateData)
    {
        cmAccept.cmIdHandle(cmIdHandle).qpHandle(qpHandle).responderResources(responderResources)
            .initiatorDepth(initiatorDepth).privateData(privateData);
        connection.call(ControlProtocol.CM_ACCEPT, CmAcceptFlyweight.LENGTH, ControlProtocol.OPERATION_SUCCEEDED);
    }

    synchronized void cmReject(final int cmIdHandle, final byte[] privateData)
    {
        cmReject.cmIdHandle(cmIdHandle).privateData(privateData);
        connection.call(ControlProtocol.CM_REJECT, CmRejectFlyweight.LENGTH, ControlProtocol.OPERATION_SUCCEEDED);
    }

    synchronized void cmDisconnect(final int cmIdHandle)
    {
        onHandle(ControlProtocol.CM_DISCONNECT, cmIdHandle);
    }

    synchronized void cmRelease(final int cmIdHandle)
    {
        onHandle(ControlProtocol.CM_RELEASE, cmIdHandle);
    }

    private void onHandle(final int type, final int objectHandle)
    {
        handle.handle(objectHandle);
        connection.call(type, HandleFlyweight.LENGTH, ControlProtocol.OPERATION_SUCCEEDED);
    }
}
