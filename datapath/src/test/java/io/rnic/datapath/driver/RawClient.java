package io.rnic.datapath.driver;

import io.rnic.cnc.CncFile;
import io.rnic.cnc.ControlProtocol;
import io.rnic.cnc.command.AsyncEventsOpenedFlyweight;
import io.rnic.cnc.command.AttachFlyweight;
import io.rnic.cnc.command.AttachedFlyweight;
import io.rnic.cnc.command.CmPortFlyweight;
import io.rnic.cnc.command.CmRejectFlyweight;
import io.rnic.cnc.command.CorrelatedMessageFlyweight;
import io.rnic.cnc.command.CqCreatedFlyweight;
import io.rnic.cnc.command.CreateCqFlyweight;
import io.rnic.cnc.command.CreateQpFlyweight;
import io.rnic.cnc.command.CreateSrqFlyweight;
import io.rnic.cnc.command.ErrorAnswerFlyweight;
import io.rnic.cnc.command.HandleFlyweight;
import io.rnic.cnc.command.MacResolvedFlyweight;
import io.rnic.cnc.command.ModifySrqFlyweight;
import io.rnic.cnc.command.MrRegisteredFlyweight;
import io.rnic.cnc.command.MwAllocatedFlyweight;
import io.rnic.cnc.command.OpenAsyncEventsFlyweight;
import io.rnic.cnc.command.QpCreatedFlyweight;
import io.rnic.cnc.command.QpModifiedFlyweight;
import io.rnic.cnc.command.RegisterMrFlyweight;
import io.rnic.cnc.command.SrqAttributesFlyweight;
import io.rnic.cnc.command.SrqCreatedFlyweight;
import io.rnic.shm.FdSocket;
import io.rnic.shm.ShmException;
import io.rnic.verbs.QpType;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.broadcast.BroadcastReceiver;
import org.agrona.concurrent.broadcast.CopyBroadcastReceiver;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;

import java.nio.ByteBuffer;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A driver's client by hand, without the client library, for the tests that must say what the library never would:
 * typed commands into the ring, the answer picked from the broadcast and shown as {@code result v0 v1 ...} (the
 * answer's fields in their order) or {@code error CODE: message}; its own connection to {@code fds.sock}, hello
 * (client id, nonce) sent.
 */
final class RawClient implements AutoCloseable
{
    final long clientId;
    final long nonce;
    final FdSocket socket;
    private final ManyToOneRingBuffer toDriver;
    private final CopyBroadcastReceiver answers;
    private final UnsafeBuffer command = new UnsafeBuffer(ByteBuffer.allocateDirect(
        ControlProtocol.MAX_MESSAGE_LENGTH));
    private final CorrelatedMessageFlyweight header = new CorrelatedMessageFlyweight().wrap(command, 0);
    private long correlationId;
    private String answer;

    RawClient(final CncFile cnc, final Path directory, final long clientId)
    {
        this(cnc, directory, clientId, clientId * 31);
    }

    RawClient(final CncFile cnc, final Path directory, final long clientId, final long nonce)
    {
        this.clientId = clientId;
        this.nonce = nonce;
        this.toDriver = new ManyToOneRingBuffer(cnc.toDriverBuffer());
        this.answers = new CopyBroadcastReceiver(new BroadcastReceiver(cnc.toClientsBuffer()),
            new UnsafeBuffer(ByteBuffer.allocateDirect(ControlProtocol.MAX_MESSAGE_LENGTH + 4096)));
        this.socket = FdSocket.connect(directory.resolve(ControlProtocol.FD_SOCKET_FILE_NAME));
        assertTrue(socket.send(clientId, nonce, -1), "hello");
    }

    void attach()
    {
        final String attached = attach(ProcessHandle.current().pid(), nonce, CncFile.VERSION);
        assertTrue(attached.startsWith("result "), attached);
    }

    /** {@code nonce} 0: none. */
    String attach(final long pid, final long nonce, final int protocolVersion)
    {
        new AttachFlyweight().wrap(command, 0).protocolVersion(protocolVersion).pid(pid).nonce(nonce);
        return call(ControlProtocol.ATTACH);
    }

    String allocPd()
    {
        return call(ControlProtocol.ALLOC_PD);
    }

    String detach()
    {
        return call(ControlProtocol.DETACH);
    }

    String createCq(final long memfdToken, final long fileLengthBytes, final int entries)
    {
        new CreateCqFlyweight().wrap(command, 0).memfdToken(memfdToken).fileLengthBytes(fileLengthBytes)
            .entries(entries);
        return call(ControlProtocol.CREATE_CQ);
    }

    String registerMr(
        final int pdHandle, final long memfdToken, final long fileLengthBytes, final long fileOffsetBytes,
        final long lengthBytes, final long iova, final int accessFlags)
    {
        new RegisterMrFlyweight().wrap(command, 0).pdHandle(pdHandle).memfdToken(memfdToken)
            .fileLengthBytes(fileLengthBytes).fileOffsetBytes(fileOffsetBytes).lengthBytes(lengthBytes).iova(iova)
            .accessFlags(accessFlags);
        return call(ControlProtocol.REG_MR);
    }

    /** An RC or UD QP of {@code wr} requests of one SGE each way; {@code srqHandle} 0: none. */
    String createQp(
        final int pdHandle, final int cqHandle, final int srqHandle, final QpType type, final int wr,
        final long memfdToken, final long fileLengthBytes)
    {
        new CreateQpFlyweight().wrap(command, 0).pdHandle(pdHandle).sendCqHandle(cqHandle).recvCqHandle(cqHandle)
            .srqHandle(srqHandle).qpType(type.value()).maxSendWr(wr).maxRecvWr(srqHandle == 0 ? wr : 1).maxSendSge(1)
            .maxRecvSge(1).signalAll(0).memfdToken(memfdToken).fileLengthBytes(fileLengthBytes);
        return call(ControlProtocol.CREATE_QP);
    }

    String createSrq(
        final int pdHandle, final int maxWr, final int maxSge, final int srqLimit, final long memfdToken,
        final long fileLengthBytes)
    {
        new CreateSrqFlyweight().wrap(command, 0).pdHandle(pdHandle).maxWr(maxWr).maxSge(maxSge).srqLimit(srqLimit)
            .memfdToken(memfdToken).fileLengthBytes(fileLengthBytes);
        return call(ControlProtocol.CREATE_SRQ);
    }

    String modifySrq(final int srqHandle, final int attrMask, final int srqLimit)
    {
        new ModifySrqFlyweight().wrap(command, 0).srqHandle(srqHandle).attrMask(attrMask).srqLimit(srqLimit);
        return call(ControlProtocol.MODIFY_SRQ);
    }

    String openAsyncEvents(final long memfdToken, final long fileLengthBytes)
    {
        new OpenAsyncEventsFlyweight().wrap(command, 0).memfdToken(memfdToken).fileLengthBytes(fileLengthBytes);
        return call(ControlProtocol.OPEN_ASYNC_EVENTS);
    }

    String cmListen(final int port)
    {
        new CmPortFlyweight().wrap(command, 0).port(port);
        return call(ControlProtocol.CM_LISTEN);
    }

    /** A REJ without private data. */
    String cmReject(final int cmIdHandle)
    {
        new CmRejectFlyweight().wrap(command, 0).cmIdHandle(cmIdHandle).privateData(new byte[0]);
        return call(ControlProtocol.CM_REJECT);
    }

    /** A command of one handle: {@code DESTROY_SRQ}, {@code QUERY_SRQ}, ... */
    String onHandle(final int type, final int handle)
    {
        new HandleFlyweight().wrap(command, 0).handle(handle);
        return call(type);
    }

    void sendFd(final long token, final int fd)
    {
        assertTrue(socket.send(clientId, token, fd));
    }

    /**
     * Sends {@code fd} with {@code token} as a hostile client may, to a driver that may have closed this connection
     * already (after a detach, or a hello it refused): true when the socket took it.
     */
    boolean trySendFd(final long token, final int fd)
    {
        try
        {
            return socket.send(clientId, token, fd);
        }
        catch (final ShmException closed)
        {
            return false;
        }
    }

    /** Sends the command of {@code type} written in the command buffer, of its type's length. */
    private String call(final int type)
    {
        correlationId++;
        header.header(clientId, correlationId);
        assertTrue(toDriver.write(type, command, 0, ControlProtocol.commandLength(type)));
        answer = null;
        final long deadlineNs = System.nanoTime() + 10_000_000_000L;
        while (answer == null)
        {
            assertTrue(System.nanoTime() < deadlineNs, "an answer to " + ControlProtocol.commandName(type));
            if (answers.receive(this::onAnswer) == 0)
            {
                Thread.onSpinWait();
            }
        }
        return answer;
    }

    private void onAnswer(final int type, final MutableDirectBuffer buffer, final int offset, final int length)
    {
        final CorrelatedMessageFlyweight answerHeader = new CorrelatedMessageFlyweight().wrap(buffer, offset);
        if (answerHeader.clientId() != clientId || answerHeader.correlationId() != correlationId)
        {
            return;
        }
        answer = describe(type, buffer, offset, length);
    }

    /** An answer as {@code result v0 v1 ...} or {@code error CODE: message}. */
    static String describe(final int type, final MutableDirectBuffer buffer, final int offset, final int length)
    {
        if (type == ControlProtocol.ERROR)
        {
            final ErrorAnswerFlyweight error = new ErrorAnswerFlyweight().wrap(buffer, offset);
            assertTrue(error.isWhole(length), "an error of " + length + " bytes");
            return "error " + error.code() + ": " + error.message();
        }
        assertTrue(length == ControlProtocol.answerLength(type), "an answer of type " + type + " of " + length +
            " bytes");
        return switch (type)
        {
            case ControlProtocol.OPERATION_SUCCEEDED -> "result done";
            case ControlProtocol.ATTACHED -> "result " + new AttachedFlyweight().wrap(buffer, offset).clientTimeoutNs();
            case ControlProtocol.HANDLE -> "result " + new HandleFlyweight().wrap(buffer, offset).handle();
            case ControlProtocol.CQ_CREATED ->
            {
                final CqCreatedFlyweight cq = new CqCreatedFlyweight().wrap(buffer, offset);
                yield "result " + cq.cqHandle() + " " + cq.capacity();
            }
            case ControlProtocol.QP_CREATED ->
            {
                final QpCreatedFlyweight qp = new QpCreatedFlyweight().wrap(buffer, offset);
                yield "result " + qp.qpHandle() + " " + qp.qpNum();
            }
            case ControlProtocol.MR_REGISTERED ->
            {
                final MrRegisteredFlyweight mr = new MrRegisteredFlyweight().wrap(buffer, offset);
                yield "result " + mr.mrHandle() + " " + Integer.toUnsignedString(mr.lKey()) + " " +
                    Integer.toUnsignedString(mr.rKey());
            }
            case ControlProtocol.SRQ_CREATED ->
            {
                final SrqCreatedFlyweight srq = new SrqCreatedFlyweight().wrap(buffer, offset);
                yield "result " + srq.srqHandle() + " " + srq.maxWr();
            }
            case ControlProtocol.SRQ_ATTRIBUTES ->
            {
                final SrqAttributesFlyweight srq = new SrqAttributesFlyweight().wrap(buffer, offset);
                yield "result " + srq.maxWr() + " " + srq.maxSge() + " " + srq.srqLimit();
            }
            case ControlProtocol.QP_MODIFIED -> "result " + new QpModifiedFlyweight().wrap(buffer, offset).qpState();
            case ControlProtocol.MAC_RESOLVED -> "result " + new MacResolvedFlyweight().wrap(buffer, offset).mac();
            case ControlProtocol.ASYNC_EVENTS_OPENED ->
                "result " + new AsyncEventsOpenedFlyweight().wrap(buffer, offset).capacity();
            case ControlProtocol.MW_ALLOCATED ->
            {
                final MwAllocatedFlyweight mw = new MwAllocatedFlyweight().wrap(buffer, offset);
                yield "result " + mw.mwHandle() + " " + Integer.toUnsignedString(mw.rKey());
            }
            default -> throw new AssertionError("an answer of unknown type " + type);
        };
    }

    public void close()
    {
        socket.close();
    }
}
