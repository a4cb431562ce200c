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
#define RNIC_CNC_VERSION 3

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
 * Commands and answers (io.rnic.cnc.ControlProtocol): the message of a record, after its 8-byte record header
 * ------------------------------------------------------------------------------------------------------------- */

/* command type ids (the command ring's message type ids) */
#define RNIC_CTL_ATTACH 1
#define RNIC_CTL_KEEPALIVE 2
#define RNIC_CTL_DETACH 3
#define RNIC_CTL_ALLOC_PD 4
#define RNIC_CTL_DEALLOC_PD 5
#define RNIC_CTL_REG_MR 6
#define RNIC_CTL_DEREG_MR 7
#define RNIC_CTL_CREATE_CQ 8
#define RNIC_CTL_DESTROY_CQ 9
#define RNIC_CTL_CREATE_QP 10
#define RNIC_CTL_MODIFY_QP 11
#define RNIC_CTL_DESTROY_QP 12
#define RNIC_CTL_RESOLVE_MAC 13
#define RNIC_CTL_CM_LISTEN 14
#define RNIC_CTL_CM_STOP_LISTEN 15
#define RNIC_CTL_CM_CONNECT 16
#define RNIC_CTL_CM_ACCEPT 17
#define RNIC_CTL_CM_REJECT 18
#define RNIC_CTL_CM_DISCONNECT 19
#define RNIC_CTL_CM_RELEASE 20
#define RNIC_CTL_CM_POLL 21
#define RNIC_CTL_ALLOC_MW 22
#define RNIC_CTL_DEALLOC_MW 23
#define RNIC_CTL_CREATE_SRQ 24
#define RNIC_CTL_MODIFY_SRQ 25
#define RNIC_CTL_QUERY_SRQ 26
#define RNIC_CTL_DESTROY_SRQ 27
#define RNIC_CTL_OPEN_ASYNC_EVENTS 28

/* answer type ids (the broadcast buffer's message type ids) */
#define RNIC_CTL_RESULT 101
#define RNIC_CTL_ERROR 102

#define RNIC_CTL_CLIENT_ID_OFFSET 0
#define RNIC_CTL_CORRELATION_ID_OFFSET 8
#define RNIC_CTL_ARGS_OFFSET 16
#define RNIC_CTL_ERROR_CODE_OFFSET 16
#define RNIC_CTL_ERROR_ERRNO_OFFSET 20
#define RNIC_CTL_ERROR_MESSAGE_OFFSET 24
#define RNIC_CTL_MAX_ARGS 64
#define RNIC_CTL_MAX_MESSAGE_LENGTH (RNIC_CTL_ARGS_OFFSET + RNIC_CTL_MAX_ARGS * 8)
#define RNIC_CTL_MAX_RESOLVE_MS 10000

/* error codes of an ERROR answer (errno-like) */
#define RNIC_CTL_ERROR_UNKNOWN_HANDLE 2
#define RNIC_CTL_ERROR_BAD_MEMORY 14
#define RNIC_CTL_ERROR_INVALID 22
#define RNIC_CTL_ERROR_VERBS 95
#define RNIC_CTL_ERROR_UNKNOWN_COMMAND 38
#define RNIC_CTL_ERROR_NOT_ATTACHED 107

/** The first 16 bytes of every command and every answer. */
struct rnic_ctl_header
{
    int64_t client_id;
    int64_t correlation_id;
};

/** A command or a RESULT: the header, then up to 64 int64 arguments or values. */
struct rnic_ctl_message
{
    struct rnic_ctl_header header;
    int64_t args[RNIC_CTL_MAX_ARGS];
};

/** An ERROR: the header, the code, the verbs' errno (0: none), then the message: an int32 length and UTF-8 bytes. */
struct rnic_ctl_error
{
    struct rnic_ctl_header header;
    int32_t code;
    int32_t errno_value;
    int32_t message_length;
    /* then message_length bytes of UTF-8, no terminating NUL */
};

_Static_assert(offsetof(struct rnic_ctl_message, header.client_id) == RNIC_CTL_CLIENT_ID_OFFSET, "client id");
_Static_assert(offsetof(struct rnic_ctl_message, header.correlation_id) == RNIC_CTL_CORRELATION_ID_OFFSET, "corr id");
_Static_assert(offsetof(struct rnic_ctl_message, args) == RNIC_CTL_ARGS_OFFSET, "args");
_Static_assert(sizeof(struct rnic_ctl_message) == RNIC_CTL_MAX_MESSAGE_LENGTH, "max message");
_Static_assert(offsetof(struct rnic_ctl_error, code) == RNIC_CTL_ERROR_CODE_OFFSET, "error code");
_Static_assert(offsetof(struct rnic_ctl_error, errno_value) == RNIC_CTL_ERROR_ERRNO_OFFSET, "error errno");
_Static_assert(offsetof(struct rnic_ctl_error, message_length) == RNIC_CTL_ERROR_MESSAGE_OFFSET, "error message");

/** The length of a command or RESULT of `count` arguments. */
static inline int32_t rnic_ctl_length(int32_t count)
{
    return RNIC_CTL_ARGS_OFFSET + count * 8;
}

/*
 * Each command's arguments, at args[0..]: the index of each, and how many (docs/driver-protocol.md gives the answer
 * of each). Handles are the driver's (int32 values >= 1, carried in an int64).
 */
#define RNIC_ATTACH_PID 0
#define RNIC_ATTACH_NONCE 1
#define RNIC_ATTACH_ARGS 2

#define RNIC_DEALLOC_PD_PD 0
#define RNIC_DEALLOC_PD_ARGS 1

#define RNIC_REG_MR_PD 0
#define RNIC_REG_MR_TOKEN 1
#define RNIC_REG_MR_FILE_LENGTH 2
#define RNIC_REG_MR_FILE_OFFSET 3
#define RNIC_REG_MR_LENGTH 4
#define RNIC_REG_MR_IOVA 5
#define RNIC_REG_MR_ACCESS 6
#define RNIC_REG_MR_ARGS 7

#define RNIC_DEREG_MR_MR 0
#define RNIC_DEREG_MR_ARGS 1

#define RNIC_CREATE_CQ_TOKEN 0
#define RNIC_CREATE_CQ_FILE_LENGTH 1
#define RNIC_CREATE_CQ_ENTRIES 2
#define RNIC_CREATE_CQ_ARGS 3

#define RNIC_DESTROY_CQ_CQ 0
#define RNIC_DESTROY_CQ_ARGS 1

#define RNIC_CREATE_QP_PD 0
#define RNIC_CREATE_QP_SEND_CQ 1
#define RNIC_CREATE_QP_RECV_CQ 2
#define RNIC_CREATE_QP_TYPE 3
#define RNIC_CREATE_QP_MAX_SEND_WR 4
#define RNIC_CREATE_QP_MAX_RECV_WR 5
#define RNIC_CREATE_QP_MAX_SEND_SGE 6
#define RNIC_CREATE_QP_MAX_RECV_SGE 7
#define RNIC_CREATE_QP_SIGNAL_ALL 8
#define RNIC_CREATE_QP_TOKEN 9
#define RNIC_CREATE_QP_FILE_LENGTH 10
#define RNIC_CREATE_QP_SRQ 11
#define RNIC_CREATE_QP_ARGS 12

#define RNIC_MODIFY_QP_QP 0
#define RNIC_MODIFY_QP_MASK 1
#define RNIC_MODIFY_QP_ATTRIBUTES 2
#define RNIC_MODIFY_QP_ARGS (2 + RNIC_QPATTR_ARGS)

#define RNIC_DESTROY_QP_QP 0
#define RNIC_DESTROY_QP_ARGS 1

#define RNIC_RESOLVE_MAC_SGID_INDEX 0
#define RNIC_RESOLVE_MAC_TIMEOUT_MS 1
#define RNIC_RESOLVE_MAC_IPV4 2
#define RNIC_RESOLVE_MAC_ADDRESS_HIGH 3
#define RNIC_RESOLVE_MAC_ADDRESS_LOW 4
#define RNIC_RESOLVE_MAC_ARGS 5

#define RNIC_CM_LISTEN_PORT 0
#define RNIC_CM_LISTEN_ARGS 1

#define RNIC_CM_CONNECT_QP 0
#define RNIC_CM_CONNECT_SGID_INDEX 1
#define RNIC_CM_CONNECT_GID_HIGH 2
#define RNIC_CM_CONNECT_GID_LOW 3
#define RNIC_CM_CONNECT_PORT 4
#define RNIC_CM_CONNECT_RESPONDER_RESOURCES 5
#define RNIC_CM_CONNECT_INITIATOR_DEPTH 6
#define RNIC_CM_CONNECT_TYPE_OF_SERVICE 7
#define RNIC_CM_CONNECT_PRIVATE_DATA 8

#define RNIC_CM_ACCEPT_ID 0
#define RNIC_CM_ACCEPT_QP 1
#define RNIC_CM_ACCEPT_RESPONDER_RESOURCES 2
#define RNIC_CM_ACCEPT_INITIATOR_DEPTH 3
#define RNIC_CM_ACCEPT_PRIVATE_DATA 4

#define RNIC_CM_REJECT_ID 0
#define RNIC_CM_REJECT_PRIVATE_DATA 1
#define RNIC_CM_REJECT_MAX_PRIVATE_DATA_LENGTH 148

#define RNIC_CM_ID_ARG 0
#define RNIC_CM_ID_ARGS 1

#define RNIC_ALLOC_MW_PD 0
#define RNIC_ALLOC_MW_TYPE 1
#define RNIC_ALLOC_MW_ARGS 2

#define RNIC_CREATE_SRQ_PD 0
#define RNIC_CREATE_SRQ_MAX_WR 1
#define RNIC_CREATE_SRQ_MAX_SGE 2
#define RNIC_CREATE_SRQ_LIMIT 3
#define RNIC_CREATE_SRQ_TOKEN 4
#define RNIC_CREATE_SRQ_FILE_LENGTH 5
#define RNIC_CREATE_SRQ_ARGS 6

#define RNIC_MODIFY_SRQ_SRQ 0
#define RNIC_MODIFY_SRQ_MASK 1
#define RNIC_MODIFY_SRQ_LIMIT 2
#define RNIC_MODIFY_SRQ_ARGS 3

#define RNIC_OPEN_ASYNC_EVENTS_TOKEN 0
#define RNIC_OPEN_ASYNC_EVENTS_FILE_LENGTH 1
#define RNIC_OPEN_ASYNC_EVENTS_ARGS 2

/* ---------------------------------------------------------------------------------------------------------------
 * MODIFY_QP's attributes (io.rnic.cnc.QpAttributesCodec): 24 int64 from args[2], in this order. Enums by ordinal
 * (-1: none); every other field an int32 value (sign- or zero-extended).
 * ------------------------------------------------------------------------------------------------------------- */

#define RNIC_QPATTR_ARGS 24
#define RNIC_QPATTR_STATE 0               /* RNIC_QP_STATE_* */
#define RNIC_QPATTR_CURRENT_STATE 1       /* RNIC_QP_STATE_* */
#define RNIC_QPATTR_PATH_MTU 2            /* RNIC_PATH_MTU_*: the ordinal, 0 = 256 bytes (ibv_mtu - 1) */
#define RNIC_QPATTR_QKEY 3
#define RNIC_QPATTR_RQ_PSN 4
#define RNIC_QPATTR_SQ_PSN 5
#define RNIC_QPATTR_DEST_QP_NUM 6
#define RNIC_QPATTR_ACCESS_FLAGS 7
#define RNIC_QPATTR_PKEY_INDEX 8
#define RNIC_QPATTR_PORT_NUM 9
#define RNIC_QPATTR_TIMEOUT 10
#define RNIC_QPATTR_RETRY_CNT 11
#define RNIC_QPATTR_RNR_RETRY 12
#define RNIC_QPATTR_MIN_RNR_TIMER 13
#define RNIC_QPATTR_MAX_RD_ATOMIC 14
#define RNIC_QPATTR_MAX_DEST_RD_ATOMIC 15
#define RNIC_QPATTR_AV_DGID_HIGH 16       /* GID bytes 0..7 as a big-endian number */
#define RNIC_QPATTR_AV_DGID_LOW 17        /* GID bytes 8..15 */
#define RNIC_QPATTR_AV_SGID_INDEX 18
#define RNIC_QPATTR_AV_HOP_LIMIT 19
#define RNIC_QPATTR_AV_TRAFFIC_CLASS 20
#define RNIC_QPATTR_AV_FLOW_LABEL 21
#define RNIC_QPATTR_AV_SL 22
#define RNIC_QPATTR_AV_DMAC 23            /* the 48-bit MAC, its first octet the most significant */

/* ---------------------------------------------------------------------------------------------------------------
 * CM_POLL's answer, and private data in arguments (io.rnic.cnc.CmIdCodec)
 * ------------------------------------------------------------------------------------------------------------- */

#define RNIC_CMID_KIND_NONE 0
#define RNIC_CMID_KIND_REQUEST 1
#define RNIC_CMID_KIND_UPDATE 2
#define RNIC_CMID_KIND 0
#define RNIC_CMID_ID 1
#define RNIC_CMID_STATE 2                 /* RNIC_CM_STATE_* */
#define RNIC_CMID_REJECT_REASON 3
#define RNIC_CMID_REMOTE_QPN 4
#define RNIC_CMID_REMOTE_PSN 5
#define RNIC_CMID_LOCAL_PSN 6
#define RNIC_CMID_PATH_MTU_BYTES 7        /* 256..4096: bytes, not an ordinal */
#define RNIC_CMID_RESPONDER_RESOURCES 8
#define RNIC_CMID_INITIATOR_DEPTH 9
#define RNIC_CMID_PEER_GID_HIGH 10
#define RNIC_CMID_PEER_GID_LOW 11
#define RNIC_CMID_SERVICE_PORT 12
#define RNIC_CMID_PEER_PORT 13
#define RNIC_CMID_PRIVATE_DATA 14         /* its length, then the bytes, 8 to an int64, little-endian */
#define RNIC_CMID_MAX_PRIVATE_DATA_LENGTH 196
#define RNIC_CMID_PRIVATE_DATA_ARGS (1 + (RNIC_CMID_MAX_PRIVATE_DATA_LENGTH + 7) / 8)
#define RNIC_CMID_ANSWER_VALUES (RNIC_CMID_PRIVATE_DATA + RNIC_CMID_PRIVATE_DATA_ARGS)

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
 * A work request ring (io.rnic.verbs.WorkRequestRing): one producer (the client), one consumer (the engine)
 * ------------------------------------------------------------------------------------------------------------- */

#define RNIC_WQ_SEND 1
#define RNIC_WQ_RECV 2
#define RNIC_WQ_MAGIC 0x51574E52 /* "RNWQ" */
#define RNIC_WQ_MAX_ENTRIES (1 << 20)
#define RNIC_WQ_MAGIC_OFFSET 0
#define RNIC_WQ_KIND_OFFSET 4
#define RNIC_WQ_CAPACITY_OFFSET 8
#define RNIC_WQ_ENTRY_LENGTH_OFFSET 12
#define RNIC_WQ_MAX_SGE_OFFSET 16
#define RNIC_WQ_PRODUCER_POSITION_OFFSET 128
#define RNIC_WQ_CONSUMER_POSITION_OFFSET 256
#define RNIC_WQ_HEADER_LENGTH 384

#define RNIC_WQ_WR_ID_OFFSET 0
#define RNIC_WQ_REMOTE_ADDRESS_OFFSET 8
#define RNIC_WQ_COMPARE_ADD_OFFSET 16
#define RNIC_WQ_SWAP_OFFSET 24
#define RNIC_WQ_DGID_HIGH_OFFSET 32
#define RNIC_WQ_DGID_LOW_OFFSET 40
#define RNIC_WQ_DESTINATION_MAC_OFFSET 48
#define RNIC_WQ_OPCODE_OFFSET 56
#define RNIC_WQ_SEND_FLAGS_OFFSET 60
#define RNIC_WQ_IMMEDIATE_OFFSET 64
#define RNIC_WQ_RKEY_OFFSET 68
#define RNIC_WQ_UD_REMOTE_QPN_OFFSET 72
#define RNIC_WQ_UD_REMOTE_QKEY_OFFSET 76
#define RNIC_WQ_SGID_INDEX_OFFSET 80
#define RNIC_WQ_HOP_LIMIT_OFFSET 84
#define RNIC_WQ_TRAFFIC_CLASS_OFFSET 88
#define RNIC_WQ_FLOW_LABEL_OFFSET 92
#define RNIC_WQ_SERVICE_LEVEL_OFFSET 96
#define RNIC_WQ_SEND_SGE_COUNT_OFFSET 100
#define RNIC_WQ_MW_RKEY_OFFSET 104
#define RNIC_WQ_MW_NEW_RKEY_OFFSET 108
#define RNIC_WQ_MW_MR_LKEY_OFFSET 112
#define RNIC_WQ_MW_ACCESS_OFFSET 116
#define RNIC_WQ_MW_ADDRESS_OFFSET 120
#define RNIC_WQ_MW_LENGTH_OFFSET 128
#define RNIC_WQ_FLUSH_LENGTH_OFFSET 136
#define RNIC_WQ_FLUSH_TYPE_AND_LEVEL_OFFSET 140
#define RNIC_WQ_SEND_SGL_OFFSET 144
#define RNIC_WQ_RECV_SGE_COUNT_OFFSET 8
#define RNIC_WQ_RECV_SGL_OFFSET 16
#define RNIC_WQ_SGE_LENGTH 16
#define RNIC_WQ_SGE_ADDRESS_OFFSET 0
#define RNIC_WQ_SGE_LENGTH_OFFSET 8
#define RNIC_WQ_SGE_LKEY_OFFSET 12

struct rnic_wq_header
{
    _Atomic int32_t magic;      /* RNIC_WQ_MAGIC: the formatter's last store (release) */
    int32_t kind;               /* RNIC_WQ_SEND or RNIC_WQ_RECV */
    int32_t capacity;           /* entries, a power of two */
    int32_t entry_length;       /* rnic_wq_entry_length(kind, max_sge) */
    int32_t max_sge;
    uint8_t reserved0[108];
    _Atomic int64_t producer_position; /* entries posted: the client's release store */
    uint8_t reserved1[120];
    _Atomic int64_t consumer_position; /* entries taken: the engine's release store */
    uint8_t reserved2[120];
};

struct rnic_wq_sge
{
    uint64_t address;
    int32_t length;   /* >= 0 */
    uint32_t lkey;
};

struct rnic_wq_send_entry
{
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
_Static_assert(offsetof(struct rnic_wq_header, consumer_position) == RNIC_WQ_CONSUMER_POSITION_OFFSET, "wq consumer");
_Static_assert(sizeof(struct rnic_wq_header) == RNIC_WQ_HEADER_LENGTH, "wq header");
_Static_assert(sizeof(struct rnic_wq_sge) == RNIC_WQ_SGE_LENGTH, "wq sge");
_Static_assert(offsetof(struct rnic_wq_sge, length) == RNIC_WQ_SGE_LENGTH_OFFSET, "wq sge length");
_Static_assert(offsetof(struct rnic_wq_sge, lkey) == RNIC_WQ_SGE_LKEY_OFFSET, "wq sge lkey");
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
    "flush type");
_Static_assert(sizeof(struct rnic_wq_send_entry) == RNIC_WQ_SEND_SGL_OFFSET, "send sgl");
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
 * A client's asynchronous event ring (io.rnic.cnc.AsyncEventRing): the driver produces, the client consumes
 * ------------------------------------------------------------------------------------------------------------- */

#define RNIC_AE_MAGIC 0x45414E52 /* "RNAE" */
#define RNIC_AE_CAPACITY 1024
#define RNIC_AE_MAGIC_OFFSET 0
#define RNIC_AE_CAPACITY_OFFSET 4
#define RNIC_AE_PRODUCER_POSITION_OFFSET 64
#define RNIC_AE_DROPPED_OFFSET 72
#define RNIC_AE_CONSUMER_POSITION_OFFSET 128
#define RNIC_AE_HEADER_LENGTH 192
#define RNIC_AE_EVENT_TYPE_OFFSET 0
#define RNIC_AE_QP_NUM_OFFSET 4
#define RNIC_AE_SRQ_HANDLE_OFFSET 8
#define RNIC_AE_RESERVED_OFFSET 12
#define RNIC_AE_ENTRY_LENGTH 16

struct rnic_ae_header
{
    _Atomic int32_t magic;              /* RNIC_AE_MAGIC: the driver's last store of formatting (release) */
    int32_t capacity;                   /* entries, a power of two */
    uint8_t reserved0[56];
    _Atomic int64_t producer_position;  /* events written: the driver's release store */
    _Atomic int64_t dropped;            /* events dropped (ring full): the driver's release store */
    uint8_t reserved1[48];
    _Atomic int64_t consumer_position;  /* events taken: the client's release store */
    uint8_t reserved2[56];
};

struct rnic_ae_entry
{
    int32_t event_type;  /* RNIC_EVENT_* */
    uint32_t qp_num;     /* a QP event's QP number, else 0 */
    int32_t srq_handle;  /* an SRQ event's SRQ handle, else 0 */
    int32_t reserved;
};

_Static_assert(offsetof(struct rnic_ae_header, capacity) == RNIC_AE_CAPACITY_OFFSET, "ae capacity");
_Static_assert(offsetof(struct rnic_ae_header, producer_position) == RNIC_AE_PRODUCER_POSITION_OFFSET, "ae producer");
_Static_assert(offsetof(struct rnic_ae_header, dropped) == RNIC_AE_DROPPED_OFFSET, "ae dropped");
_Static_assert(offsetof(struct rnic_ae_header, consumer_position) == RNIC_AE_CONSUMER_POSITION_OFFSET, "ae consumer");
_Static_assert(sizeof(struct rnic_ae_header) == RNIC_AE_HEADER_LENGTH, "ae header");
_Static_assert(offsetof(struct rnic_ae_entry, qp_num) == RNIC_AE_QP_NUM_OFFSET, "ae qpn");
_Static_assert(offsetof(struct rnic_ae_entry, srq_handle) == RNIC_AE_SRQ_HANDLE_OFFSET, "ae srq");
_Static_assert(offsetof(struct rnic_ae_entry, reserved) == RNIC_AE_RESERVED_OFFSET, "ae reserved");
_Static_assert(sizeof(struct rnic_ae_entry) == RNIC_AE_ENTRY_LENGTH, "ae entry");

/** The exact length OPEN_ASYNC_EVENTS wants for the ring's file. */
static inline int64_t rnic_ae_file_length(void)
{
    return rnic_align(RNIC_AE_HEADER_LENGTH + RNIC_AE_CAPACITY * RNIC_AE_ENTRY_LENGTH, RNIC_QPF_FILE_ALIGNMENT);
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

/* QP types: the ordinal of io.rnic.verbs.QpType (NOT enum ibv_qp_type, where RC is 2) */
#define RNIC_QP_TYPE_RC 0
#define RNIC_QP_TYPE_UC 1
#define RNIC_QP_TYPE_UD 2

/* path MTUs in MODIFY_QP: the ordinal of io.rnic.verbs.PathMtu (ibv_mtu - 1) */
#define RNIC_PATH_MTU_256 0
#define RNIC_PATH_MTU_512 1
#define RNIC_PATH_MTU_1024 2
#define RNIC_PATH_MTU_2048 3
#define RNIC_PATH_MTU_4096 4

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
#define RNIC_ERRNO_EHOSTUNREACH 113

/** The most scatter/gather entries a work request carries. */
#define RNIC_MAX_SGE 16

#endif /* RNIC_DRIVER_PROTOCOL_H */
