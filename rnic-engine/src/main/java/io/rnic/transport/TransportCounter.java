package io.rnic.transport;

/**
 * Transport counters of an engine, named after rxe's hardware counters where one counts the same thing
 * ({@code /sys/class/infiniband/rxe0/ports/1/hw_counters}, {@code rdma statistic show}: sent_pkts, rcvd_pkts,
 * duplicate_request, out_of_seq_request, rcvd_rnr_err, send_rnr_err, rcvd_seq_err, retry_exceeded_err,
 * retry_rnr_exceeded_err, completer_retry_err, rdma_sends, rdma_recvs), after ConnectX's for DCQCN (np_cnp_sent,
 * np_ecn_marked_roce_packets, rp_cnp_handled, rp_cnp_ignored) and local_ack_timeout_err, and in that style
 * otherwise: what a user looks at to see loss, retransmission and errors. rxe's ack_deferred (a completer backlog
 * handed to a tasklet) has no counterpart in a duty cycle; send_err and link_downed belong to the port.
 */
public enum TransportCounter
{
    PACKETS_SENT("sent_pkts"),
    PACKETS_RECEIVED("rcvd_pkts"),
    BYTES_SENT("sent_bytes"),
    BYTES_RECEIVED("rcvd_bytes"),
    DROPPED_INVALID_FRAME("invalid_frames"),
    DROPPED_NOT_OUR_ADDRESS("not_our_address"),
    /**
     * RC/UC frames (requests, responses, CNPs) that do not come from the QP's peer: a source address other than its
     * address vector's destination GID, a destination other than its source GID, or the other IP version.
     */
    DROPPED_ADDRESS_MISMATCH("address_mismatch"),
    DROPPED_UNKNOWN_QP("unknown_qp"),
    DROPPED_QP_STATE("qp_state_drops"),
    DROPPED_WRONG_TRANSPORT("transport_mismatch"),
    DROPPED_PKEY("pkey_mismatch"),
    DROPPED_QKEY("qkey_mismatch"),
    DROPPED_NO_RECEIVE_WQE_UD("ud_no_recv_wqe"),
    DROPPED_UC_MESSAGE("uc_message_drops"),
    DROPPED_GHOST_RESPONSE("ghost_responses"),
    OUT_OF_SEQUENCE("out_of_sequence"),
    DUPLICATE_REQUEST("duplicate_request"),
    DUPLICATE_RESPONSE("duplicate_response"),
    RETRANSMITTED_PACKETS("retransmitted_pkts"),
    LOCAL_ACK_TIMEOUT("local_ack_timeout_err"),
    /** PSN sequence error NAKs sent, one per gap the responder found (rxe's name: its responder counts the same). */
    SEQ_NAK_SENT("out_of_seq_request"),
    SEQ_NAK_RECEIVED("rcvd_seq_err"),
    RNR_NAK_SENT("send_rnr_err"),
    RNR_NAK_RECEIVED("rcvd_rnr_err"),
    RETRY_EXCEEDED("retry_exceeded_err"),
    RNR_RETRY_EXCEEDED("retry_rnr_exceeded_err"),
    INVALID_REQUEST_NAK_SENT("invalid_request_naks_sent"),
    INVALID_REQUEST_NAK_RECEIVED("invalid_request_naks_rcvd"),
    /**
     * Packets whose payload breaks the path MTU: more than the MTU, a FIRST or MIDDLE not exactly the MTU, an empty
     * LAST. An RC request is answered with an invalid request NAK; a UC message, a UD datagram and a READ response
     * are dropped.
     */
    PACKET_LENGTH_ERROR("packet_length_errors"),
    /** New READ/atomic requests beyond the QP's max_dest_rd_atomic: answered with an invalid request NAK. */
    READ_ATOMIC_EXCEEDED("rd_atomic_exceeded"),
    REMOTE_ACCESS_NAK_SENT("remote_access_errors"),
    REMOTE_ACCESS_NAK_RECEIVED("remote_access_naks_rcvd"),
    REMOTE_OPERATIONAL_NAK_SENT("remote_op_naks_sent"),
    REMOTE_OPERATIONAL_NAK_RECEIVED("remote_op_naks_rcvd"),
    ACKS_SENT("acks_sent"),
    ACKS_RECEIVED("acks_rcvd"),
    IMPLIED_NAK("implied_nak_seq_err"),
    COMPLETION_QUEUE_OVERRUN("cq_overrun"),
    LOCAL_PROTECTION_ERROR("local_protection_err"),
    LOCAL_LENGTH_ERROR("local_length_err"),
    FLUSHED_WORK_REQUESTS("flushed_wrs"),
    /** Duty cycles in which a requester found the port's transmit queue full and waited (nothing is dropped). */
    TX_QUEUE_FULL("tx_queue_full_waits"),
    /** READ/atomic requests beyond the responses the responder can owe at once: not executed (as if lost). */
    RESPONSE_QUEUE_FULL("resp_queue_full_drops"),
    /**
     * Responses abandoned before they went: (a peer far past the READs/atomics we announced) the replay record was
     * reused. The requester asks again. (A READ whose region was deregistered while it waited is NAKed instead.)
     */
    RESPONSE_ABANDONED("resp_abandoned"),
    /** CNPs for a QP with congestion control on: its rate was cut (mlx5's name). */
    CNP_RECEIVED("rp_cnp_handled"),
    /** CNPs for an unknown QP or one with congestion control off. */
    CNP_IGNORED("rp_cnp_ignored"),
    /** CNPs sent by the notification point (at most one per QP per interval). */
    CNP_SENT("np_cnp_sent"),
    /** Valid packets received with ECN = CE (11), whether or not a CNP answered them. */
    ECN_MARKED_RECEIVED("np_ecn_marked_roce_packets"),
    /**
     * Go-back-N retries the completer started (a local ACK timeout, a PSN sequence error NAK, an implied NAK), each
     * taking one from the QP's retry_cnt; rxe counts the same where its completer enters its retry state.
     */
    COMPLETER_RETRY("completer_retry_err"),
    /** SEND work requests (with immediate, with invalidate) completed successfully: rxe's completer counts them. */
    RDMA_SENDS("rdma_sends"),
    /** Receive work requests completed successfully (a SEND, a WRITE with immediate): rxe's responder counts them. */
    RDMA_RECVS("rdma_recvs"),
    /**
     * SEND_WITH_INV messages whose R_Key named no type 2B memory window the QP may invalidate (the receive completes
     * with REM_INV_REQ_ERR, RC answers with an invalid request NAK).
     */
    INVALIDATE_ERROR("invalidate_rkey_err");

    private static final TransportCounter[] VALUES = values();

    private final String label;

    TransportCounter(final String label)
    {
        this.label = label;
    }

    /** The name rdma-core/rxe use for the same counter, or ours in that style. */
    public String label()
    {
        return label;
    }

    public static int count()
    {
        return VALUES.length;
    }

    public static TransportCounter get(final int ordinal)
    {
        return VALUES[ordinal];
    }
}
