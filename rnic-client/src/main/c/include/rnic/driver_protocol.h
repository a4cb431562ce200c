/*
 * The rnic driver's protocol: the layouts a client of `rnic driver` shares with it, as docs/driver-protocol.md
 * describes them. Constants, structs and the few length computations a client must do exactly as the driver does
 * (it refuses a file of any other length). C11; x86_64 Linux, little-endian, 64-byte cache lines.
 *
 * Every constant that has a Java counterpart has the same value there: io.rnic.cnc.ProtocolHeaderTest compiles
 * rnic-client/src/test/c/print_protocol.c against this header, prints every constant, and compares them one by one.
 * Change a layout on both sides, or that test fails.
 *
 * Fields that two processes access concurrently are _Atomic: use atomic_load_explicit / atomic_store_explicit with
 * the orders the document gives (release for a store that publishes, acquire for the load that reads it).
 */
#ifndef RNIC_DRIVER_PROTOCOL_H
#define RNIC_DRIVER_PROTOCOL_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the rnic driver protocol is little-endian (the driver's native order on x86_64)"
#endif

_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "32-bit atomics must be lock-free: they are shared between processes");
_Static_assert(ATOMIC_LLONG_LOCK_FREE == 2, "64-bit atomics must be lock-free: they are shared between processes");
_Static_assert(sizeof(_Atomic int64_t) == 8 && sizeof(_Atomic int32_t) == 4, "atomics take their plain size");

#define RNIC_CACHE_LINE_LENGTH 64

/** Rounds `value` up to a multiple of `alignment` (a power of two). */
static inline int64_t rnic_align(int64_t value, int64_t alignment)
{
    return (value + alignment - 1) & ~(alignment - 1);
}

/** The smallest power of two >= `value` (value >= 1). */
static inline int64_t rnic_next_power_of_two(int64_t value)
{
    int64_t power = 1;
    while (power < value)
    {
        power <<= 1;
    }
    return power;
}

/* ---------------------------------------------------------------------------------------------------------------
 * The driver's directory (default /dev/shm/rnic-IFACE, mode 0770)
 * ------------------------------------------------------------------------------------------------------------- */

#define RNIC_CNC_FILE_NAME "cnc.dat"
#define RNIC_CTL_FD_SOCKET_FILE_NAME "fds.sock"
#define RNIC_DRV_LOCK_FILE_NAME "driver.lock"

/*
 * Liveness as the Java client keeps it (io.rnic.client.DriverConnection): a keepalive every client timeout / 5, at
 * most this often; while waiting for an answer, the driver's lock is asked this often.
 */
#define RNIC_LIVE_MAX_KEEPALIVE_INTERVAL_NS 500000000LL
#define RNIC_LIVE_PROCESS_CHECK_INTERVAL_NS 10000000LL

/* ---------------------------------------------------------------------------------------------------------------
 * The CnC file (io.rnic.cnc.CncFile): a 128-byte header, then six sections, each starting 64-byte aligned
 * ------------------------------------------------------------------------------------------------------------- */

#define RNIC_CNC_MAGIC 0x43494e52 /* "RNIC" */
#define RNIC_CNC_VERSION 4

#define RNIC_CNC_MAGIC_OFFSET 0
#define RNIC_CNC_VERSION_OFFSET 4
#define RNIC_CNC_PID_OFFSET 8
#define RNIC_CNC_START_TIME_OFFSET 16
#define RNIC_CNC_CLIENT_TIMEOUT_OFFSET 24
#define RNIC_CNC_TO_DRIVER_LENGTH_OFFSET 32
#define RNIC_CNC_TO_CLIENTS_LENGTH_OFFSET 36
#define RNIC_CNC_COUNTERS_METADATA_LENGTH_OFFSET 40
#define RNIC_CNC_COUNTERS_VALUES_LENGTH_OFFSET 44
#define RNIC_CNC_ERROR_LOG_LENGTH_OFFSET 48
#define RNIC_CNC_DEVICE_INFO_LENGTH_OFFSET 52
#define RNIC_CNC_HEARTBEAT_OFFSET 64
#define RNIC_CNC_HEADER_LENGTH 128

struct rnic_cnc_header
{
    int32_t magic;                     /* RNIC_CNC_MAGIC */
    _Atomic int32_t version;           /* RNIC_CNC_VERSION once ready: the driver's last store (release) */
    int64_t driver_pid;
    int64_t start_time_ms;             /* epoch ms */
    int64_t client_timeout_ns;
    int32_t to_driver_length;          /* the command ring's capacity + RNIC_RB_TRAILER_LENGTH */
    int32_t to_clients_length;         /* the broadcast buffer's capacity + RNIC_BC_TRAILER_LENGTH */
    int32_t counters_metadata_length;  /* max counters * RNIC_COUNTERS_METADATA_LENGTH */
    int32_t counters_values_length;    /* max counters * RNIC_COUNTERS_COUNTER_LENGTH */
    int32_t error_log_length;
    int32_t device_info_length;
    uint8_t reserved0[8];
    _Atomic int64_t heartbeat_ms;      /* epoch ms, release store by the driver's conductor */
    uint8_t reserved1[56];
};

_Static_assert(offsetof(struct rnic_cnc_header, magic) == RNIC_CNC_MAGIC_OFFSET, "cnc magic");
_Static_assert(offsetof(struct rnic_cnc_header, version) == RNIC_CNC_VERSION_OFFSET, "cnc version");
_Static_assert(offsetof(struct rnic_cnc_header, driver_pid) == RNIC_CNC_PID_OFFSET, "cnc pid");
_Static_assert(offsetof(struct rnic_cnc_header, start_time_ms) == RNIC_CNC_START_TIME_OFFSET, "cnc start time");
_Static_assert(offsetof(struct rnic_cnc_header, client_timeout_ns) == RNIC_CNC_CLIENT_TIMEOUT_OFFSET, "cnc timeout");
_Static_assert(offsetof(struct rnic_cnc_header, to_driver_length) == RNIC_CNC_TO_DRIVER_LENGTH_OFFSET, "cnc ring");
_Static_assert(offsetof(struct rnic_cnc_header, to_clients_length) == RNIC_CNC_TO_CLIENTS_LENGTH_OFFSET, "cnc bc");
_Static_assert(offsetof(struct rnic_cnc_header, counters_metadata_length) == RNIC_CNC_COUNTERS_METADATA_LENGTH_OFFSET,
    "cnc counters metadata");
_Static_assert(offsetof(struct rnic_cnc_header, counters_values_length) == RNIC_CNC_COUNTERS_VALUES_LENGTH_OFFSET,
    "cnc counters values");
_Static_assert(offsetof(struct rnic_cnc_header, error_log_length) == RNIC_CNC_ERROR_LOG_LENGTH_OFFSET, "cnc errors");
_Static_assert(offsetof(struct rnic_cnc_header, device_info_length) == RNIC_CNC_DEVICE_INFO_LENGTH_OFFSET,
    "cnc device info");
_Static_assert(offsetof(struct rnic_cnc_header, heartbeat_ms) == RNIC_CNC_HEARTBEAT_OFFSET, "cnc heartbeat");
_Static_assert(sizeof(struct rnic_cnc_header) == RNIC_CNC_HEADER_LENGTH, "cnc header length");

/** The sections of the CnC file, in file order. */
enum rnic_cnc_section
{
    RNIC_CNC_SECTION_TO_DRIVER = 0,
    RNIC_CNC_SECTION_TO_CLIENTS = 1,
    RNIC_CNC_SECTION_COUNTERS_METADATA = 2,
    RNIC_CNC_SECTION_COUNTERS_VALUES = 3,
    RNIC_CNC_SECTION_ERROR_LOG = 4,
    RNIC_CNC_SECTION_DEVICE_INFO = 5,
    RNIC_CNC_SECTION_COUNT = 6
};

/** The length of section `section` as the header gives it. */
static inline int64_t rnic_cnc_section_length(const struct rnic_cnc_header *header, int section)
{
    const int32_t lengths[RNIC_CNC_SECTION_COUNT] = {
        header->to_driver_length, header->to_clients_length, header->counters_metadata_length,
        header->counters_values_length, header->error_log_length, header->device_info_length };
    return lengths[section];
}

/** The offset of section `section` in the file: after the header and each section before it, 64-byte aligned. */
static inline int64_t rnic_cnc_section_offset(const struct rnic_cnc_header *header, int section)
{
    int64_t offset = RNIC_CNC_HEADER_LENGTH;
    for (int i = 0; i < section; i++)
    {
        offset = rnic_align(offset + rnic_cnc_section_length(header, i), RNIC_CACHE_LINE_LENGTH);
    }
    return offset;
}

/** The length the driver gives the file: every section, each aligned. */
static inline int64_t rnic_cnc_file_length(const struct rnic_cnc_header *header)
{
    return rnic_cnc_section_offset(header, RNIC_CNC_SECTION_COUNT);
}

/* ---------------------------------------------------------------------------------------------------------------
 * The command ring (section 0): Agrona's ManyToOneRingBuffer. Records from byte 0 of the section; a trailer after
 * the capacity (a power of two) holds the positions, each on its own pair of cache lines.
 * ------------------------------------------------------------------------------------------------------------- */

#define RNIC_RB_TAIL_POSITION_OFFSET 128
#define RNIC_RB_HEAD_CACHE_POSITION_OFFSET 256
#define RNIC_RB_HEAD_POSITION_OFFSET 384
#define RNIC_RB_CORRELATION_COUNTER_OFFSET 512
#define RNIC_RB_CONSUMER_HEARTBEAT_OFFSET 640
#define RNIC_RB_TRAILER_LENGTH 768
#define RNIC_RB_RECORD_HEADER_LENGTH 8
#define RNIC_RB_RECORD_ALIGNMENT 8
#define RNIC_RB_PADDING_MSG_TYPE_ID (-1)

/** A record of the command ring or of the broadcast buffer: 8 bytes of header, then the message. */
struct rnic_record_header
{
    _Atomic int32_t length; /* header + message; in the command ring negative while the record is being written */
    int32_t type;           /* the message type id; -1: padding to the end of the buffer */
};

_Static_assert(sizeof(struct rnic_record_header) == RNIC_RB_RECORD_HEADER_LENGTH, "record header");

/* ---------------------------------------------------------------------------------------------------------------
 * The answers (section 1): Agrona's BroadcastBuffer (one transmitter, the driver; every client receives)
 * ------------------------------------------------------------------------------------------------------------- */

#define RNIC_BC_TAIL_INTENT_COUNTER_OFFSET 0
#define RNIC_BC_TAIL_COUNTER_OFFSET 8
#define RNIC_BC_LATEST_COUNTER_OFFSET 16
#define RNIC_BC_TRAILER_LENGTH 128
#define RNIC_BC_RECORD_LENGTH_OFFSET 0
#define RNIC_BC_RECORD_TYPE_OFFSET 4
#define RNIC_BC_RECORD_HEADER_LENGTH 8
#define RNIC_BC_RECORD_RECORD_ALIGNMENT 8
#define RNIC_BC_RECORD_PADDING_MSG_TYPE_ID (-1)

/* ---------------------------------------------------------------------------------------------------------------
 * The counters (sections 2 and 3): Agrona's CountersManager. Counter i: metadata at i * 512, value at i * 128.
 * ------------------------------------------------------------------------------------------------------------- */

#define RNIC_COUNTERS_RECORD_UNUSED 0
#define RNIC_COUNTERS_RECORD_ALLOCATED 1
#define RNIC_COUNTERS_RECORD_RECLAIMED (-1)
#define RNIC_COUNTERS_TYPE_ID_OFFSET 4
#define RNIC_COUNTERS_FREE_FOR_REUSE_DEADLINE_OFFSET 8
#define RNIC_COUNTERS_KEY_OFFSET 16
#define RNIC_COUNTERS_LABEL_OFFSET 128
#define RNIC_COUNTERS_FULL_LABEL_LENGTH 384
#define RNIC_COUNTERS_MAX_LABEL_LENGTH 380
#define RNIC_COUNTERS_MAX_KEY_LENGTH 112
#define RNIC_COUNTERS_METADATA_LENGTH 512
#define RNIC_COUNTERS_COUNTER_LENGTH 128
#define RNIC_COUNTERS_REGISTRATION_ID_OFFSET 8
#define RNIC_COUNTERS_OWNER_ID_OFFSET 16
#define RNIC_COUNTERS_REFERENCE_ID_OFFSET 24
#define RNIC_COUNTERS_DEFAULT_TYPE_ID 0
#define RNIC_COUNTERS_DEFAULT_REGISTRATION_ID 0
#define RNIC_COUNTERS_DEFAULT_OWNER_ID 0
#define RNIC_COUNTERS_DEFAULT_REFERENCE_ID 0
#define RNIC_COUNTERS_NULL_COUNTER_ID (-1)
#define RNIC_COUNTERS_NOT_FREE_TO_REUSE INT64_MAX

struct rnic_counter_metadata
{
    _Atomic int32_t state;            /* RNIC_COUNTERS_RECORD_*: ALLOCATED is stored last (release) */
    int32_t type_id;                  /* io.rnic.status.CounterTypes */
    int64_t free_for_reuse_deadline_ms;
    uint8_t key[RNIC_COUNTERS_MAX_KEY_LENGTH];
    int32_t label_length;             /* bytes of label, US-ASCII */
    char label[RNIC_COUNTERS_MAX_LABEL_LENGTH];
};

struct rnic_counter_value
{
    _Atomic int64_t value;
    int64_t registration_id;
    int64_t owner_id;
    int64_t reference_id;
    uint8_t padding[96];
};

_Static_assert(offsetof(struct rnic_counter_metadata, type_id) == RNIC_COUNTERS_TYPE_ID_OFFSET, "counter type");
_Static_assert(offsetof(struct rnic_counter_metadata, free_for_reuse_deadline_ms) ==
    RNIC_COUNTERS_FREE_FOR_REUSE_DEADLINE_OFFSET, "counter deadline");
_Static_assert(offsetof(struct rnic_counter_metadata, key) == RNIC_COUNTERS_KEY_OFFSET, "counter key");
_Static_assert(offsetof(struct rnic_counter_metadata, label_length) == RNIC_COUNTERS_LABEL_OFFSET, "counter label");
_Static_assert(sizeof(struct rnic_counter_metadata) == RNIC_COUNTERS_METADATA_LENGTH, "counter metadata length");
_Static_assert(offsetof(struct rnic_counter_value, registration_id) == RNIC_COUNTERS_REGISTRATION_ID_OFFSET, "reg id");
_Static_assert(offsetof(struct rnic_counter_value, owner_id) == RNIC_COUNTERS_OWNER_ID_OFFSET, "owner id");
_Static_assert(offsetof(struct rnic_counter_value, reference_id) == RNIC_COUNTERS_REFERENCE_ID_OFFSET, "ref id");
_Static_assert(sizeof(struct rnic_counter_value) == RNIC_COUNTERS_COUNTER_LENGTH, "counter value length");

/* ---------------------------------------------------------------------------------------------------------------
 * The error log (section 4): Agrona's DistinctErrorLog, records from byte 0, each 8-byte aligned
 * ------------------------------------------------------------------------------------------------------------- */

#define RNIC_ERRLOG_LENGTH_OFFSET 0
#define RNIC_ERRLOG_OBSERVATION_COUNT_OFFSET 4
#define RNIC_ERRLOG_LAST_OBSERVATION_TIMESTAMP_OFFSET 8
#define RNIC_ERRLOG_FIRST_OBSERVATION_TIMESTAMP_OFFSET 16
#define RNIC_ERRLOG_ENCODED_ERROR_OFFSET 24
#define RNIC_ERRLOG_RECORD_ALIGNMENT 8

struct rnic_error_record
{
    _Atomic int32_t length;                       /* header + text; 0: no record here (the end) */
    _Atomic int32_t observation_count;
    _Atomic int64_t last_observation_timestamp_ms;
    int64_t first_observation_timestamp_ms;
    /* then length - 24 bytes of UTF-8: the exception and its stack trace */
};

_Static_assert(offsetof(struct rnic_error_record, observation_count) == RNIC_ERRLOG_OBSERVATION_COUNT_OFFSET, "count");
_Static_assert(offsetof(struct rnic_error_record, last_observation_timestamp_ms) ==
    RNIC_ERRLOG_LAST_OBSERVATION_TIMESTAMP_OFFSET, "last");
_Static_assert(offsetof(struct rnic_error_record, first_observation_timestamp_ms) ==
    RNIC_ERRLOG_FIRST_OBSERVATION_TIMESTAMP_OFFSET, "first");
_Static_assert(sizeof(struct rnic_error_record) == RNIC_ERRLOG_ENCODED_ERROR_OFFSET, "error record header");

/* ---------------------------------------------------------------------------------------------------------------
 * The device information (section 5, io.rnic.cnc.DeviceInfo): an int32 length, then that many bytes of UTF-8
 * "key=value\n" lines
 * ------------------------------------------------------------------------------------------------------------- */

#define RNIC_DEVINFO_LENGTH_OFFSET 0
#define RNIC_DEVINFO_TEXT_OFFSET 4
#define RNIC_DEVINFO_PORT_MAC "port_mac"
#define RNIC_DEVINFO_PORT_ETHERNET_MTU "port_ethernet_mtu"
#define RNIC_DEVINFO_PORT_GID_PREFIX "port_gid_"

/* ---------------------------------------------------------------------------------------------------------------
 * Commands and answers (io.rnic.cnc.ControlProtocol, io.rnic.cnc.command): the message of a record, after its 8-byte
 * record header. Every message starts with struct rnic_msg_header, then its type's fields at fixed offsets; every
 * command and answer of a type is exactly that type's length (RNIC_*_LENGTH), but ERROR, whose line ends it.
 * ------------------------------------------------------------------------------------------------------------- */

/* command type ids (the command ring's message type ids), and the struct each carries */
#define RNIC_CTL_ATTACH 1            /* struct rnic_attach -> ATTACHED */
#define RNIC_CTL_KEEPALIVE 2         /* struct rnic_msg_header, no answer */
#define RNIC_CTL_DETACH 3            /* struct rnic_msg_header -> OPERATION_SUCCEEDED */
#define RNIC_CTL_ALLOC_PD 4          /* struct rnic_msg_header -> HANDLE */
#define RNIC_CTL_DEALLOC_PD 5        /* struct rnic_handle -> OPERATION_SUCCEEDED */
#define RNIC_CTL_REG_MR 6            /* struct rnic_reg_mr -> MR_REGISTERED */
#define RNIC_CTL_DEREG_MR 7          /* struct rnic_handle -> OPERATION_SUCCEEDED */
#define RNIC_CTL_CREATE_CQ 8         /* struct rnic_create_cq -> CQ_CREATED */
#define RNIC_CTL_DESTROY_CQ 9        /* struct rnic_handle -> OPERATION_SUCCEEDED */
#define RNIC_CTL_CREATE_QP 10        /* struct rnic_create_qp -> QP_CREATED */
#define RNIC_CTL_MODIFY_QP 11        /* struct rnic_modify_qp -> QP_MODIFIED */
#define RNIC_CTL_DESTROY_QP 12       /* struct rnic_handle -> OPERATION_SUCCEEDED */
#define RNIC_CTL_RESOLVE_MAC 13      /* struct rnic_resolve_mac -> MAC_RESOLVED, late */
#define RNIC_CTL_CM_LISTEN 14        /* struct rnic_cm_port -> OPERATION_SUCCEEDED */
#define RNIC_CTL_CM_STOP_LISTEN 15   /* struct rnic_cm_port -> OPERATION_SUCCEEDED */
#define RNIC_CTL_CM_CONNECT 16       /* struct rnic_cm_connect -> HANDLE */
#define RNIC_CTL_CM_ACCEPT 17        /* struct rnic_cm_accept -> OPERATION_SUCCEEDED */
#define RNIC_CTL_CM_REJECT 18        /* struct rnic_cm_reject -> OPERATION_SUCCEEDED */
#define RNIC_CTL_CM_DISCONNECT 19    /* struct rnic_handle -> OPERATION_SUCCEEDED */
#define RNIC_CTL_CM_RELEASE 20       /* struct rnic_handle -> OPERATION_SUCCEEDED */
/* 21 was CM_POLL (version 3): CM id changes are pushed into the event ring */
#define RNIC_CTL_ALLOC_MW 22         /* struct rnic_alloc_mw -> MW_ALLOCATED */
#define RNIC_CTL_DEALLOC_MW 23       /* struct rnic_handle -> OPERATION_SUCCEEDED */
#define RNIC_CTL_CREATE_SRQ 24       /* struct rnic_create_srq -> SRQ_CREATED */
#define RNIC_CTL_MODIFY_SRQ 25       /* struct rnic_modify_srq -> OPERATION_SUCCEEDED */
#define RNIC_CTL_QUERY_SRQ 26        /* struct rnic_handle -> SRQ_ATTRIBUTES */
#define RNIC_CTL_DESTROY_SRQ 27      /* struct rnic_handle -> OPERATION_SUCCEEDED */
#define RNIC_CTL_OPEN_ASYNC_EVENTS 28 /* struct rnic_open_async_events -> ASYNC_EVENTS_OPENED */

/* answer type ids (the broadcast buffer's message type ids), and the struct each carries */
#define RNIC_CTL_OPERATION_SUCCEEDED 101 /* struct rnic_msg_header */
#define RNIC_CTL_ERROR 102               /* struct rnic_error_answer, then the line */
#define RNIC_CTL_ATTACHED 103            /* struct rnic_attached */
#define RNIC_CTL_HANDLE 104              /* struct rnic_handle */
#define RNIC_CTL_MR_REGISTERED 105       /* struct rnic_mr_registered */
#define RNIC_CTL_CQ_CREATED 106          /* struct rnic_cq_created */
#define RNIC_CTL_QP_CREATED 107          /* struct rnic_qp_created */
#define RNIC_CTL_QP_MODIFIED 108         /* struct rnic_qp_modified */
#define RNIC_CTL_MAC_RESOLVED 109        /* struct rnic_mac_resolved */
#define RNIC_CTL_MW_ALLOCATED 110        /* struct rnic_mw_allocated */
#define RNIC_CTL_SRQ_CREATED 111         /* struct rnic_srq_created */
#define RNIC_CTL_SRQ_ATTRIBUTES 112      /* struct rnic_srq_attributes */
#define RNIC_CTL_ASYNC_EVENTS_OPENED 113 /* struct rnic_async_events_opened */
/* 114 was CM_ID_CHANGE, CM_POLL's answer */

/* limits of the commands' fields, written once (the driver refuses a field out of them) */
#define RNIC_CTL_MAX_RESOLVE_MS 10000
#define RNIC_CTL_MAX_CQ_ENTRIES (1 << 22)
#define RNIC_CTL_MAX_QP_WR (1 << 16)
#define RNIC_CTL_MAX_MEMORY_FILE_BYTES (1LL << 40)
#define RNIC_CTL_MAX_MESSAGE_LENGTH (RNIC_ERROR_MESSAGE_OFFSET + RNIC_ERROR_MAX_MESSAGE_LENGTH)

/* error codes of an ERROR answer (errno-like) */
#define RNIC_CTL_ERROR_UNKNOWN_HANDLE 2
#define RNIC_CTL_ERROR_BAD_MEMORY 14
#define RNIC_CTL_ERROR_INVALID 22
#define RNIC_CTL_ERROR_VERBS 95
#define RNIC_CTL_ERROR_UNKNOWN_COMMAND 38
#define RNIC_CTL_ERROR_NOT_ATTACHED 107
#define RNIC_CTL_ERROR_PROTOCOL_VERSION 71


/** The first 16 bytes of every command and every answer; alone, the whole of KEEPALIVE, DETACH, ALLOC_PD. */
#define RNIC_MSG_CLIENT_ID_OFFSET 0
#define RNIC_MSG_CORRELATION_ID_OFFSET 8
#define RNIC_MSG_LENGTH 16

struct rnic_msg_header
{
    int64_t client_id;      /* a random number the client chose before attaching */
    int64_t correlation_id; /* the client's own, fresh per command; keepalives carry 0; an answer its command's */
};

_Static_assert(offsetof(struct rnic_msg_header, client_id) == RNIC_MSG_CLIENT_ID_OFFSET, "");
_Static_assert(offsetof(struct rnic_msg_header, correlation_id) == RNIC_MSG_CORRELATION_ID_OFFSET, "");
_Static_assert(sizeof(struct rnic_msg_header) == RNIC_MSG_LENGTH, "");

/*
 * ERROR: the command was refused. The header, the code, the verbs' errno (0: none), the line's length, then the line:
 * UTF-8, no NUL, at most RNIC_ERROR_MAX_MESSAGE_LENGTH bytes. The message is RNIC_ERROR_MESSAGE_OFFSET + message_length
 * bytes, exactly.
 */
#define RNIC_ERROR_CODE_OFFSET 16
#define RNIC_ERROR_ERRNO_VALUE_OFFSET 20
#define RNIC_ERROR_MESSAGE_LENGTH_OFFSET 24
#define RNIC_ERROR_MESSAGE_OFFSET 28
#define RNIC_ERROR_MAX_MESSAGE_LENGTH 3000
#define RNIC_ERROR_MAX_LENGTH (RNIC_ERROR_MESSAGE_OFFSET + RNIC_ERROR_MAX_MESSAGE_LENGTH)

struct rnic_error_answer
{
    struct rnic_msg_header header;
    int32_t code;           /* RNIC_CTL_ERROR_* */
    int32_t errno_value;    /* ENOMEM, EBUSY, EINVAL, EADDRINUSE, EHOSTUNREACH, ...; 0: none */
    int32_t message_length;
    uint8_t message[];
};

_Static_assert(offsetof(struct rnic_error_answer, code) == RNIC_ERROR_CODE_OFFSET, "");
_Static_assert(offsetof(struct rnic_error_answer, errno_value) == RNIC_ERROR_ERRNO_VALUE_OFFSET, "");
_Static_assert(offsetof(struct rnic_error_answer, message_length) == RNIC_ERROR_MESSAGE_LENGTH_OFFSET, "");
_Static_assert(offsetof(struct rnic_error_answer, message) == RNIC_ERROR_MESSAGE_OFFSET, "");

/*
 * ATTACH: a client's first command. The protocol version comes first, at a place no version moves, so that a driver
 * of another version can name it.
 */
#define RNIC_ATTACH_PROTOCOL_VERSION_OFFSET 16
#define RNIC_ATTACH_PID_OFFSET 24
#define RNIC_ATTACH_NONCE_OFFSET 32
#define RNIC_ATTACH_LENGTH 40

struct rnic_attach
{
    struct rnic_msg_header header;
    int32_t protocol_version;
    int32_t reserved0;
    int64_t pid;
    int64_t nonce;
};

_Static_assert(offsetof(struct rnic_attach, protocol_version) == RNIC_ATTACH_PROTOCOL_VERSION_OFFSET, "");
_Static_assert(offsetof(struct rnic_attach, pid) == RNIC_ATTACH_PID_OFFSET, "");
_Static_assert(offsetof(struct rnic_attach, nonce) == RNIC_ATTACH_NONCE_OFFSET, "");
_Static_assert(sizeof(struct rnic_attach) == RNIC_ATTACH_LENGTH, "");

/*
 * A command naming one of the client's objects: DEALLOC_PD, DEREG_MR, DESTROY_CQ, DESTROY_QP, DEALLOC_MW, QUERY_SRQ,
 * DESTROY_SRQ, CM_DISCONNECT, CM_RELEASE; and the answer HANDLE (ALLOC_PD's PD, CM_CONNECT's CM id).
 */
#define RNIC_HANDLE_HANDLE_OFFSET 16
#define RNIC_HANDLE_LENGTH 24

struct rnic_handle
{
    struct rnic_msg_header header;
    int32_t handle;
    int32_t reserved0;
};

_Static_assert(offsetof(struct rnic_handle, handle) == RNIC_HANDLE_HANDLE_OFFSET, "");
_Static_assert(sizeof(struct rnic_handle) == RNIC_HANDLE_LENGTH, "");

/*
 * REG_MR: registers part of a memfd the client sent over fds.sock.
 */
#define RNIC_REG_MR_PD_HANDLE_OFFSET 16
#define RNIC_REG_MR_ACCESS_FLAGS_OFFSET 20
#define RNIC_REG_MR_MEMFD_TOKEN_OFFSET 24
#define RNIC_REG_MR_FILE_LENGTH_BYTES_OFFSET 32
#define RNIC_REG_MR_FILE_OFFSET_BYTES_OFFSET 40
#define RNIC_REG_MR_LENGTH_BYTES_OFFSET 48
#define RNIC_REG_MR_IOVA_OFFSET 56
#define RNIC_REG_MR_LENGTH 64

struct rnic_reg_mr
{
    struct rnic_msg_header header;
    int32_t pd_handle;
    int32_t access_flags;
    int64_t memfd_token;
    int64_t file_length_bytes;
    int64_t file_offset_bytes;
    int64_t length_bytes;
    uint64_t iova;
};

_Static_assert(offsetof(struct rnic_reg_mr, pd_handle) == RNIC_REG_MR_PD_HANDLE_OFFSET, "");
_Static_assert(offsetof(struct rnic_reg_mr, access_flags) == RNIC_REG_MR_ACCESS_FLAGS_OFFSET, "");
_Static_assert(offsetof(struct rnic_reg_mr, memfd_token) == RNIC_REG_MR_MEMFD_TOKEN_OFFSET, "");
_Static_assert(offsetof(struct rnic_reg_mr, file_length_bytes) == RNIC_REG_MR_FILE_LENGTH_BYTES_OFFSET, "");
_Static_assert(offsetof(struct rnic_reg_mr, file_offset_bytes) == RNIC_REG_MR_FILE_OFFSET_BYTES_OFFSET, "");
_Static_assert(offsetof(struct rnic_reg_mr, length_bytes) == RNIC_REG_MR_LENGTH_BYTES_OFFSET, "");
_Static_assert(offsetof(struct rnic_reg_mr, iova) == RNIC_REG_MR_IOVA_OFFSET, "");
_Static_assert(sizeof(struct rnic_reg_mr) == RNIC_REG_MR_LENGTH, "");

/*
 * CREATE_CQ: a completion queue in a memfd the driver formats.
 */
#define RNIC_CREATE_CQ_MEMFD_TOKEN_OFFSET 16
#define RNIC_CREATE_CQ_FILE_LENGTH_BYTES_OFFSET 24
#define RNIC_CREATE_CQ_ENTRIES_OFFSET 32
#define RNIC_CREATE_CQ_LENGTH 40

struct rnic_create_cq
{
    struct rnic_msg_header header;
    int64_t memfd_token;
    int64_t file_length_bytes;
    int32_t entries;
    int32_t reserved0;
};

_Static_assert(offsetof(struct rnic_create_cq, memfd_token) == RNIC_CREATE_CQ_MEMFD_TOKEN_OFFSET, "");
_Static_assert(offsetof(struct rnic_create_cq, file_length_bytes) == RNIC_CREATE_CQ_FILE_LENGTH_BYTES_OFFSET, "");
_Static_assert(offsetof(struct rnic_create_cq, entries) == RNIC_CREATE_CQ_ENTRIES_OFFSET, "");
_Static_assert(sizeof(struct rnic_create_cq) == RNIC_CREATE_CQ_LENGTH, "");

/*
 * CREATE_QP: a queue pair whose send and receive rings are a memfd the driver formats.
 */
#define RNIC_CREATE_QP_PD_HANDLE_OFFSET 16
#define RNIC_CREATE_QP_SEND_CQ_HANDLE_OFFSET 20
#define RNIC_CREATE_QP_RECV_CQ_HANDLE_OFFSET 24
#define RNIC_CREATE_QP_SRQ_HANDLE_OFFSET 28
#define RNIC_CREATE_QP_QP_TYPE_OFFSET 32
#define RNIC_CREATE_QP_MAX_SEND_WR_OFFSET 36
#define RNIC_CREATE_QP_MAX_RECV_WR_OFFSET 40
#define RNIC_CREATE_QP_MAX_SEND_SGE_OFFSET 44
#define RNIC_CREATE_QP_MAX_RECV_SGE_OFFSET 48
#define RNIC_CREATE_QP_SIGNAL_ALL_OFFSET 52
#define RNIC_CREATE_QP_MEMFD_TOKEN_OFFSET 56
#define RNIC_CREATE_QP_FILE_LENGTH_BYTES_OFFSET 64
#define RNIC_CREATE_QP_LENGTH 72

struct rnic_create_qp
{
    struct rnic_msg_header header;
    int32_t pd_handle;
    int32_t send_cq_handle;
    int32_t recv_cq_handle;
    int32_t srq_handle;
    int32_t qp_type;
    int32_t max_send_wr;
    int32_t max_recv_wr;
    int32_t max_send_sge;
    int32_t max_recv_sge;
    int32_t signal_all;
    int64_t memfd_token;
    int64_t file_length_bytes;
};

_Static_assert(offsetof(struct rnic_create_qp, pd_handle) == RNIC_CREATE_QP_PD_HANDLE_OFFSET, "");
_Static_assert(offsetof(struct rnic_create_qp, send_cq_handle) == RNIC_CREATE_QP_SEND_CQ_HANDLE_OFFSET, "");
_Static_assert(offsetof(struct rnic_create_qp, recv_cq_handle) == RNIC_CREATE_QP_RECV_CQ_HANDLE_OFFSET, "");
_Static_assert(offsetof(struct rnic_create_qp, srq_handle) == RNIC_CREATE_QP_SRQ_HANDLE_OFFSET, "");
_Static_assert(offsetof(struct rnic_create_qp, qp_type) == RNIC_CREATE_QP_QP_TYPE_OFFSET, "");
_Static_assert(offsetof(struct rnic_create_qp, max_send_wr) == RNIC_CREATE_QP_MAX_SEND_WR_OFFSET, "");
_Static_assert(offsetof(struct rnic_create_qp, max_recv_wr) == RNIC_CREATE_QP_MAX_RECV_WR_OFFSET, "");
_Static_assert(offsetof(struct rnic_create_qp, max_send_sge) == RNIC_CREATE_QP_MAX_SEND_SGE_OFFSET, "");
_Static_assert(offsetof(struct rnic_create_qp, max_recv_sge) == RNIC_CREATE_QP_MAX_RECV_SGE_OFFSET, "");
_Static_assert(offsetof(struct rnic_create_qp, signal_all) == RNIC_CREATE_QP_SIGNAL_ALL_OFFSET, "");
_Static_assert(offsetof(struct rnic_create_qp, memfd_token) == RNIC_CREATE_QP_MEMFD_TOKEN_OFFSET, "");
_Static_assert(offsetof(struct rnic_create_qp, file_length_bytes) == RNIC_CREATE_QP_FILE_LENGTH_BYTES_OFFSET, "");
_Static_assert(sizeof(struct rnic_create_qp) == RNIC_CREATE_QP_LENGTH, "");

/*
 * MODIFY_QP: every attribute travels whatever the mask; the mask says which the driver applies (ibv_modify_qp).
 */
#define RNIC_MODIFY_QP_QP_HANDLE_OFFSET 16
#define RNIC_MODIFY_QP_ATTR_MASK_OFFSET 20
#define RNIC_MODIFY_QP_QP_STATE_OFFSET 24
#define RNIC_MODIFY_QP_CUR_QP_STATE_OFFSET 28
#define RNIC_MODIFY_QP_PATH_MTU_OFFSET 32
#define RNIC_MODIFY_QP_QKEY_OFFSET 36
#define RNIC_MODIFY_QP_RQ_PSN_OFFSET 40
#define RNIC_MODIFY_QP_SQ_PSN_OFFSET 44
#define RNIC_MODIFY_QP_DEST_QP_NUM_OFFSET 48
#define RNIC_MODIFY_QP_QP_ACCESS_FLAGS_OFFSET 52
#define RNIC_MODIFY_QP_PKEY_INDEX_OFFSET 56
#define RNIC_MODIFY_QP_PORT_NUM_OFFSET 60
#define RNIC_MODIFY_QP_TIMEOUT_OFFSET 64
#define RNIC_MODIFY_QP_RETRY_CNT_OFFSET 68
#define RNIC_MODIFY_QP_RNR_RETRY_OFFSET 72
#define RNIC_MODIFY_QP_MIN_RNR_TIMER_OFFSET 76
#define RNIC_MODIFY_QP_MAX_RD_ATOMIC_OFFSET 80
#define RNIC_MODIFY_QP_MAX_DEST_RD_ATOMIC_OFFSET 84
#define RNIC_MODIFY_QP_DGID_HIGH_OFFSET 88
#define RNIC_MODIFY_QP_DGID_LOW_OFFSET 96
#define RNIC_MODIFY_QP_DEST_MAC_OFFSET 104
#define RNIC_MODIFY_QP_SGID_INDEX_OFFSET 112
#define RNIC_MODIFY_QP_HOP_LIMIT_OFFSET 116
#define RNIC_MODIFY_QP_TRAFFIC_CLASS_OFFSET 120
#define RNIC_MODIFY_QP_FLOW_LABEL_OFFSET 124
#define RNIC_MODIFY_QP_SERVICE_LEVEL_OFFSET 128
#define RNIC_MODIFY_QP_LENGTH 136

struct rnic_modify_qp
{
    struct rnic_msg_header header;
    int32_t qp_handle;
    int32_t attr_mask;
    int32_t qp_state;
    int32_t cur_qp_state;
    int32_t path_mtu;
    uint32_t qkey;
    uint32_t rq_psn;
    uint32_t sq_psn;
    uint32_t dest_qp_num;
    int32_t qp_access_flags;
    int32_t pkey_index;
    int32_t port_num;
    int32_t timeout;
    int32_t retry_cnt;
    int32_t rnr_retry;
    int32_t min_rnr_timer;
    int32_t max_rd_atomic;
    int32_t max_dest_rd_atomic;
    int64_t dgid_high;
    int64_t dgid_low;
    int64_t dest_mac;
    int32_t sgid_index;
    int32_t hop_limit;
    int32_t traffic_class;
    int32_t flow_label;
    int32_t service_level;
    int32_t reserved0;
};

_Static_assert(offsetof(struct rnic_modify_qp, qp_handle) == RNIC_MODIFY_QP_QP_HANDLE_OFFSET, "");
_Static_assert(offsetof(struct rnic_modify_qp, attr_mask) == RNIC_MODIFY_QP_ATTR_MASK_OFFSET, "");
_Static_assert(offsetof(struct rnic_modify_qp, qp_state) == RNIC_MODIFY_QP_QP_STATE_OFFSET, "");
_Static_assert(offsetof(struct rnic_modify_qp, cur_qp_state) == RNIC_MODIFY_QP_CUR_QP_STATE_OFFSET, "");
_Static_assert(offsetof(struct rnic_modify_qp, path_mtu) == RNIC_MODIFY_QP_PATH_MTU_OFFSET, "");
_Static_assert(offsetof(struct rnic_modify_qp, qkey) == RNIC_MODIFY_QP_QKEY_OFFSET, "");
_Static_assert(offsetof(struct rnic_modify_qp, rq_psn) == RNIC_MODIFY_QP_RQ_PSN_OFFSET, "");
_Static_assert(offsetof(struct rnic_modify_qp, sq_psn) == RNIC_MODIFY_QP_SQ_PSN_OFFSET, "");
_Static_assert(offsetof(struct rnic_modify_qp, dest_qp_num) == RNIC_MODIFY_QP_DEST_QP_NUM_OFFSET, "");
_Static_assert(offsetof(struct rnic_modify_qp, qp_access_flags) == RNIC_MODIFY_QP_QP_ACCESS_FLAGS_OFFSET, "");
_Static_assert(offsetof(struct rnic_modify_qp, pkey_index) == RNIC_MODIFY_QP_PKEY_INDEX_OFFSET, "");
_Static_assert(offsetof(struct rnic_modify_qp, port_num) == RNIC_MODIFY_QP_PORT_NUM_OFFSET, "");
_Static_assert(offsetof(struct rnic_modify_qp, timeout) == RNIC_MODIFY_QP_TIMEOUT_OFFSET, "");
_Static_assert(offsetof(struct rnic_modify_qp, retry_cnt) == RNIC_MODIFY_QP_RETRY_CNT_OFFSET, "");
_Static_assert(offsetof(struct rnic_modify_qp, rnr_retry) == RNIC_MODIFY_QP_RNR_RETRY_OFFSET, "");
_Static_assert(offsetof(struct rnic_modify_qp, min_rnr_timer) == RNIC_MODIFY_QP_MIN_RNR_TIMER_OFFSET, "");
_Static_assert(offsetof(struct rnic_modify_qp, max_rd_atomic) == RNIC_MODIFY_QP_MAX_RD_ATOMIC_OFFSET, "");
_Static_assert(offsetof(struct rnic_modify_qp, max_dest_rd_atomic) == RNIC_MODIFY_QP_MAX_DEST_RD_ATOMIC_OFFSET, "");
_Static_assert(offsetof(struct rnic_modify_qp, dgid_high) == RNIC_MODIFY_QP_DGID_HIGH_OFFSET, "");
_Static_assert(offsetof(struct rnic_modify_qp, dgid_low) == RNIC_MODIFY_QP_DGID_LOW_OFFSET, "");
_Static_assert(offsetof(struct rnic_modify_qp, dest_mac) == RNIC_MODIFY_QP_DEST_MAC_OFFSET, "");
_Static_assert(offsetof(struct rnic_modify_qp, sgid_index) == RNIC_MODIFY_QP_SGID_INDEX_OFFSET, "");
_Static_assert(offsetof(struct rnic_modify_qp, hop_limit) == RNIC_MODIFY_QP_HOP_LIMIT_OFFSET, "");
_Static_assert(offsetof(struct rnic_modify_qp, traffic_class) == RNIC_MODIFY_QP_TRAFFIC_CLASS_OFFSET, "");
_Static_assert(offsetof(struct rnic_modify_qp, flow_label) == RNIC_MODIFY_QP_FLOW_LABEL_OFFSET, "");
_Static_assert(offsetof(struct rnic_modify_qp, service_level) == RNIC_MODIFY_QP_SERVICE_LEVEL_OFFSET, "");
_Static_assert(sizeof(struct rnic_modify_qp) == RNIC_MODIFY_QP_LENGTH, "");

/*
 * RESOLVE_MAC: the driver asks the wire (ARP, neighbour discovery) for an address's MAC; answered late.
 */
#define RNIC_RESOLVE_MAC_SGID_INDEX_OFFSET 16
#define RNIC_RESOLVE_MAC_TIMEOUT_MS_OFFSET 20
#define RNIC_RESOLVE_MAC_IPV4_OFFSET 24
#define RNIC_RESOLVE_MAC_ADDRESS_HIGH_OFFSET 32
#define RNIC_RESOLVE_MAC_ADDRESS_LOW_OFFSET 40
#define RNIC_RESOLVE_MAC_LENGTH 48

struct rnic_resolve_mac
{
    struct rnic_msg_header header;
    int32_t sgid_index;
    int32_t timeout_ms;
    int32_t ipv4;
    int32_t reserved0;
    int64_t address_high;
    int64_t address_low;
};

_Static_assert(offsetof(struct rnic_resolve_mac, sgid_index) == RNIC_RESOLVE_MAC_SGID_INDEX_OFFSET, "");
_Static_assert(offsetof(struct rnic_resolve_mac, timeout_ms) == RNIC_RESOLVE_MAC_TIMEOUT_MS_OFFSET, "");
_Static_assert(offsetof(struct rnic_resolve_mac, ipv4) == RNIC_RESOLVE_MAC_IPV4_OFFSET, "");
_Static_assert(offsetof(struct rnic_resolve_mac, address_high) == RNIC_RESOLVE_MAC_ADDRESS_HIGH_OFFSET, "");
_Static_assert(offsetof(struct rnic_resolve_mac, address_low) == RNIC_RESOLVE_MAC_ADDRESS_LOW_OFFSET, "");
_Static_assert(sizeof(struct rnic_resolve_mac) == RNIC_RESOLVE_MAC_LENGTH, "");

/*
 * CM_LISTEN and CM_STOP_LISTEN: an RDMA_PS_TCP port of the driver's RDMA CM.
 */
#define RNIC_CM_PORT_PORT_OFFSET 16
#define RNIC_CM_PORT_LENGTH 24

struct rnic_cm_port
{
    struct rnic_msg_header header;
    int32_t port;
    int32_t reserved0;
};

_Static_assert(offsetof(struct rnic_cm_port, port) == RNIC_CM_PORT_PORT_OFFSET, "");
_Static_assert(sizeof(struct rnic_cm_port) == RNIC_CM_PORT_LENGTH, "");

/*
 * CM_CONNECT: the driver sends a REQ for the client's QP (RESET or INIT); resolve the peer's MAC first.
 */
#define RNIC_CM_CONNECT_QP_HANDLE_OFFSET 16
#define RNIC_CM_CONNECT_SGID_INDEX_OFFSET 20
#define RNIC_CM_CONNECT_PEER_GID_HIGH_OFFSET 24
#define RNIC_CM_CONNECT_PEER_GID_LOW_OFFSET 32
#define RNIC_CM_CONNECT_PORT_OFFSET 40
#define RNIC_CM_CONNECT_RESPONDER_RESOURCES_OFFSET 44
#define RNIC_CM_CONNECT_INITIATOR_DEPTH_OFFSET 48
#define RNIC_CM_CONNECT_TYPE_OF_SERVICE_OFFSET 52
#define RNIC_CM_CONNECT_PRIVATE_DATA_LENGTH_OFFSET 56
#define RNIC_CM_CONNECT_PRIVATE_DATA_OFFSET 60
#define RNIC_CM_CONNECT_MAX_PRIVATE_DATA_LENGTH 196
#define RNIC_CM_CONNECT_LENGTH 256

struct rnic_cm_connect
{
    struct rnic_msg_header header;
    int32_t qp_handle;
    int32_t sgid_index;
    int64_t peer_gid_high;
    int64_t peer_gid_low;
    int32_t port;
    int32_t responder_resources;
    int32_t initiator_depth;
    int32_t type_of_service;
    int32_t private_data_length;
    uint8_t private_data[RNIC_CM_CONNECT_MAX_PRIVATE_DATA_LENGTH];
};

_Static_assert(offsetof(struct rnic_cm_connect, qp_handle) == RNIC_CM_CONNECT_QP_HANDLE_OFFSET, "");
_Static_assert(offsetof(struct rnic_cm_connect, sgid_index) == RNIC_CM_CONNECT_SGID_INDEX_OFFSET, "");
_Static_assert(offsetof(struct rnic_cm_connect, peer_gid_high) == RNIC_CM_CONNECT_PEER_GID_HIGH_OFFSET, "");
_Static_assert(offsetof(struct rnic_cm_connect, peer_gid_low) == RNIC_CM_CONNECT_PEER_GID_LOW_OFFSET, "");
_Static_assert(offsetof(struct rnic_cm_connect, port) == RNIC_CM_CONNECT_PORT_OFFSET, "");
_Static_assert(offsetof(struct rnic_cm_connect, responder_resources) == RNIC_CM_CONNECT_RESPONDER_RESOURCES_OFFSET, "");
_Static_assert(offsetof(struct rnic_cm_connect, initiator_depth) == RNIC_CM_CONNECT_INITIATOR_DEPTH_OFFSET, "");
_Static_assert(offsetof(struct rnic_cm_connect, type_of_service) == RNIC_CM_CONNECT_TYPE_OF_SERVICE_OFFSET, "");
_Static_assert(offsetof(struct rnic_cm_connect, private_data_length) == RNIC_CM_CONNECT_PRIVATE_DATA_LENGTH_OFFSET, "");
_Static_assert(offsetof(struct rnic_cm_connect, private_data) == RNIC_CM_CONNECT_PRIVATE_DATA_OFFSET, "");
_Static_assert(sizeof(struct rnic_cm_connect) == RNIC_CM_CONNECT_LENGTH, "");

/*
 * CM_ACCEPT: the driver answers a connect request (REQ_RCVD) with a REP for the client's QP.
 */
#define RNIC_CM_ACCEPT_CM_ID_HANDLE_OFFSET 16
#define RNIC_CM_ACCEPT_QP_HANDLE_OFFSET 20
#define RNIC_CM_ACCEPT_RESPONDER_RESOURCES_OFFSET 24
#define RNIC_CM_ACCEPT_INITIATOR_DEPTH_OFFSET 28
#define RNIC_CM_ACCEPT_PRIVATE_DATA_LENGTH_OFFSET 32
#define RNIC_CM_ACCEPT_PRIVATE_DATA_OFFSET 36
#define RNIC_CM_ACCEPT_MAX_PRIVATE_DATA_LENGTH 196
#define RNIC_CM_ACCEPT_LENGTH 232

struct rnic_cm_accept
{
    struct rnic_msg_header header;
    int32_t cm_id_handle;
    int32_t qp_handle;
    int32_t responder_resources;
    int32_t initiator_depth;
    int32_t private_data_length;
    uint8_t private_data[RNIC_CM_ACCEPT_MAX_PRIVATE_DATA_LENGTH];
};

_Static_assert(offsetof(struct rnic_cm_accept, cm_id_handle) == RNIC_CM_ACCEPT_CM_ID_HANDLE_OFFSET, "");
_Static_assert(offsetof(struct rnic_cm_accept, qp_handle) == RNIC_CM_ACCEPT_QP_HANDLE_OFFSET, "");
_Static_assert(offsetof(struct rnic_cm_accept, responder_resources) == RNIC_CM_ACCEPT_RESPONDER_RESOURCES_OFFSET, "");
_Static_assert(offsetof(struct rnic_cm_accept, initiator_depth) == RNIC_CM_ACCEPT_INITIATOR_DEPTH_OFFSET, "");
_Static_assert(offsetof(struct rnic_cm_accept, private_data_length) == RNIC_CM_ACCEPT_PRIVATE_DATA_LENGTH_OFFSET, "");
_Static_assert(offsetof(struct rnic_cm_accept, private_data) == RNIC_CM_ACCEPT_PRIVATE_DATA_OFFSET, "");
_Static_assert(sizeof(struct rnic_cm_accept) == RNIC_CM_ACCEPT_LENGTH, "");

/*
 * CM_REJECT: the driver rejects a connect request with a REJ.
 */
#define RNIC_CM_REJECT_CM_ID_HANDLE_OFFSET 16
#define RNIC_CM_REJECT_PRIVATE_DATA_LENGTH_OFFSET 20
#define RNIC_CM_REJECT_PRIVATE_DATA_OFFSET 24
#define RNIC_CM_REJECT_MAX_PRIVATE_DATA_LENGTH 148
#define RNIC_CM_REJECT_LENGTH 176

struct rnic_cm_reject
{
    struct rnic_msg_header header;
    int32_t cm_id_handle;
    int32_t private_data_length;
    uint8_t private_data[RNIC_CM_REJECT_MAX_PRIVATE_DATA_LENGTH];
    uint8_t reserved0[4];
};

_Static_assert(offsetof(struct rnic_cm_reject, cm_id_handle) == RNIC_CM_REJECT_CM_ID_HANDLE_OFFSET, "");
_Static_assert(offsetof(struct rnic_cm_reject, private_data_length) == RNIC_CM_REJECT_PRIVATE_DATA_LENGTH_OFFSET, "");
_Static_assert(offsetof(struct rnic_cm_reject, private_data) == RNIC_CM_REJECT_PRIVATE_DATA_OFFSET, "");
_Static_assert(sizeof(struct rnic_cm_reject) == RNIC_CM_REJECT_LENGTH, "");

/*
 * ALLOC_MW: a memory window.
 */
#define RNIC_ALLOC_MW_PD_HANDLE_OFFSET 16
#define RNIC_ALLOC_MW_MW_TYPE_OFFSET 20
#define RNIC_ALLOC_MW_LENGTH 24

struct rnic_alloc_mw
{
    struct rnic_msg_header header;
    int32_t pd_handle;
    int32_t mw_type;
};

_Static_assert(offsetof(struct rnic_alloc_mw, pd_handle) == RNIC_ALLOC_MW_PD_HANDLE_OFFSET, "");
_Static_assert(offsetof(struct rnic_alloc_mw, mw_type) == RNIC_ALLOC_MW_MW_TYPE_OFFSET, "");
_Static_assert(sizeof(struct rnic_alloc_mw) == RNIC_ALLOC_MW_LENGTH, "");

/*
 * CREATE_SRQ: a shared receive queue whose ring is a memfd the driver formats.
 */
#define RNIC_CREATE_SRQ_PD_HANDLE_OFFSET 16
#define RNIC_CREATE_SRQ_MAX_WR_OFFSET 20
#define RNIC_CREATE_SRQ_MAX_SGE_OFFSET 24
#define RNIC_CREATE_SRQ_SRQ_LIMIT_OFFSET 28
#define RNIC_CREATE_SRQ_MEMFD_TOKEN_OFFSET 32
#define RNIC_CREATE_SRQ_FILE_LENGTH_BYTES_OFFSET 40
#define RNIC_CREATE_SRQ_LENGTH 48

struct rnic_create_srq
{
    struct rnic_msg_header header;
    int32_t pd_handle;
    int32_t max_wr;
    int32_t max_sge;
    int32_t srq_limit;
    int64_t memfd_token;
    int64_t file_length_bytes;
};

_Static_assert(offsetof(struct rnic_create_srq, pd_handle) == RNIC_CREATE_SRQ_PD_HANDLE_OFFSET, "");
_Static_assert(offsetof(struct rnic_create_srq, max_wr) == RNIC_CREATE_SRQ_MAX_WR_OFFSET, "");
_Static_assert(offsetof(struct rnic_create_srq, max_sge) == RNIC_CREATE_SRQ_MAX_SGE_OFFSET, "");
_Static_assert(offsetof(struct rnic_create_srq, srq_limit) == RNIC_CREATE_SRQ_SRQ_LIMIT_OFFSET, "");
_Static_assert(offsetof(struct rnic_create_srq, memfd_token) == RNIC_CREATE_SRQ_MEMFD_TOKEN_OFFSET, "");
_Static_assert(offsetof(struct rnic_create_srq, file_length_bytes) == RNIC_CREATE_SRQ_FILE_LENGTH_BYTES_OFFSET, "");
_Static_assert(sizeof(struct rnic_create_srq) == RNIC_CREATE_SRQ_LENGTH, "");

/*
 * MODIFY_SRQ: arms the SRQ's limit (ibv_modify_srq).
 */
#define RNIC_MODIFY_SRQ_SRQ_HANDLE_OFFSET 16
#define RNIC_MODIFY_SRQ_ATTR_MASK_OFFSET 20
#define RNIC_MODIFY_SRQ_SRQ_LIMIT_OFFSET 24
#define RNIC_MODIFY_SRQ_LENGTH 32

struct rnic_modify_srq
{
    struct rnic_msg_header header;
    int32_t srq_handle;
    int32_t attr_mask;
    int32_t srq_limit;
    int32_t reserved0;
};

_Static_assert(offsetof(struct rnic_modify_srq, srq_handle) == RNIC_MODIFY_SRQ_SRQ_HANDLE_OFFSET, "");
_Static_assert(offsetof(struct rnic_modify_srq, attr_mask) == RNIC_MODIFY_SRQ_ATTR_MASK_OFFSET, "");
_Static_assert(offsetof(struct rnic_modify_srq, srq_limit) == RNIC_MODIFY_SRQ_SRQ_LIMIT_OFFSET, "");
_Static_assert(sizeof(struct rnic_modify_srq) == RNIC_MODIFY_SRQ_LENGTH, "");

/*
 * OPEN_ASYNC_EVENTS: the client's event ring, once per client.
 */
#define RNIC_OPEN_ASYNC_EVENTS_MEMFD_TOKEN_OFFSET 16
#define RNIC_OPEN_ASYNC_EVENTS_FILE_LENGTH_BYTES_OFFSET 24
#define RNIC_OPEN_ASYNC_EVENTS_LENGTH 32

struct rnic_open_async_events
{
    struct rnic_msg_header header;
    int64_t memfd_token;
    int64_t file_length_bytes;
};

_Static_assert(offsetof(struct rnic_open_async_events, memfd_token) == RNIC_OPEN_ASYNC_EVENTS_MEMFD_TOKEN_OFFSET, "");
_Static_assert(offsetof(struct rnic_open_async_events, file_length_bytes) == RNIC_OPEN_ASYNC_EVENTS_FILE_LENGTH_BYTES_OFFSET, "");
_Static_assert(sizeof(struct rnic_open_async_events) == RNIC_OPEN_ASYNC_EVENTS_LENGTH, "");

/*
 * ATTACHED: ATTACH's answer.
 */
#define RNIC_ATTACHED_CLIENT_TIMEOUT_NS_OFFSET 16
#define RNIC_ATTACHED_PROTOCOL_VERSION_OFFSET 24
#define RNIC_ATTACHED_LENGTH 32

struct rnic_attached
{
    struct rnic_msg_header header;
    int64_t client_timeout_ns;
    int32_t protocol_version;
    int32_t reserved0;
};

_Static_assert(offsetof(struct rnic_attached, client_timeout_ns) == RNIC_ATTACHED_CLIENT_TIMEOUT_NS_OFFSET, "");
_Static_assert(offsetof(struct rnic_attached, protocol_version) == RNIC_ATTACHED_PROTOCOL_VERSION_OFFSET, "");
_Static_assert(sizeof(struct rnic_attached) == RNIC_ATTACHED_LENGTH, "");

/*
 * MR_REGISTERED: REG_MR's answer.
 */
#define RNIC_MR_REGISTERED_MR_HANDLE_OFFSET 16
#define RNIC_MR_REGISTERED_L_KEY_OFFSET 20
#define RNIC_MR_REGISTERED_R_KEY_OFFSET 24
#define RNIC_MR_REGISTERED_LENGTH 32

struct rnic_mr_registered
{
    struct rnic_msg_header header;
    int32_t mr_handle;
    uint32_t l_key;
    uint32_t r_key;
    int32_t reserved0;
};

_Static_assert(offsetof(struct rnic_mr_registered, mr_handle) == RNIC_MR_REGISTERED_MR_HANDLE_OFFSET, "");
_Static_assert(offsetof(struct rnic_mr_registered, l_key) == RNIC_MR_REGISTERED_L_KEY_OFFSET, "");
_Static_assert(offsetof(struct rnic_mr_registered, r_key) == RNIC_MR_REGISTERED_R_KEY_OFFSET, "");
_Static_assert(sizeof(struct rnic_mr_registered) == RNIC_MR_REGISTERED_LENGTH, "");

/*
 * CQ_CREATED: CREATE_CQ's answer; the CQ is formatted in the file.
 */
#define RNIC_CQ_CREATED_CQ_HANDLE_OFFSET 16
#define RNIC_CQ_CREATED_CAPACITY_OFFSET 20
#define RNIC_CQ_CREATED_LENGTH 24

struct rnic_cq_created
{
    struct rnic_msg_header header;
    int32_t cq_handle;
    int32_t capacity;
};

_Static_assert(offsetof(struct rnic_cq_created, cq_handle) == RNIC_CQ_CREATED_CQ_HANDLE_OFFSET, "");
_Static_assert(offsetof(struct rnic_cq_created, capacity) == RNIC_CQ_CREATED_CAPACITY_OFFSET, "");
_Static_assert(sizeof(struct rnic_cq_created) == RNIC_CQ_CREATED_LENGTH, "");

/*
 * QP_CREATED: CREATE_QP's answer; both rings and the header are formatted in the file.
 */
#define RNIC_QP_CREATED_QP_HANDLE_OFFSET 16
#define RNIC_QP_CREATED_QP_NUM_OFFSET 20
#define RNIC_QP_CREATED_LENGTH 24

struct rnic_qp_created
{
    struct rnic_msg_header header;
    int32_t qp_handle;
    uint32_t qp_num;
};

_Static_assert(offsetof(struct rnic_qp_created, qp_handle) == RNIC_QP_CREATED_QP_HANDLE_OFFSET, "");
_Static_assert(offsetof(struct rnic_qp_created, qp_num) == RNIC_QP_CREATED_QP_NUM_OFFSET, "");
_Static_assert(sizeof(struct rnic_qp_created) == RNIC_QP_CREATED_LENGTH, "");

/*
 * QP_MODIFIED: MODIFY_QP's answer; the state is in the QP file's header already.
 */
#define RNIC_QP_MODIFIED_QP_STATE_OFFSET 16
#define RNIC_QP_MODIFIED_LENGTH 24

struct rnic_qp_modified
{
    struct rnic_msg_header header;
    int32_t qp_state;
    int32_t reserved0;
};

_Static_assert(offsetof(struct rnic_qp_modified, qp_state) == RNIC_QP_MODIFIED_QP_STATE_OFFSET, "");
_Static_assert(sizeof(struct rnic_qp_modified) == RNIC_QP_MODIFIED_LENGTH, "");

/*
 * MAC_RESOLVED: RESOLVE_MAC's answer.
 */
#define RNIC_MAC_RESOLVED_MAC_OFFSET 16
#define RNIC_MAC_RESOLVED_LENGTH 24

struct rnic_mac_resolved
{
    struct rnic_msg_header header;
    int64_t mac;
};

_Static_assert(offsetof(struct rnic_mac_resolved, mac) == RNIC_MAC_RESOLVED_MAC_OFFSET, "");
_Static_assert(sizeof(struct rnic_mac_resolved) == RNIC_MAC_RESOLVED_LENGTH, "");

/*
 * MW_ALLOCATED: ALLOC_MW's answer.
 */
#define RNIC_MW_ALLOCATED_MW_HANDLE_OFFSET 16
#define RNIC_MW_ALLOCATED_R_KEY_OFFSET 20
#define RNIC_MW_ALLOCATED_LENGTH 24

struct rnic_mw_allocated
{
    struct rnic_msg_header header;
    int32_t mw_handle;
    uint32_t r_key;
};

_Static_assert(offsetof(struct rnic_mw_allocated, mw_handle) == RNIC_MW_ALLOCATED_MW_HANDLE_OFFSET, "");
_Static_assert(offsetof(struct rnic_mw_allocated, r_key) == RNIC_MW_ALLOCATED_R_KEY_OFFSET, "");
_Static_assert(sizeof(struct rnic_mw_allocated) == RNIC_MW_ALLOCATED_LENGTH, "");

/*
 * SRQ_CREATED: CREATE_SRQ's answer; the ring is formatted in the file.
 */
#define RNIC_SRQ_CREATED_SRQ_HANDLE_OFFSET 16
#define RNIC_SRQ_CREATED_MAX_WR_OFFSET 20
#define RNIC_SRQ_CREATED_LENGTH 24

struct rnic_srq_created
{
    struct rnic_msg_header header;
    int32_t srq_handle;
    int32_t max_wr;
};

_Static_assert(offsetof(struct rnic_srq_created, srq_handle) == RNIC_SRQ_CREATED_SRQ_HANDLE_OFFSET, "");
_Static_assert(offsetof(struct rnic_srq_created, max_wr) == RNIC_SRQ_CREATED_MAX_WR_OFFSET, "");
_Static_assert(sizeof(struct rnic_srq_created) == RNIC_SRQ_CREATED_LENGTH, "");

/*
 * SRQ_ATTRIBUTES: QUERY_SRQ's answer.
 */
#define RNIC_SRQ_ATTRIBUTES_MAX_WR_OFFSET 16
#define RNIC_SRQ_ATTRIBUTES_MAX_SGE_OFFSET 20
#define RNIC_SRQ_ATTRIBUTES_SRQ_LIMIT_OFFSET 24
#define RNIC_SRQ_ATTRIBUTES_LENGTH 32

struct rnic_srq_attributes
{
    struct rnic_msg_header header;
    int32_t max_wr;
    int32_t max_sge;
    int32_t srq_limit;
    int32_t reserved0;
};

_Static_assert(offsetof(struct rnic_srq_attributes, max_wr) == RNIC_SRQ_ATTRIBUTES_MAX_WR_OFFSET, "");
_Static_assert(offsetof(struct rnic_srq_attributes, max_sge) == RNIC_SRQ_ATTRIBUTES_MAX_SGE_OFFSET, "");
_Static_assert(offsetof(struct rnic_srq_attributes, srq_limit) == RNIC_SRQ_ATTRIBUTES_SRQ_LIMIT_OFFSET, "");
_Static_assert(sizeof(struct rnic_srq_attributes) == RNIC_SRQ_ATTRIBUTES_LENGTH, "");

/*
 * ASYNC_EVENTS_OPENED: OPEN_ASYNC_EVENTS's answer; the ring is formatted in the file.
 */
#define RNIC_ASYNC_EVENTS_OPENED_CAPACITY_OFFSET 16
#define RNIC_ASYNC_EVENTS_OPENED_LENGTH 24

struct rnic_async_events_opened
{
    struct rnic_msg_header header;
    int32_t capacity;
    int32_t reserved0;
};

_Static_assert(offsetof(struct rnic_async_events_opened, capacity) == RNIC_ASYNC_EVENTS_OPENED_CAPACITY_OFFSET, "");
_Static_assert(sizeof(struct rnic_async_events_opened) == RNIC_ASYNC_EVENTS_OPENED_LENGTH, "");

/** The length of every command of `type` (ERROR: its shortest), or -1 for a type the driver does not know. */
static inline int32_t rnic_command_length(int32_t type)
{
    switch (type)
    {
        case RNIC_CTL_ATTACH: return RNIC_ATTACH_LENGTH;
        case RNIC_CTL_KEEPALIVE: case RNIC_CTL_DETACH: case RNIC_CTL_ALLOC_PD:
            return RNIC_MSG_LENGTH;
        case RNIC_CTL_DEALLOC_PD: case RNIC_CTL_DEREG_MR: case RNIC_CTL_DESTROY_CQ: case RNIC_CTL_DESTROY_QP:
        case RNIC_CTL_CM_DISCONNECT: case RNIC_CTL_CM_RELEASE: case RNIC_CTL_DEALLOC_MW: case RNIC_CTL_QUERY_SRQ:
        case RNIC_CTL_DESTROY_SRQ:
            return RNIC_HANDLE_LENGTH;
        case RNIC_CTL_REG_MR: return RNIC_REG_MR_LENGTH;
        case RNIC_CTL_CREATE_CQ: return RNIC_CREATE_CQ_LENGTH;
        case RNIC_CTL_CREATE_QP: return RNIC_CREATE_QP_LENGTH;
        case RNIC_CTL_MODIFY_QP: return RNIC_MODIFY_QP_LENGTH;
        case RNIC_CTL_RESOLVE_MAC: return RNIC_RESOLVE_MAC_LENGTH;
        case RNIC_CTL_CM_LISTEN: case RNIC_CTL_CM_STOP_LISTEN: return RNIC_CM_PORT_LENGTH;
        case RNIC_CTL_CM_CONNECT: return RNIC_CM_CONNECT_LENGTH;
        case RNIC_CTL_CM_ACCEPT: return RNIC_CM_ACCEPT_LENGTH;
        case RNIC_CTL_CM_REJECT: return RNIC_CM_REJECT_LENGTH;
        case RNIC_CTL_ALLOC_MW: return RNIC_ALLOC_MW_LENGTH;
        case RNIC_CTL_CREATE_SRQ: return RNIC_CREATE_SRQ_LENGTH;
        case RNIC_CTL_MODIFY_SRQ: return RNIC_MODIFY_SRQ_LENGTH;
        case RNIC_CTL_OPEN_ASYNC_EVENTS: return RNIC_OPEN_ASYNC_EVENTS_LENGTH;
        default: return -1;
    }
}

/** The length of every answer of `type` (ERROR: its shortest, without the line), or -1 for no answer type. */
static inline int32_t rnic_answer_length(int32_t type)
{
    switch (type)
    {
        case RNIC_CTL_OPERATION_SUCCEEDED: return RNIC_MSG_LENGTH;
        case RNIC_CTL_ERROR: return RNIC_ERROR_MESSAGE_OFFSET;
        case RNIC_CTL_ATTACHED: return RNIC_ATTACHED_LENGTH;
        case RNIC_CTL_HANDLE: return RNIC_HANDLE_LENGTH;
        case RNIC_CTL_MR_REGISTERED: return RNIC_MR_REGISTERED_LENGTH;
        case RNIC_CTL_CQ_CREATED: return RNIC_CQ_CREATED_LENGTH;
        case RNIC_CTL_QP_CREATED: return RNIC_QP_CREATED_LENGTH;
        case RNIC_CTL_QP_MODIFIED: return RNIC_QP_MODIFIED_LENGTH;
        case RNIC_CTL_MAC_RESOLVED: return RNIC_MAC_RESOLVED_LENGTH;
        case RNIC_CTL_MW_ALLOCATED: return RNIC_MW_ALLOCATED_LENGTH;
        case RNIC_CTL_SRQ_CREATED: return RNIC_SRQ_CREATED_LENGTH;
        case RNIC_CTL_SRQ_ATTRIBUTES: return RNIC_SRQ_ATTRIBUTES_LENGTH;
        case RNIC_CTL_ASYNC_EVENTS_OPENED: return RNIC_ASYNC_EVENTS_OPENED_LENGTH;
        default: return -1;
    }
}

/* ---------------------------------------------------------------------------------------------------------------
 * A CM id in an event record's payload (io.rnic.cnc.CmIdCodec)
 * ------------------------------------------------------------------------------------------------------------- */

#define RNIC_CMID_STATE_OFFSET 0                  /* RNIC_CM_STATE_* */
#define RNIC_CMID_REJECT_REASON_OFFSET 4
#define RNIC_CMID_REMOTE_QPN_OFFSET 8
#define RNIC_CMID_REMOTE_PSN_OFFSET 12
#define RNIC_CMID_LOCAL_PSN_OFFSET 16
#define RNIC_CMID_PATH_MTU_BYTES_OFFSET 20        /* 256..4096: bytes, not an ordinal */
#define RNIC_CMID_RESPONDER_RESOURCES_OFFSET 24
#define RNIC_CMID_INITIATOR_DEPTH_OFFSET 28
#define RNIC_CMID_PEER_GID_HIGH_OFFSET 32         /* GID bytes 0..7 as a big-endian number */
#define RNIC_CMID_PEER_GID_LOW_OFFSET 40          /* GID bytes 8..15 */
#define RNIC_CMID_SERVICE_PORT_OFFSET 48
#define RNIC_CMID_PEER_PORT_OFFSET 52
#define RNIC_CMID_PRIVATE_DATA_LENGTH_OFFSET 56
#define RNIC_CMID_PRIVATE_DATA_OFFSET 64
#define RNIC_CMID_MAX_PRIVATE_DATA_LENGTH 196
#define RNIC_CMID_RECORD_LENGTH (RNIC_CMID_PRIVATE_DATA_OFFSET + RNIC_CMID_MAX_PRIVATE_DATA_LENGTH)

struct rnic_cmid_record
{
    int32_t state;                /* RNIC_CM_STATE_* */
    int32_t reject_reason;        /* the REJ's reason once RNIC_CM_STATE_REJECTED */
    uint32_t remote_qpn;
    uint32_t remote_psn;
    uint32_t local_psn;
    int32_t path_mtu_bytes;
    int32_t responder_resources;
    int32_t initiator_depth;
    int64_t peer_gid_high;
    int64_t peer_gid_low;
    int32_t service_port;
    int32_t peer_port;
    int32_t private_data_length;  /* 0..RNIC_CMID_MAX_PRIVATE_DATA_LENGTH */
    int32_t reserved;
    uint8_t private_data[RNIC_CMID_MAX_PRIVATE_DATA_LENGTH];
};

_Static_assert(offsetof(struct rnic_cmid_record, local_psn) == RNIC_CMID_LOCAL_PSN_OFFSET, "cmid local psn");
_Static_assert(offsetof(struct rnic_cmid_record, peer_gid_high) == RNIC_CMID_PEER_GID_HIGH_OFFSET, "cmid gid");
_Static_assert(offsetof(struct rnic_cmid_record, peer_port) == RNIC_CMID_PEER_PORT_OFFSET, "cmid peer port");
_Static_assert(offsetof(struct rnic_cmid_record, private_data_length) == RNIC_CMID_PRIVATE_DATA_LENGTH_OFFSET,
    "cmid private data length");
_Static_assert(offsetof(struct rnic_cmid_record, private_data) == RNIC_CMID_PRIVATE_DATA_OFFSET, "cmid data");

/* ---------------------------------------------------------------------------------------------------------------
 * The memfd socket (io.rnic.shm.FdSocket): AF_UNIX SOCK_SEQPACKET, messages of 16 bytes, at most one SCM_RIGHTS fd
 * ------------------------------------------------------------------------------------------------------------- */

#define RNIC_FDS_TOKEN_LENGTH 16

struct rnic_fds_message
{
    int64_t client_id; /* the token's high long */
    int64_t token;     /* the nonce (hello, no fd) or the memfd's token (one fd) */
};

_Static_assert(sizeof(struct rnic_fds_message) == RNIC_FDS_TOKEN_LENGTH, "fds message");

/** The seals the Java client puts on its memfds; the driver requires F_SEAL_SHRINK (2) of them. */
#define RNIC_SHM_SEALS (0x0001 | 0x0002 | 0x0004) /* F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW */

/* ---------------------------------------------------------------------------------------------------------------
 * A QP's file (io.rnic.cnc.QpQueuesLayout): a 128-byte header, the send ring, the receive ring
 * ------------------------------------------------------------------------------------------------------------- */

#define RNIC_QPF_STATE_OFFSET 0
#define RNIC_QPF_QPN_OFFSET 4
#define RNIC_QPF_HEADER_LENGTH 128
#define RNIC_QPF_FILE_ALIGNMENT 4096 /* every shared file a client makes is whole pages */

struct rnic_qp_file_header
{
    _Atomic int32_t state; /* RNIC_QP_STATE_*, release stores by the driver */
    int32_t qpn;
    uint8_t reserved[120];
};

_Static_assert(offsetof(struct rnic_qp_file_header, qpn) == RNIC_QPF_QPN_OFFSET, "qp file qpn");
_Static_assert(sizeof(struct rnic_qp_file_header) == RNIC_QPF_HEADER_LENGTH, "qp file header");

/* ---------------------------------------------------------------------------------------------------------------
 * A work request ring (io.rnic.verbs.WorkRequestRing): any number of producers (the client's threads), one consumer
 * (the engine), which reads the requests in place. Vyukov's bounded queue, the sequences in the entries:
 *   entry at position p: sequence == p      free for p
 *                        sequence == p + 1  posted at p (the producer's store, release or stronger)
 *                        sequence == p + capacity, after the engine released it: free for the next lap
 * To post: p = load(producer_position); s = load_acquire(entry(p).sequence);
 *   s == p: CAS producer_position p -> p + 1 (seq_cst); on success write the fields, then
 *           store_release(entry(p).sequence, p + 1); else retry;
 *   s <  p: the ring is full (ENOMEM): the engine has not released the entry a lap back;
 *   s >  p: another producer took p: retry with a fresh producer_position.
 * The engine never reads producer_position on its data path: it finds posts by reading the sequence at its own next
 * position, reads each field of an entry once, checks it (sge_count 0..max_sge, lengths >= 0, a known opcode, on a
 * UD send queue a destination MAC), and releases an entry only when done with it (an RC send: acknowledged). A
 * malformed entry moves the QP to the error state and counts in the driver's malformed-work-requests counter.
 * ------------------------------------------------------------------------------------------------------------- */

#define RNIC_WQ_SEND 1
#define RNIC_WQ_RECV 2
#define RNIC_WQ_MAGIC 0x32574E52 /* "RNW2" */
#define RNIC_WQ_MAX_ENTRIES (1 << 20)
#define RNIC_WQ_MALFORMED_OPCODE (-1)
#define RNIC_WQ_MAGIC_OFFSET 0
#define RNIC_WQ_KIND_OFFSET 4
#define RNIC_WQ_CAPACITY_OFFSET 8
#define RNIC_WQ_ENTRY_LENGTH_OFFSET 12
#define RNIC_WQ_MAX_SGE_OFFSET 16
#define RNIC_WQ_PRODUCER_POSITION_OFFSET 128
#define RNIC_WQ_HEADER_LENGTH 256

#define RNIC_WQ_SEQUENCE_OFFSET 0
#define RNIC_WQ_WR_ID_OFFSET 8
#define RNIC_WQ_REMOTE_ADDRESS_OFFSET 16
#define RNIC_WQ_COMPARE_ADD_OFFSET 24
#define RNIC_WQ_SWAP_OFFSET 32
#define RNIC_WQ_DGID_HIGH_OFFSET 40
#define RNIC_WQ_DGID_LOW_OFFSET 48
#define RNIC_WQ_DESTINATION_MAC_OFFSET 56
#define RNIC_WQ_OPCODE_OFFSET 64
#define RNIC_WQ_SEND_FLAGS_OFFSET 68
#define RNIC_WQ_IMMEDIATE_OFFSET 72
#define RNIC_WQ_RKEY_OFFSET 76
#define RNIC_WQ_UD_REMOTE_QPN_OFFSET 80
#define RNIC_WQ_UD_REMOTE_QKEY_OFFSET 84
#define RNIC_WQ_SGID_INDEX_OFFSET 88
#define RNIC_WQ_HOP_LIMIT_OFFSET 92
#define RNIC_WQ_TRAFFIC_CLASS_OFFSET 96
#define RNIC_WQ_FLOW_LABEL_OFFSET 100
#define RNIC_WQ_SERVICE_LEVEL_OFFSET 104
#define RNIC_WQ_SEND_SGE_COUNT_OFFSET 108
#define RNIC_WQ_MW_RKEY_OFFSET 112
#define RNIC_WQ_MW_NEW_RKEY_OFFSET 116
#define RNIC_WQ_MW_MR_LKEY_OFFSET 120
#define RNIC_WQ_MW_ACCESS_OFFSET 124
#define RNIC_WQ_MW_ADDRESS_OFFSET 128
#define RNIC_WQ_MW_LENGTH_OFFSET 136
#define RNIC_WQ_FLUSH_LENGTH_OFFSET 144
#define RNIC_WQ_FLUSH_TYPE_AND_LEVEL_OFFSET 148
#define RNIC_WQ_SEND_SGL_OFFSET 152
#define RNIC_WQ_RECV_SGE_COUNT_OFFSET 16
#define RNIC_WQ_RECV_SGL_OFFSET 24
#define RNIC_WQ_SGE_LENGTH 16
#define RNIC_WQ_SGE_ADDRESS_OFFSET 0
#define RNIC_WQ_SGE_LENGTH_OFFSET 8
#define RNIC_WQ_SGE_LKEY_OFFSET 12

struct rnic_wq_header
{
    _Atomic int32_t magic;      /* RNIC_WQ_MAGIC: the formatter's (the driver's) last store (release) */
    int32_t kind;               /* RNIC_WQ_SEND or RNIC_WQ_RECV */
    int32_t capacity;           /* entries, a power of two */
    int32_t entry_length;       /* rnic_wq_entry_length(kind, max_sge) */
    int32_t max_sge;
    uint8_t reserved0[108];
    _Atomic int64_t producer_position; /* positions claimed: producers' CAS */
    uint8_t reserved1[120];
};

struct rnic_wq_sge
{
    uint64_t address;
    int32_t length;   /* >= 0 */
    uint32_t lkey;
};

struct rnic_wq_send_entry
{
    _Atomic int64_t sequence;  /* see above: the producer's last store (release), the engine's release */
    uint64_t wr_id;
    uint64_t remote_address;
    uint64_t compare_add;
    uint64_t swap;
    uint64_t dgid_high;        /* UD: the destination GID, bytes 0..7 as a big-endian number */
    uint64_t dgid_low;
    uint64_t destination_mac;  /* UD: 48 bits, first octet most significant */
    int32_t opcode;            /* RNIC_WR_* */
    int32_t send_flags;        /* RNIC_SEND_* */
    uint32_t immediate;        /* immediate data as a number (the wire's big-endian value), or the R_Key to invalidate */
    uint32_t rkey;
    uint32_t ud_remote_qpn;
    uint32_t ud_remote_qkey;
    int32_t sgid_index;
    int32_t hop_limit;
    int32_t traffic_class;
    int32_t flow_label;
    int32_t service_level;
    int32_t sge_count;         /* 0..max_sge */
    uint32_t mw_rkey;          /* BIND_MW: the window's R_Key */
    uint32_t mw_new_rkey;
    uint32_t mw_mr_lkey;
    int32_t mw_access;
    uint64_t mw_address;
    uint64_t mw_length;
    int32_t flush_length;
    int32_t flush_type_and_level; /* placement type | selectivity level << 8 */
    /* struct rnic_wq_sge sgl[max_sge] follows */
};

struct rnic_wq_recv_entry
{
    _Atomic int64_t sequence;
    uint64_t wr_id;
    int32_t sge_count;
    int32_t reserved;
    /* struct rnic_wq_sge sgl[max_sge] follows */
};

_Static_assert(offsetof(struct rnic_wq_header, kind) == RNIC_WQ_KIND_OFFSET, "wq kind");
_Static_assert(offsetof(struct rnic_wq_header, capacity) == RNIC_WQ_CAPACITY_OFFSET, "wq capacity");
_Static_assert(offsetof(struct rnic_wq_header, entry_length) == RNIC_WQ_ENTRY_LENGTH_OFFSET, "wq entry length");
_Static_assert(offsetof(struct rnic_wq_header, max_sge) == RNIC_WQ_MAX_SGE_OFFSET, "wq max sge");
_Static_assert(offsetof(struct rnic_wq_header, producer_position) == RNIC_WQ_PRODUCER_POSITION_OFFSET, "wq producer");
_Static_assert(sizeof(struct rnic_wq_header) == RNIC_WQ_HEADER_LENGTH, "wq header");
_Static_assert(sizeof(struct rnic_wq_sge) == RNIC_WQ_SGE_LENGTH, "wq sge");
_Static_assert(offsetof(struct rnic_wq_sge, length) == RNIC_WQ_SGE_LENGTH_OFFSET, "wq sge length");
_Static_assert(offsetof(struct rnic_wq_sge, lkey) == RNIC_WQ_SGE_LKEY_OFFSET, "wq sge lkey");
_Static_assert(offsetof(struct rnic_wq_send_entry, sequence) == RNIC_WQ_SEQUENCE_OFFSET, "send sequence");
_Static_assert(offsetof(struct rnic_wq_send_entry, wr_id) == RNIC_WQ_WR_ID_OFFSET, "send wr id");
_Static_assert(offsetof(struct rnic_wq_send_entry, remote_address) == RNIC_WQ_REMOTE_ADDRESS_OFFSET, "remote address");
_Static_assert(offsetof(struct rnic_wq_send_entry, compare_add) == RNIC_WQ_COMPARE_ADD_OFFSET, "compare add");
_Static_assert(offsetof(struct rnic_wq_send_entry, swap) == RNIC_WQ_SWAP_OFFSET, "swap");
_Static_assert(offsetof(struct rnic_wq_send_entry, dgid_high) == RNIC_WQ_DGID_HIGH_OFFSET, "dgid high");
_Static_assert(offsetof(struct rnic_wq_send_entry, dgid_low) == RNIC_WQ_DGID_LOW_OFFSET, "dgid low");
_Static_assert(offsetof(struct rnic_wq_send_entry, destination_mac) == RNIC_WQ_DESTINATION_MAC_OFFSET, "dmac");
_Static_assert(offsetof(struct rnic_wq_send_entry, opcode) == RNIC_WQ_OPCODE_OFFSET, "opcode");
_Static_assert(offsetof(struct rnic_wq_send_entry, send_flags) == RNIC_WQ_SEND_FLAGS_OFFSET, "send flags");
_Static_assert(offsetof(struct rnic_wq_send_entry, immediate) == RNIC_WQ_IMMEDIATE_OFFSET, "immediate");
_Static_assert(offsetof(struct rnic_wq_send_entry, rkey) == RNIC_WQ_RKEY_OFFSET, "rkey");
_Static_assert(offsetof(struct rnic_wq_send_entry, ud_remote_qpn) == RNIC_WQ_UD_REMOTE_QPN_OFFSET, "ud qpn");
_Static_assert(offsetof(struct rnic_wq_send_entry, ud_remote_qkey) == RNIC_WQ_UD_REMOTE_QKEY_OFFSET, "ud qkey");
_Static_assert(offsetof(struct rnic_wq_send_entry, sgid_index) == RNIC_WQ_SGID_INDEX_OFFSET, "sgid index");
_Static_assert(offsetof(struct rnic_wq_send_entry, hop_limit) == RNIC_WQ_HOP_LIMIT_OFFSET, "hop limit");
_Static_assert(offsetof(struct rnic_wq_send_entry, traffic_class) == RNIC_WQ_TRAFFIC_CLASS_OFFSET, "traffic class");
_Static_assert(offsetof(struct rnic_wq_send_entry, flow_label) == RNIC_WQ_FLOW_LABEL_OFFSET, "flow label");
_Static_assert(offsetof(struct rnic_wq_send_entry, service_level) == RNIC_WQ_SERVICE_LEVEL_OFFSET, "sl");
_Static_assert(offsetof(struct rnic_wq_send_entry, sge_count) == RNIC_WQ_SEND_SGE_COUNT_OFFSET, "send sge count");
_Static_assert(offsetof(struct rnic_wq_send_entry, mw_rkey) == RNIC_WQ_MW_RKEY_OFFSET, "mw rkey");
_Static_assert(offsetof(struct rnic_wq_send_entry, mw_new_rkey) == RNIC_WQ_MW_NEW_RKEY_OFFSET, "mw new rkey");
_Static_assert(offsetof(struct rnic_wq_send_entry, mw_mr_lkey) == RNIC_WQ_MW_MR_LKEY_OFFSET, "mw mr lkey");
_Static_assert(offsetof(struct rnic_wq_send_entry, mw_access) == RNIC_WQ_MW_ACCESS_OFFSET, "mw access");
_Static_assert(offsetof(struct rnic_wq_send_entry, mw_address) == RNIC_WQ_MW_ADDRESS_OFFSET, "mw address");
_Static_assert(offsetof(struct rnic_wq_send_entry, mw_length) == RNIC_WQ_MW_LENGTH_OFFSET, "mw length");
_Static_assert(offsetof(struct rnic_wq_send_entry, flush_length) == RNIC_WQ_FLUSH_LENGTH_OFFSET, "flush length");
_Static_assert(offsetof(struct rnic_wq_send_entry, flush_type_and_level) == RNIC_WQ_FLUSH_TYPE_AND_LEVEL_OFFSET,
    "flush type and level");
_Static_assert(sizeof(struct rnic_wq_send_entry) == RNIC_WQ_SEND_SGL_OFFSET, "send sgl");
_Static_assert(offsetof(struct rnic_wq_recv_entry, wr_id) == RNIC_WQ_WR_ID_OFFSET, "recv wr id");
_Static_assert(offsetof(struct rnic_wq_recv_entry, sge_count) == RNIC_WQ_RECV_SGE_COUNT_OFFSET, "recv sge count");
_Static_assert(sizeof(struct rnic_wq_recv_entry) == RNIC_WQ_RECV_SGL_OFFSET, "recv sgl");

/** Bytes of one entry of a ring of `kind` whose requests carry up to `max_sge` (1..RNIC_MAX_SGE) entries. */
static inline int64_t rnic_wq_entry_length(int kind, int max_sge)
{
    const int64_t sgl = kind == RNIC_WQ_SEND ? RNIC_WQ_SEND_SGL_OFFSET : RNIC_WQ_RECV_SGL_OFFSET;
    return rnic_align(sgl + (int64_t)max_sge * RNIC_WQ_SGE_LENGTH, RNIC_CACHE_LINE_LENGTH);
}

/** Bytes a ring of at least `entries` requests takes, sized with send entries (the longer) whatever its kind. */
static inline int64_t rnic_wq_required_bytes(int entries, int max_sge)
{
    return RNIC_WQ_HEADER_LENGTH + rnic_next_power_of_two(entries) * rnic_wq_entry_length(RNIC_WQ_SEND, max_sge);
}

/** Where a QP file's send ring starts, and its receive ring. */
static inline int64_t rnic_qpf_send_queue_offset(void)
{
    return RNIC_QPF_HEADER_LENGTH;
}

static inline int64_t rnic_qpf_recv_queue_offset(int max_send_wr, int max_send_sge)
{
    return rnic_align(RNIC_QPF_HEADER_LENGTH + rnic_wq_required_bytes(max_send_wr, max_send_sge),
        RNIC_CACHE_LINE_LENGTH);
}

/** The exact length CREATE_QP wants for a QP's file. */
static inline int64_t rnic_qpf_file_length(int max_send_wr, int max_send_sge, int max_recv_wr, int max_recv_sge)
{
    return rnic_align(rnic_qpf_recv_queue_offset(max_send_wr, max_send_sge) +
        rnic_wq_required_bytes(max_recv_wr, max_recv_sge), RNIC_QPF_FILE_ALIGNMENT);
}

/** An SRQ's receive ring, from byte 0 of its file, and the exact length CREATE_SRQ wants for the file. */
static inline int64_t rnic_srq_ring_length(int max_wr, int max_sge)
{
    return RNIC_WQ_HEADER_LENGTH + rnic_next_power_of_two(max_wr) * rnic_wq_entry_length(RNIC_WQ_RECV, max_sge);
}

static inline int64_t rnic_srq_file_length(int max_wr, int max_sge)
{
    return rnic_align(rnic_srq_ring_length(max_wr, max_sge), RNIC_QPF_FILE_ALIGNMENT);
}

/* ---------------------------------------------------------------------------------------------------------------
 * A completion queue (io.rnic.verbs.CompletionQueue): engine threads produce, any client thread consumes
 * ------------------------------------------------------------------------------------------------------------- */

#define RNIC_CQ_MAGIC 0x51434E52 /* "RNCQ" */
#define RNIC_CQ_MAX_ENTRIES (1 << 22)
#define RNIC_CQ_SLOT_LENGTH 64
#define RNIC_CQ_MAX_OFFER_ATTEMPTS 1024
#define RNIC_CQ_MAGIC_OFFSET 0
#define RNIC_CQ_CAPACITY_OFFSET 4
#define RNIC_CQ_SLOT_LENGTH_OFFSET 8
#define RNIC_CQ_NOTIFY_ARMED_OFFSET 64
#define RNIC_CQ_NOTIFY_EVENTS_OFFSET 68
#define RNIC_CQ_TAIL_OFFSET 128
#define RNIC_CQ_OVERRUNS_OFFSET 136
#define RNIC_CQ_HEAD_OFFSET 256
#define RNIC_CQ_HEADER_LENGTH 384
#define RNIC_CQ_SEQUENCE_OFFSET 0
#define RNIC_CQ_WR_ID_OFFSET 8
#define RNIC_CQ_STATUS_OFFSET 16
#define RNIC_CQ_OPCODE_OFFSET 20
#define RNIC_CQ_VENDOR_ERROR_OFFSET 24
#define RNIC_CQ_BYTE_LENGTH_OFFSET 28
#define RNIC_CQ_IMMEDIATE_OFFSET 32
#define RNIC_CQ_QP_NUMBER_OFFSET 36
#define RNIC_CQ_SOURCE_QP_OFFSET 40
#define RNIC_CQ_FLAGS_OFFSET 44
#define RNIC_CQ_NETWORK_HEADER_TYPE_OFFSET 48

struct rnic_cq_header
{
    _Atomic int32_t magic;          /* RNIC_CQ_MAGIC: the formatter's last store (release) */
    int32_t capacity;               /* slots, a power of two >= 2 */
    int32_t slot_length;            /* RNIC_CQ_SLOT_LENGTH */
    uint8_t reserved0[52];
    _Atomic int32_t notify_armed;   /* 1: a consumer waits; the producer that wakes it sets 0 (CAS) */
    _Atomic int32_t notify_events;  /* the futex word: + 1 per wake-up */
    uint8_t reserved1[56];
    _Atomic int64_t tail;           /* next position to fill: producers' CAS */
    _Atomic int64_t overruns;       /* completions refused (queue full): producers' fetch_add */
    uint8_t reserved2[112];
    _Atomic int64_t head;           /* next position to poll: consumers' CAS */
    uint8_t reserved3[120];
};

struct rnic_cq_slot
{
    _Atomic int64_t sequence;       /* position + 1 once filled (release); position + capacity once taken (release) */
    uint64_t wr_id;
    int32_t status;                 /* RNIC_WC_STATUS_* */
    int32_t opcode;                 /* RNIC_WC_OPCODE_* */
    int32_t vendor_error;
    int32_t byte_length;
    uint32_t immediate;             /* immediate data as a number, or the invalidated R_Key */
    uint32_t qp_number;
    uint32_t source_qp;
    int32_t flags;                  /* RNIC_WC_WITH_IMM | RNIC_WC_GRH | RNIC_WC_WITH_INV */
    int32_t network_header_type;    /* UD receives: RNIC_WC_NETWORK_HDR_IPV4 / _IPV6 */
    uint8_t reserved[12];
};

_Static_assert(offsetof(struct rnic_cq_header, capacity) == RNIC_CQ_CAPACITY_OFFSET, "cq capacity");
_Static_assert(offsetof(struct rnic_cq_header, slot_length) == RNIC_CQ_SLOT_LENGTH_OFFSET, "cq slot length");
_Static_assert(offsetof(struct rnic_cq_header, notify_armed) == RNIC_CQ_NOTIFY_ARMED_OFFSET, "cq armed");
_Static_assert(offsetof(struct rnic_cq_header, notify_events) == RNIC_CQ_NOTIFY_EVENTS_OFFSET, "cq events");
_Static_assert(offsetof(struct rnic_cq_header, tail) == RNIC_CQ_TAIL_OFFSET, "cq tail");
_Static_assert(offsetof(struct rnic_cq_header, overruns) == RNIC_CQ_OVERRUNS_OFFSET, "cq overruns");
_Static_assert(offsetof(struct rnic_cq_header, head) == RNIC_CQ_HEAD_OFFSET, "cq head");
_Static_assert(sizeof(struct rnic_cq_header) == RNIC_CQ_HEADER_LENGTH, "cq header");
_Static_assert(offsetof(struct rnic_cq_slot, wr_id) == RNIC_CQ_WR_ID_OFFSET, "cq wr id");
_Static_assert(offsetof(struct rnic_cq_slot, status) == RNIC_CQ_STATUS_OFFSET, "cq status");
_Static_assert(offsetof(struct rnic_cq_slot, opcode) == RNIC_CQ_OPCODE_OFFSET, "cq opcode");
_Static_assert(offsetof(struct rnic_cq_slot, vendor_error) == RNIC_CQ_VENDOR_ERROR_OFFSET, "cq vendor error");
_Static_assert(offsetof(struct rnic_cq_slot, byte_length) == RNIC_CQ_BYTE_LENGTH_OFFSET, "cq byte length");
_Static_assert(offsetof(struct rnic_cq_slot, immediate) == RNIC_CQ_IMMEDIATE_OFFSET, "cq immediate");
_Static_assert(offsetof(struct rnic_cq_slot, qp_number) == RNIC_CQ_QP_NUMBER_OFFSET, "cq qpn");
_Static_assert(offsetof(struct rnic_cq_slot, source_qp) == RNIC_CQ_SOURCE_QP_OFFSET, "cq source qp");
_Static_assert(offsetof(struct rnic_cq_slot, flags) == RNIC_CQ_FLAGS_OFFSET, "cq flags");
_Static_assert(offsetof(struct rnic_cq_slot, network_header_type) == RNIC_CQ_NETWORK_HEADER_TYPE_OFFSET, "cq nht");
_Static_assert(sizeof(struct rnic_cq_slot) == RNIC_CQ_SLOT_LENGTH, "cq slot");

/** Bytes a CQ of at least `entries` completions takes, and the exact length CREATE_CQ wants for its file. */
static inline int64_t rnic_cq_required_bytes(int entries)
{
    return RNIC_CQ_HEADER_LENGTH + rnic_next_power_of_two(entries < 2 ? 2 : entries) * RNIC_CQ_SLOT_LENGTH;
}

static inline int64_t rnic_cq_file_length(int entries)
{
    return rnic_align(rnic_cq_required_bytes(entries), RNIC_QPF_FILE_ALIGNMENT);
}

/* ---------------------------------------------------------------------------------------------------------------
 * A client's event ring (io.rnic.verbs.EventRing): the driver produces asynchronous events and CM id changes, the
 * client consumes; the driver wakes a client asleep on the futex word. See docs/driver-protocol.md, "The event ring".
 * ------------------------------------------------------------------------------------------------------------- */

#define RNIC_EV_MAGIC 0x56454E52 /* "RNEV" */
#define RNIC_EV_CAPACITY 1024
#define RNIC_EV_SLOT_LENGTH 320
#define RNIC_EV_PAYLOAD_LENGTH 304
#define RNIC_EV_KIND_ASYNC_EVENT 1   /* handle: the SRQ's (0 for a QP event); payload: event type, QP number */
#define RNIC_EV_KIND_CM_REQUEST 2    /* handle: a new CM id, a REQ to one of the client's ports; payload: the id */
#define RNIC_EV_KIND_CM_UPDATE 3     /* handle: a CM id of the client's, in a new state; payload: the id */
#define RNIC_EV_MAGIC_OFFSET 0
#define RNIC_EV_CAPACITY_OFFSET 4
#define RNIC_EV_SLOT_LENGTH_OFFSET 8
#define RNIC_EV_WAKE_ARMED_OFFSET 64
#define RNIC_EV_WAKEUPS_OFFSET 68
#define RNIC_EV_DROPPED_OFFSET 72
#define RNIC_EV_CONSUMER_POSITION_OFFSET 128
#define RNIC_EV_HEADER_LENGTH 192
#define RNIC_EV_SEQUENCE_OFFSET 0
#define RNIC_EV_KIND_OFFSET 8
#define RNIC_EV_HANDLE_OFFSET 12
#define RNIC_EV_PAYLOAD_OFFSET 16
#define RNIC_EV_EVENT_TYPE_OFFSET 0  /* in an asynchronous event's payload: RNIC_EVENT_* */
#define RNIC_EV_QP_NUM_OFFSET 4      /* in an asynchronous event's payload: the QP's number, 0 for an SRQ event */

struct rnic_ev_header
{
    _Atomic int32_t magic;              /* RNIC_EV_MAGIC: the driver's last store of formatting (release) */
    int32_t capacity;                   /* slots, a power of two */
    int32_t slot_length;                /* RNIC_EV_SLOT_LENGTH */
    uint8_t reserved0[52];
    _Atomic int32_t wake_armed;         /* 1: the client sleeps or is about to; the driver clears it (CAS) to wake */
    _Atomic int32_t wakeups;            /* the futex word: the driver adds 1, then FUTEX_WAKE */
    _Atomic int64_t dropped;            /* asynchronous events dropped (ring full): the driver's atomic add */
    uint8_t reserved1[48];
    _Atomic int64_t consumer_position;  /* records taken: the client's release store */
    uint8_t reserved2[56];
};

struct rnic_ev_slot
{
    _Atomic int64_t sequence;  /* position + 1 once the record at position is written: the driver's last store */
    int32_t kind;              /* RNIC_EV_KIND_* */
    int32_t handle;
    union
    {
        struct
        {
            int32_t event_type;  /* RNIC_EVENT_* */
            uint32_t qp_num;
        } async_event;
        struct rnic_cmid_record cm_id;
        uint8_t bytes[RNIC_EV_PAYLOAD_LENGTH];
    } payload;
};

_Static_assert(offsetof(struct rnic_ev_header, slot_length) == RNIC_EV_SLOT_LENGTH_OFFSET, "ev slot length");
_Static_assert(offsetof(struct rnic_ev_header, wake_armed) == RNIC_EV_WAKE_ARMED_OFFSET, "ev armed");
_Static_assert(offsetof(struct rnic_ev_header, wakeups) == RNIC_EV_WAKEUPS_OFFSET, "ev wakeups");
_Static_assert(offsetof(struct rnic_ev_header, dropped) == RNIC_EV_DROPPED_OFFSET, "ev dropped");
_Static_assert(offsetof(struct rnic_ev_header, consumer_position) == RNIC_EV_CONSUMER_POSITION_OFFSET, "ev consumer");
_Static_assert(sizeof(struct rnic_ev_header) == RNIC_EV_HEADER_LENGTH, "ev header");
_Static_assert(offsetof(struct rnic_ev_slot, kind) == RNIC_EV_KIND_OFFSET, "ev kind");
_Static_assert(offsetof(struct rnic_ev_slot, handle) == RNIC_EV_HANDLE_OFFSET, "ev handle");
_Static_assert(offsetof(struct rnic_ev_slot, payload) == RNIC_EV_PAYLOAD_OFFSET, "ev payload");
_Static_assert(sizeof(struct rnic_ev_slot) == RNIC_EV_SLOT_LENGTH, "ev slot");
_Static_assert(RNIC_CMID_RECORD_LENGTH <= RNIC_EV_PAYLOAD_LENGTH, "a CM id fits a record");

/** The exact length OPEN_ASYNC_EVENTS wants for the ring's file. */
static inline int64_t rnic_ev_file_length(void)
{
    return rnic_align(RNIC_EV_HEADER_LENGTH + (int64_t)RNIC_EV_CAPACITY * RNIC_EV_SLOT_LENGTH, RNIC_QPF_FILE_ALIGNMENT);
}

/* ---------------------------------------------------------------------------------------------------------------
 * Values the fields above carry (io.rnic.verbs, io.rnic.cm)
 * ------------------------------------------------------------------------------------------------------------- */

/* QP states: the ordinal of io.rnic.verbs.QpState (the values of enum ibv_qp_state) */
#define RNIC_QP_STATE_RESET 0
#define RNIC_QP_STATE_INIT 1
#define RNIC_QP_STATE_RTR 2
#define RNIC_QP_STATE_RTS 3
#define RNIC_QP_STATE_SQD 4
#define RNIC_QP_STATE_SQE 5
#define RNIC_QP_STATE_ERR 6

/* QP types: enum ibv_qp_type's values (io.rnic.verbs.QpType.value()) */
#define RNIC_QP_TYPE_RC 2
#define RNIC_QP_TYPE_UC 3
#define RNIC_QP_TYPE_UD 4

/* path MTUs in MODIFY_QP: enum ibv_mtu's values (io.rnic.verbs.PathMtu.value()); 0: none */
#define RNIC_PATH_MTU_256 1
#define RNIC_PATH_MTU_512 2
#define RNIC_PATH_MTU_1024 3
#define RNIC_PATH_MTU_2048 4
#define RNIC_PATH_MTU_4096 5

/* CM id states: the ordinal of io.rnic.cm.CmState */
#define RNIC_CM_STATE_REQ_RCVD 0
#define RNIC_CM_STATE_REQ_SENT 1
#define RNIC_CM_STATE_REP_SENT 2
#define RNIC_CM_STATE_ESTABLISHED 3
#define RNIC_CM_STATE_DREQ_SENT 4
#define RNIC_CM_STATE_DISCONNECTED 5
#define RNIC_CM_STATE_REJECTED 6
#define RNIC_CM_STATE_TIMED_OUT 7

/* work completion status (enum ibv_wc_status) */
#define RNIC_WC_STATUS_SUCCESS 0
#define RNIC_WC_STATUS_LOC_LEN_ERR 1
#define RNIC_WC_STATUS_LOC_QP_OP_ERR 2
#define RNIC_WC_STATUS_LOC_EEC_OP_ERR 3
#define RNIC_WC_STATUS_LOC_PROT_ERR 4
#define RNIC_WC_STATUS_WR_FLUSH_ERR 5
#define RNIC_WC_STATUS_MW_BIND_ERR 6
#define RNIC_WC_STATUS_BAD_RESP_ERR 7
#define RNIC_WC_STATUS_LOC_ACCESS_ERR 8
#define RNIC_WC_STATUS_REM_INV_REQ_ERR 9
#define RNIC_WC_STATUS_REM_ACCESS_ERR 10
#define RNIC_WC_STATUS_REM_OP_ERR 11
#define RNIC_WC_STATUS_RETRY_EXC_ERR 12
#define RNIC_WC_STATUS_RNR_RETRY_EXC_ERR 13
#define RNIC_WC_STATUS_LOC_RDD_VIOL_ERR 14
#define RNIC_WC_STATUS_REM_INV_RD_REQ_ERR 15
#define RNIC_WC_STATUS_REM_ABORT_ERR 16
#define RNIC_WC_STATUS_INV_EECN_ERR 17
#define RNIC_WC_STATUS_INV_EEC_STATE_ERR 18
#define RNIC_WC_STATUS_FATAL_ERR 19
#define RNIC_WC_STATUS_RESP_TIMEOUT_ERR 20
#define RNIC_WC_STATUS_GENERAL_ERR 21

/* work completion opcodes (enum ibv_wc_opcode) */
#define RNIC_WC_OPCODE_SEND 0
#define RNIC_WC_OPCODE_RDMA_WRITE 1
#define RNIC_WC_OPCODE_RDMA_READ 2
#define RNIC_WC_OPCODE_COMP_SWAP 3
#define RNIC_WC_OPCODE_FETCH_ADD 4
#define RNIC_WC_OPCODE_BIND_MW 5
#define RNIC_WC_OPCODE_LOCAL_INV 6
#define RNIC_WC_OPCODE_FLUSH 8
#define RNIC_WC_OPCODE_ATOMIC_WRITE 9
#define RNIC_WC_OPCODE_RECV 128
#define RNIC_WC_OPCODE_RECV_RDMA_WITH_IMM 129

/* work completion flags and network header types */
#define RNIC_WC_GRH 1
#define RNIC_WC_WITH_IMM 2
#define RNIC_WC_WITH_INV 8
#define RNIC_WC_NETWORK_HDR_IPV4 2
#define RNIC_WC_NETWORK_HDR_IPV6 3

/* send work request opcodes (enum ibv_wr_opcode) */
#define RNIC_WR_RDMA_WRITE 0
#define RNIC_WR_RDMA_WRITE_WITH_IMM 1
#define RNIC_WR_SEND 2
#define RNIC_WR_SEND_WITH_IMM 3
#define RNIC_WR_RDMA_READ 4
#define RNIC_WR_ATOMIC_CMP_AND_SWP 5
#define RNIC_WR_ATOMIC_FETCH_AND_ADD 6
#define RNIC_WR_LOCAL_INV 7
#define RNIC_WR_BIND_MW 8
#define RNIC_WR_SEND_WITH_INV 9
#define RNIC_WR_FLUSH 14
#define RNIC_WR_ATOMIC_WRITE 15

/* send flags (enum ibv_send_flags) */
#define RNIC_SEND_FENCE 1
#define RNIC_SEND_SIGNALED 2
#define RNIC_SEND_SOLICITED 4
#define RNIC_SEND_INLINE 8

/* access flags (enum ibv_access_flags) */
#define RNIC_ACCESS_LOCAL_WRITE 1
#define RNIC_ACCESS_REMOTE_WRITE 2
#define RNIC_ACCESS_REMOTE_READ 4
#define RNIC_ACCESS_REMOTE_ATOMIC 8
#define RNIC_ACCESS_MW_BIND 16
#define RNIC_ACCESS_FLUSH_GLOBAL 256
#define RNIC_ACCESS_FLUSH_PERSISTENT 512
#define RNIC_ACCESS_ALL 15
#define RNIC_ACCESS_WINDOW_ALLOWED 14

/* MODIFY_QP's mask (enum ibv_qp_attr_mask) */
#define RNIC_QP_MASK_STATE (1 << 0)
#define RNIC_QP_MASK_CUR_STATE (1 << 1)
#define RNIC_QP_MASK_EN_SQD_ASYNC_NOTIFY (1 << 2)
#define RNIC_QP_MASK_ACCESS_FLAGS (1 << 3)
#define RNIC_QP_MASK_PKEY_INDEX (1 << 4)
#define RNIC_QP_MASK_PORT (1 << 5)
#define RNIC_QP_MASK_QKEY (1 << 6)
#define RNIC_QP_MASK_AV (1 << 7)
#define RNIC_QP_MASK_PATH_MTU (1 << 8)
#define RNIC_QP_MASK_TIMEOUT (1 << 9)
#define RNIC_QP_MASK_RETRY_CNT (1 << 10)
#define RNIC_QP_MASK_RNR_RETRY (1 << 11)
#define RNIC_QP_MASK_RQ_PSN (1 << 12)
#define RNIC_QP_MASK_MAX_QP_RD_ATOMIC (1 << 13)
#define RNIC_QP_MASK_ALT_PATH (1 << 14)
#define RNIC_QP_MASK_MIN_RNR_TIMER (1 << 15)
#define RNIC_QP_MASK_SQ_PSN (1 << 16)
#define RNIC_QP_MASK_MAX_DEST_RD_ATOMIC (1 << 17)
#define RNIC_QP_MASK_PATH_MIG_STATE (1 << 18)
#define RNIC_QP_MASK_CAP (1 << 19)
#define RNIC_QP_MASK_DEST_QPN (1 << 20)

/* MODIFY_SRQ's mask (enum ibv_srq_attr_mask) */
#define RNIC_SRQ_MASK_MAX_WR 1
#define RNIC_SRQ_MASK_LIMIT 2

/* asynchronous event types (enum ibv_event_type) */
#define RNIC_EVENT_SRQ_LIMIT_REACHED 15
#define RNIC_EVENT_QP_LAST_WQE_REACHED 16

/* errnos an ERROR answer names in errno_value (Linux's) */
#define RNIC_ERRNO_ENOMEM 12
#define RNIC_ERRNO_EBUSY 16
#define RNIC_ERRNO_EINVAL 22
#define RNIC_ERRNO_EOPNOTSUPP 95
#define RNIC_ERRNO_EADDRINUSE 98
#define RNIC_ERRNO_EHOSTUNREACH 113

/** The most scatter/gather entries a work request carries. */
#define RNIC_MAX_SGE 16

#endif /* RNIC_DRIVER_PROTOCOL_H */
