package io.rnic.cnc;

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
import io.rnic.cnc.command.ErrorAnswerFlyweight;
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
import io.rnic.verbs.EventRing;

/**
 * The messages between clients and the driver: every command and every answer is a fixed layout of named fields, one
 * flyweight each in {@link io.rnic.cnc.command} (a {@link CorrelatedMessageFlyweight} header naming the client and the
 * command's correlation id, then the fields), of exactly the length its type gives ({@link #commandLength}); the
 * error answer alone ends with a line of bounded length. Little-endian, no allocation to read a message. The driver
 * answers each command (but {@link #KEEPALIVE}) with the answer of that command's shape or an {@link #ERROR}.
 * {@code docs/driver-protocol.md} is the specification, {@code driver_protocol.h} its C header.
 * <p>
 * Memory travels beside the ring: a client connects to the driver's {@link #FD_SOCKET_FILE_NAME} once, sends
 * {@code (client id, nonce)} without a descriptor, then {@link #ATTACH} with the same nonce, which links that
 * connection to the client. For each memfd it then sends {@code (client id, sequence)} with the descriptor attached
 * ({@code io.rnic.shm.FdSocket}), a sequence of its own that it never reuses, and names that sequence, the
 * <em>token</em>, in the command that uses the memory ({@link #REG_MR}, {@link #CREATE_CQ}, {@link #CREATE_QP},
 * {@link #CREATE_SRQ}, {@link #OPEN_ASYNC_EVENTS}).
 * The driver takes a token only from the descriptors that came over that client's own connection.
 * <p>
 * An error names the errno of the verbs refusal behind it when the verbs gave one, so that a client throws what an
 * embedded endpoint would ({@code VerbsException.errno()}: EBUSY, EINVAL, EADDRINUSE, ...).
 */
public final class ControlProtocol
{
    // client to driver (message type ids of the command ring), each with its flyweight
    /** {@link AttachFlyweight} → {@link #ATTACHED}. A client's first command, refused for another protocol version. */
    public static final int ATTACH = 1;
    /** {@link CorrelatedMessageFlyweight}, no answer: the client is alive. */
    public static final int KEEPALIVE = 2;
    /** {@link CorrelatedMessageFlyweight}: everything of the client is destroyed → {@link #OPERATION_SUCCEEDED}. */
    public static final int DETACH = 3;
    /** {@link CorrelatedMessageFlyweight} → {@link #HANDLE}: the PD. */
    public static final int ALLOC_PD = 4;
    /** {@link HandleFlyweight}: the PD → {@link #OPERATION_SUCCEEDED}. */
    public static final int DEALLOC_PD = 5;
    /** {@link RegisterMrFlyweight} → {@link #MR_REGISTERED}. */
    public static final int REG_MR = 6;
    /** {@link HandleFlyweight}: the MR → {@link #OPERATION_SUCCEEDED}. */
    public static final int DEREG_MR = 7;
    /** {@link CreateCqFlyweight} → {@link #CQ_CREATED}. */
    public static final int CREATE_CQ = 8;
    /** {@link HandleFlyweight}: the CQ → {@link #OPERATION_SUCCEEDED}. */
    public static final int DESTROY_CQ = 9;
    /** {@link CreateQpFlyweight} → {@link #QP_CREATED}. */
    public static final int CREATE_QP = 10;
    /** {@link ModifyQpFlyweight} → {@link #QP_MODIFIED}. */
    public static final int MODIFY_QP = 11;
    /** {@link HandleFlyweight}: the QP → {@link #OPERATION_SUCCEEDED}. */
    public static final int DESTROY_QP = 12;
    /**
     * {@link ResolveMacFlyweight} → {@link #MAC_RESOLVED}, late: the driver waits for the ARP / neighbour answer up to
     * the timeout, at most {@link #MAX_RESOLVE_MS}; none is {@code EHOSTUNREACH}.
     */
    public static final int RESOLVE_MAC = 13;
    /**
     * {@link CmPortFlyweight} → {@link #OPERATION_SUCCEEDED}. The driver's RDMA CM accepts REQs to this RDMA_PS_TCP
     * port for this client; another client's port is refused with {@code EADDRINUSE}.
     */
    public static final int CM_LISTEN = 14;
    /** {@link CmPortFlyweight} → {@link #OPERATION_SUCCEEDED}. */
    public static final int CM_STOP_LISTEN = 15;
    /** {@link CmConnectFlyweight} → {@link #HANDLE}: the CM id. The peer's MAC must be known, the QP in RESET or INIT. */
    public static final int CM_CONNECT = 16;
    /** {@link CmAcceptFlyweight} → {@link #OPERATION_SUCCEEDED}. */
    public static final int CM_ACCEPT = 17;
    /** {@link CmRejectFlyweight} → {@link #OPERATION_SUCCEEDED}. */
    public static final int CM_REJECT = 18;
    /** {@link HandleFlyweight}: the CM id → {@link #OPERATION_SUCCEEDED}. */
    public static final int CM_DISCONNECT = 19;
    /**
     * {@link HandleFlyweight}: the CM id → {@link #OPERATION_SUCCEEDED}: the connection ends (DREQ or REJ as its state
     * asks); the QP stays the client's.
     */
    public static final int CM_RELEASE = 20;
    // 21 was CM_POLL: the driver pushes a client's CM id changes into its event ring instead (OPEN_ASYNC_EVENTS)
    /** {@link AllocMwFlyweight} → {@link #MW_ALLOCATED}. */
    public static final int ALLOC_MW = 22;
    /** {@link HandleFlyweight}: the MW → {@link #OPERATION_SUCCEEDED}. */
    public static final int DEALLOC_MW = 23;
    /**
     * {@link CreateSrqFlyweight} → {@link #SRQ_CREATED}. The driver formats the SRQ's receive ring in the file; the
     * client posts into it and the engine takes from it.
     */
    public static final int CREATE_SRQ = 24;
    /** {@link ModifySrqFlyweight} → {@link #OPERATION_SUCCEEDED}. */
    public static final int MODIFY_SRQ = 25;
    /** {@link HandleFlyweight}: the SRQ → {@link #SRQ_ATTRIBUTES}. */
    public static final int QUERY_SRQ = 26;
    /** {@link HandleFlyweight}: the SRQ → {@link #OPERATION_SUCCEEDED}; refused (EBUSY) while its QPs remain. */
    public static final int DESTROY_SRQ = 27;
    /**
     * {@link OpenAsyncEventsFlyweight} → {@link #ASYNC_EVENTS_OPENED}. The driver formats an {@link EventRing} in the
     * file ({@link EventRing#fileLength} bytes) and writes the client's asynchronous events and its CM ids' changes
     * ({@link CmIdCodec}) into it, named by the client's own handles, waking the client on its futex word. Once per
     * client, before its first CM command; without it the client's events are counted as dropped.
     */
    public static final int OPEN_ASYNC_EVENTS = 28;

    /** The driver's AF_UNIX socket in its directory, mode 0660 like the CnC file: clients pass memfds over it. */
    public static final String FD_SOCKET_FILE_NAME = "fds.sock";

    // driver to clients (message type ids of the broadcast buffer), each with its flyweight
    /** {@link CorrelatedMessageFlyweight}: done, nothing to tell. */
    public static final int OPERATION_SUCCEEDED = 101;
    /** {@link ErrorAnswerFlyweight}: refused. */
    public static final int ERROR = 102;
    /** {@link AttachedFlyweight}. */
    public static final int ATTACHED = 103;
    /** {@link HandleFlyweight}: the handle of what {@link #ALLOC_PD} or {@link #CM_CONNECT} made. */
    public static final int HANDLE = 104;
    /** {@link MrRegisteredFlyweight}. */
    public static final int MR_REGISTERED = 105;
    /** {@link CqCreatedFlyweight}. */
    public static final int CQ_CREATED = 106;
    /** {@link QpCreatedFlyweight}. */
    public static final int QP_CREATED = 107;
    /** {@link QpModifiedFlyweight}. */
    public static final int QP_MODIFIED = 108;
    /** {@link MacResolvedFlyweight}. */
    public static final int MAC_RESOLVED = 109;
    /** {@link MwAllocatedFlyweight}. */
    public static final int MW_ALLOCATED = 110;
    /** {@link SrqCreatedFlyweight}. */
    public static final int SRQ_CREATED = 111;
    /** {@link SrqAttributesFlyweight}. */
    public static final int SRQ_ATTRIBUTES = 112;
    /** {@link AsyncEventsOpenedFlyweight}. */
    public static final int ASYNC_EVENTS_OPENED = 113;
    // 114 was CM_ID_CHANGE, CM_POLL's answer

    // limits of the commands' fields, written once: the client checks them before sending, the driver on receipt
    /** The longest a driver waits for a neighbour on a client's behalf: the client waits this plus its timeout. */
    public static final int MAX_RESOLVE_MS = 10_000;
    /** A CQ's most entries. */
    public static final int MAX_CQ_ENTRIES = 1 << 22;
    /** A QP's most send or receive work requests. */
    public static final int MAX_QP_WR = 1 << 16;
    /** The longest memfd a region may lie in. */
    public static final long MAX_MEMORY_FILE_BYTES = 1L << 40;
    /** The longest command or answer: an error with the longest line. */
    public static final int MAX_MESSAGE_LENGTH = ErrorAnswerFlyweight.MAX_LENGTH;

    // error codes, errno-like
    /** A handle that does not exist or belongs to another client (ibverbs would not let it be named). */
    public static final int ERROR_UNKNOWN_HANDLE = 2;
    /** Memory the driver cannot map: an unknown token, not a sealed memfd, of another size. */
    public static final int ERROR_BAD_MEMORY = 14;
    /** The command is malformed (its length is not its type's) or its fields out of range. */
    public static final int ERROR_INVALID = 22;
    /** The verbs refused it (the message says why). */
    public static final int ERROR_VERBS = 95;
    /** A command type the driver does not know. */
    public static final int ERROR_UNKNOWN_COMMAND = 38;
    /** The client is not attached (or was timed out): it must attach again. */
    public static final int ERROR_NOT_ATTACHED = 107;
    /** The client speaks another protocol version than the driver: it must use a library of the driver's build. */
    public static final int ERROR_PROTOCOL_VERSION = 71;

    private ControlProtocol()
    {
    }

    /** The length every command of {@code type} has, or -1 for a type the driver does not know. */
    public static int commandLength(final int type)
    {
        return switch (type)
        {
            case ATTACH -> AttachFlyweight.LENGTH;
            case KEEPALIVE, DETACH, ALLOC_PD -> CorrelatedMessageFlyweight.LENGTH;
            case DEALLOC_PD, DEREG_MR, DESTROY_CQ, DESTROY_QP, CM_DISCONNECT, CM_RELEASE, DEALLOC_MW, QUERY_SRQ,
                DESTROY_SRQ -> HandleFlyweight.LENGTH;
            case REG_MR -> RegisterMrFlyweight.LENGTH;
            case CREATE_CQ -> CreateCqFlyweight.LENGTH;
            case CREATE_QP -> CreateQpFlyweight.LENGTH;
            case MODIFY_QP -> ModifyQpFlyweight.LENGTH;
            case RESOLVE_MAC -> ResolveMacFlyweight.LENGTH;
            case CM_LISTEN, CM_STOP_LISTEN -> CmPortFlyweight.LENGTH;
            case CM_CONNECT -> CmConnectFlyweight.LENGTH;
            case CM_ACCEPT -> CmAcceptFlyweight.LENGTH;
            case CM_REJECT -> CmRejectFlyweight.LENGTH;
            case ALLOC_MW -> AllocMwFlyweight.LENGTH;
            case CREATE_SRQ -> CreateSrqFlyweight.LENGTH;
            case MODIFY_SRQ -> ModifySrqFlyweight.LENGTH;
            case OPEN_ASYNC_EVENTS -> OpenAsyncEventsFlyweight.LENGTH;
            default -> -1;
        };
    }

    /** The length every answer of {@code type} has; for {@link #ERROR}, its shortest. -1: not an answer type. */
    public static int answerLength(final int type)
    {
        return switch (type)
        {
            case OPERATION_SUCCEEDED -> CorrelatedMessageFlyweight.LENGTH;
            case ERROR -> ErrorAnswerFlyweight.MESSAGE_OFFSET;
            case ATTACHED -> AttachedFlyweight.LENGTH;
            case HANDLE -> HandleFlyweight.LENGTH;
            case MR_REGISTERED -> MrRegisteredFlyweight.LENGTH;
            case CQ_CREATED -> CqCreatedFlyweight.LENGTH;
            case QP_CREATED -> QpCreatedFlyweight.LENGTH;
            case QP_MODIFIED -> QpModifiedFlyweight.LENGTH;
            case MAC_RESOLVED -> MacResolvedFlyweight.LENGTH;
            case MW_ALLOCATED -> MwAllocatedFlyweight.LENGTH;
            case SRQ_CREATED -> SrqCreatedFlyweight.LENGTH;
            case SRQ_ATTRIBUTES -> SrqAttributesFlyweight.LENGTH;
            case ASYNC_EVENTS_OPENED -> AsyncEventsOpenedFlyweight.LENGTH;
            default -> -1;
        };
    }

    public static String commandName(final int type)
    {
        return switch (type)
        {
            case ATTACH -> "attach";
            case KEEPALIVE -> "keepalive";
            case DETACH -> "detach";
            case ALLOC_PD -> "alloc_pd";
            case DEALLOC_PD -> "dealloc_pd";
            case REG_MR -> "reg_mr";
            case DEREG_MR -> "dereg_mr";
            case CREATE_CQ -> "create_cq";
            case DESTROY_CQ -> "destroy_cq";
            case CREATE_QP -> "create_qp";
            case MODIFY_QP -> "modify_qp";
            case DESTROY_QP -> "destroy_qp";
            case RESOLVE_MAC -> "resolve_mac";
            case CM_LISTEN -> "cm_listen";
            case CM_STOP_LISTEN -> "cm_stop_listen";
            case CM_CONNECT -> "cm_connect";
            case CM_ACCEPT -> "cm_accept";
            case CM_REJECT -> "cm_reject";
            case CM_DISCONNECT -> "cm_disconnect";
            case CM_RELEASE -> "cm_release";
            case ALLOC_MW -> "alloc_mw";
            case DEALLOC_MW -> "dealloc_mw";
            case CREATE_SRQ -> "create_srq";
            case MODIFY_SRQ -> "modify_srq";
            case QUERY_SRQ -> "query_srq";
            case DESTROY_SRQ -> "destroy_srq";
            case OPEN_ASYNC_EVENTS -> "open_async_events";
            default -> "command " + type;
        };
    }
}
