package io.rnic.cnc;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * The messages between clients and the driver. Every command names its client and a correlation id, then carries up to
 * {@link #MAX_ARGS} {@code long} arguments; the driver answers each (but {@link #KEEPALIVE}) with a {@link #RESULT}
 * of {@code long} values or an {@link #ERROR} with a one-line message, both naming the client and the correlation id.
 * Fixed offsets, little-endian, no allocation to read a message. A message of the wrong length is malformed.
 * <p>
 * Memory travels beside the ring: a client connects to the driver's {@link #FD_SOCKET_FILE_NAME} once, sends
 * {@code (client id, nonce)} without a descriptor, then {@link #ATTACH} with the same nonce, which links that
 * connection to the client. For each memfd it then sends {@code (client id, sequence)} with the descriptor attached
 * ({@code io.rnic.shm.FdSocket}), a sequence of its own that it never reuses, and names that sequence, the
 * <em>token</em>, in the command that uses the memory ({@link #REG_MR}, {@link #CREATE_CQ}, {@link #CREATE_QP},
 * {@link #CREATE_SRQ}, {@link #OPEN_ASYNC_EVENTS}).
 * The driver takes a token only from the descriptors that came over that client's own connection.
 * <p>
 * An error names the errno of the verbs refusal behind it when the verbs gave one ({@link #ERROR_ERRNO_OFFSET}), so
 * that a client throws what an embedded endpoint would ({@code VerbsException.errno()}: EBUSY, EINVAL, ...).
 */
public final class ControlProtocol
{
    // client to driver (message type ids of the command ring)
    /**
     * args: pid, nonce. A client's first command; the nonce links it to the {@link #FD_SOCKET_FILE_NAME} connection
     * that sent {@code (client id, nonce)} first. Without a nonce (pid only) the client can use no memory.
     */
    public static final int ATTACH = 1;
    /** no args, no answer: the client is alive. */
    public static final int KEEPALIVE = 2;
    /** no args: everything of the client is destroyed. */
    public static final int DETACH = 3;
    /** no args → PD handle. */
    public static final int ALLOC_PD = 4;
    /** args: PD handle. */
    public static final int DEALLOC_PD = 5;
    /**
     * args: PD, token of the memfd sent over the socket, file length, offset in the file, length, iova, access → MR
     * handle, lKey, rKey.
     */
    public static final int REG_MR = 6;
    /** args: MR handle. */
    public static final int DEREG_MR = 7;
    /** args: token of the memfd sent over the socket, file length, entries → CQ handle, capacity. */
    public static final int CREATE_CQ = 8;
    /** args: CQ handle. */
    public static final int DESTROY_CQ = 9;
    /**
     * args: PD, send CQ, receive CQ, QP type, max send WR, max receive WR, max send SGE, max receive SGE, signal all
     * (0/1), token of the memfd sent over the socket, file length, then optionally the handle of the SRQ the QP takes
     * its receives from (0 or absent: none; its receive queue in the file is then one entry of one SGE, unused) → QP
     * handle, QPN.
     */
    public static final int CREATE_QP = 10;
    /** args: QP handle, mask, then {@link QpAttributesCodec}'s fields → new state. */
    public static final int MODIFY_QP = 11;
    /** args: QP handle. */
    public static final int DESTROY_QP = 12;
    /**
     * args: source GID index, timeout ms, 1 for IPv4, then the address's high and low 64 bits → MAC. The driver waits
     * for the ARP / neighbour answer up to the timeout, at most {@link #MAX_RESOLVE_MS}; none is {@code EHOSTUNREACH}.
     */
    public static final int RESOLVE_MAC = 13;
    /** The longest a driver waits for a neighbour on a client's behalf: the client waits this plus its timeout. */
    public static final long MAX_RESOLVE_MS = 10_000;
    /**
     * args: port. The driver's RDMA CM accepts REQs to this RDMA_PS_TCP port for this client; another client's port is
     * refused (as {@code EADDRINUSE}).
     */
    public static final int CM_LISTEN = 14;
    /** args: port. */
    public static final int CM_STOP_LISTEN = 15;
    /**
     * args: QP handle, source GID index, the peer's GID high and low 64 bits, port, responder resources, initiator
     * depth, type of service (-1: the driver's default), then private data ({@link CmIdCodec#putPrivateData}) → CM id
     * handle. The peer's MAC must be known
     * ({@link #RESOLVE_MAC} first); the QP in RESET or INIT.
     */
    public static final int CM_CONNECT = 16;
    /**
     * args: CM id handle of a request, QP handle, responder resources, initiator depth, then private data.
     */
    public static final int CM_ACCEPT = 17;
    /** args: CM id handle of a request, then optionally private data (the REJ's, at most 148 bytes). */
    public static final int CM_REJECT = 18;
    /** args: CM id handle. */
    public static final int CM_DISCONNECT = 19;
    /** args: CM id handle: the connection ends (DREQ or REJ as its state asks); the QP stays the client's. */
    public static final int CM_RELEASE = 20;
    /**
     * no args → the next change of the client's CM ids ({@link CmIdCodec}): a new connect request to one of its
     * ports, or a new state of one of its ids; {@link CmIdCodec#KIND_NONE} when nothing changed.
     */
    public static final int CM_POLL = 21;
    /** args: PD handle, type ({@code IBV_MW_TYPE_1} or {@code _2}) → MW handle, R_Key. */
    public static final int ALLOC_MW = 22;
    /** args: MW handle. */
    public static final int DEALLOC_MW = 23;
    /**
     * args: PD handle, max WR, max SGE, limit, token of the memfd sent over the socket, file length
     * ({@link QpQueuesLayout#srqFileLength}) → SRQ handle, max WR as the ring holds it. The driver formats the SRQ's
     * receive ring in the file; the client posts into it and the engine takes from it.
     */
    public static final int CREATE_SRQ = 24;
    /** args: SRQ handle, mask ({@code SrqAttrMask}), limit. */
    public static final int MODIFY_SRQ = 25;
    /** args: SRQ handle → max WR, max SGE, limit (0 once the limit event has fired). */
    public static final int QUERY_SRQ = 26;
    /** args: SRQ handle; refused (EBUSY) while QPs created with it remain. */
    public static final int DESTROY_SRQ = 27;
    /**
     * args: token of the memfd sent over the socket, file length ({@link AsyncEventRing#fileLength}) → capacity. The
     * driver formats an {@link AsyncEventRing} in the file and writes the client's asynchronous events into it, named
     * by the client's own handles. Once per client; without it the client's events are counted as dropped.
     */
    public static final int OPEN_ASYNC_EVENTS = 28;

    /** The driver's AF_UNIX socket in its directory, mode 0660 like the CnC file: clients pass memfds over it. */
    public static final String FD_SOCKET_FILE_NAME = "fds.sock";

    // driver to clients (message type ids of the broadcast buffer)
    public static final int RESULT = 101;
    public static final int ERROR = 102;

    public static final int CLIENT_ID_OFFSET = 0;
    public static final int CORRELATION_ID_OFFSET = 8;
    public static final int ARGS_OFFSET = 16;
    /** An error's code (an {@code int}), the verbs' errno (0: none), then its message's length and bytes. */
    public static final int ERROR_CODE_OFFSET = 16;
    public static final int ERROR_ERRNO_OFFSET = 20;
    public static final int ERROR_MESSAGE_OFFSET = 24;
    public static final int MAX_ARGS = 64;
    public static final int MAX_MESSAGE_LENGTH = ARGS_OFFSET + MAX_ARGS * Long.BYTES;

    // error codes, errno-like
    /** A handle that does not exist or belongs to another client (ibverbs would not let it be named). */
    public static final int ERROR_UNKNOWN_HANDLE = 2;
    /** Memory the driver cannot map: an unknown token, not a sealed memfd, of another size. */
    public static final int ERROR_BAD_MEMORY = 14;
    /** The command is malformed or its arguments out of range. */
    public static final int ERROR_INVALID = 22;
    /** The verbs refused it (the message says why). */
    public static final int ERROR_VERBS = 95;
    /** A command type the driver does not know. */
    public static final int ERROR_UNKNOWN_COMMAND = 38;
    /** The client is not attached (or was timed out): it must attach again. */
    public static final int ERROR_NOT_ATTACHED = 107;

    private ControlProtocol()
    {
    }

    public static int length(final int argCount)
    {
        return ARGS_OFFSET + argCount * Long.BYTES;
    }

    /** Arguments in a message of {@code length} bytes, or -1 when the length is not that of a message. */
    public static int argCount(final int length)
    {
        if (length < ARGS_OFFSET || length > MAX_MESSAGE_LENGTH || (length - ARGS_OFFSET) % Long.BYTES != 0)
        {
            return -1;
        }
        return (length - ARGS_OFFSET) / Long.BYTES;
    }

    public static void putHeader(
        final MutableDirectBuffer buffer, final int offset, final long clientId, final long correlationId)
    {
        buffer.putLong(offset + CLIENT_ID_OFFSET, clientId);
        buffer.putLong(offset + CORRELATION_ID_OFFSET, correlationId);
    }

    public static long clientId(final DirectBuffer buffer, final int offset)
    {
        return buffer.getLong(offset + CLIENT_ID_OFFSET);
    }

    public static long correlationId(final DirectBuffer buffer, final int offset)
    {
        return buffer.getLong(offset + CORRELATION_ID_OFFSET);
    }

    public static long arg(final DirectBuffer buffer, final int offset, final int index)
    {
        return buffer.getLong(offset + ARGS_OFFSET + index * Long.BYTES);
    }

    public static void putArg(final MutableDirectBuffer buffer, final int offset, final int index, final long value)
    {
        buffer.putLong(offset + ARGS_OFFSET + index * Long.BYTES, value);
    }

    /** Writes an error message without an errno; returns its length. Messages longer than the limit are cut. */
    public static int putError(
        final MutableDirectBuffer buffer, final int offset, final long clientId, final long correlationId,
        final int code, final String message)
    {
        return putError(buffer, offset, clientId, correlationId, code, 0, message);
    }

    /** Writes an error message naming the verbs' {@code errno} (0: none); returns its length. */
    public static int putError(
        final MutableDirectBuffer buffer, final int offset, final long clientId, final long correlationId,
        final int code, final int errno, final String message)
    {
        putHeader(buffer, offset, clientId, correlationId);
        buffer.putInt(offset + ERROR_CODE_OFFSET, code);
        buffer.putInt(offset + ERROR_ERRNO_OFFSET, errno);
        final String text = message.length() > 1000 ? message.substring(0, 1000) : message;
        return ERROR_MESSAGE_OFFSET + buffer.putStringUtf8(offset + ERROR_MESSAGE_OFFSET, text);
    }

    public static int errorCode(final DirectBuffer buffer, final int offset)
    {
        return buffer.getInt(offset + ERROR_CODE_OFFSET);
    }

    /** The errno of the verbs refusal an error reports, 0 when it names none. */
    public static int errorErrno(final DirectBuffer buffer, final int offset)
    {
        return buffer.getInt(offset + ERROR_ERRNO_OFFSET);
    }

    public static String errorMessage(final DirectBuffer buffer, final int offset)
    {
        return buffer.getStringUtf8(offset + ERROR_MESSAGE_OFFSET);
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
            case CM_POLL -> "cm_poll";
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
