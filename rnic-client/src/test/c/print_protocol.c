/*
 * Prints every constant of rnic/driver_protocol.h as "NAME VALUE" lines, then the length computations of the header
 * for a grid of inputs as "function(args) VALUE", for io.rnic.cnc.ProtocolHeaderTest to compare with the Java
 * layouts. The test generates protocol_names.inc (one RNIC_NAME(X) line per #define of the header) and compiles this
 * with -Wall -Wextra -Werror -std=c11 -pedantic.
 */
#include <stdio.h>

#include "rnic/driver_protocol.h"

static void print_integer(const char *name, long long value)
{
    printf("%s %lld\n", name, value);
}

static void print_string(const char *name, const char *value)
{
    printf("%s \"%s\"\n", name, value);
}

#define RNIC_NAME(name) _Generic((name), char *: print_string, const char *: print_string, default: print_integer)( \
    #name, (name));

int main(void)
{
#include "protocol_names.inc"

    static const int sges[] = { 1, 2, 3, 4, 5, 8, 15, 16 };
    static const int entries[] = { 1, 2, 3, 7, 64, 100, 1000, 4097, 65536 };
    const int sgeCount = (int)(sizeof(sges) / sizeof(sges[0]));
    const int entryCount = (int)(sizeof(entries) / sizeof(entries[0]));
    for (int s = 0; s < sgeCount; s++)
    {
        printf("rnic_wq_entry_length(%d,%d) %lld\n", RNIC_WQ_SEND, sges[s],
            (long long)rnic_wq_entry_length(RNIC_WQ_SEND, sges[s]));
        printf("rnic_wq_entry_length(%d,%d) %lld\n", RNIC_WQ_RECV, sges[s],
            (long long)rnic_wq_entry_length(RNIC_WQ_RECV, sges[s]));
        for (int e = 0; e < entryCount; e++)
        {
            printf("rnic_wq_required_bytes(%d,%d) %lld\n", entries[e], sges[s],
                (long long)rnic_wq_required_bytes(entries[e], sges[s]));
            printf("rnic_srq_ring_length(%d,%d) %lld\n", entries[e], sges[s],
                (long long)rnic_srq_ring_length(entries[e], sges[s]));
            printf("rnic_srq_file_length(%d,%d) %lld\n", entries[e], sges[s],
                (long long)rnic_srq_file_length(entries[e], sges[s]));
            printf("rnic_qpf_recv_queue_offset(%d,%d) %lld\n", entries[e], sges[s],
                (long long)rnic_qpf_recv_queue_offset(entries[e], sges[s]));
            const int other = entries[(e + 3) % entryCount];
            const int otherSge = sges[(s + 5) % sgeCount];
            printf("rnic_qpf_file_length(%d,%d,%d,%d) %lld\n", entries[e], sges[s], other, otherSge,
                (long long)rnic_qpf_file_length(entries[e], sges[s], other, otherSge));
        }
    }
    printf("rnic_qpf_send_queue_offset() %lld\n", (long long)rnic_qpf_send_queue_offset());
    static const int cqEntries[] = { 1, 2, 3, 63, 64, 65, 1000, 4096, 1 << 22 };
    for (int e = 0; e < (int)(sizeof(cqEntries) / sizeof(cqEntries[0])); e++)
    {
        printf("rnic_cq_required_bytes(%d) %lld\n", cqEntries[e], (long long)rnic_cq_required_bytes(cqEntries[e]));
        printf("rnic_cq_file_length(%d) %lld\n", cqEntries[e], (long long)rnic_cq_file_length(cqEntries[e]));
    }
    printf("rnic_ev_file_length() %lld\n", (long long)rnic_ev_file_length());
    for (int type = -1; type <= 130; type++)
    {
        printf("rnic_command_length(%d) %d\n", type, rnic_command_length(type));
        printf("rnic_answer_length(%d) %d\n", type, rnic_answer_length(type));
    }

    /* the CnC file as the driver lays it out with its default lengths (the test gives them) */
    static const int32_t capacities[][4] = { { 1 << 20, 1 << 20, 32768, 1 << 20 }, { 1024, 4096, 3, 100 } };
    static const int32_t deviceInfoLengths[] = { 1 << 16, 52 };
    for (int c = 0; c < 2; c++)
    {
        struct rnic_cnc_header header = { 0 };
        header.to_driver_length = capacities[c][0] + RNIC_RB_TRAILER_LENGTH;
        header.to_clients_length = capacities[c][1] + RNIC_BC_TRAILER_LENGTH;
        header.counters_metadata_length = capacities[c][2] * RNIC_COUNTERS_METADATA_LENGTH;
        header.counters_values_length = capacities[c][2] * RNIC_COUNTERS_COUNTER_LENGTH;
        header.error_log_length = capacities[c][3];
        header.device_info_length = deviceInfoLengths[c];
        printf("rnic_cnc_file_length(%d,%d,%d,%d,%d) %lld\n", capacities[c][0], capacities[c][1], capacities[c][2],
            capacities[c][3], deviceInfoLengths[c], (long long)rnic_cnc_file_length(&header));
    }
    return 0;
}
