// Memory windows against Linux Soft-RoCE: the guest side of deploy/interop/run.sh's mw cases, run in the rxe guest
// against `bin/rnic mw-peer` on the host (the TCP client). Two RC QPs per side:
//   QP A: this side's windows, the peer's accesses. A type 1 window bound with ibv_bind_mw and a type 2 window bound
//         with IBV_WR_BIND_MW over a region filled with a pattern; the peer READs both (checks the pattern), WRITEs
//         both, invalidates the type 2 window with SEND_WITH_INV and sees its next WRITE refused; we check the bytes
//         and the receive completion (IBV_WC_WITH_INV, invalidated_rkey).
//   QP B: the peer's windows, our accesses, the same steps in the other direction (the last WRITE must complete with
//         IBV_WC_REM_ACCESS_ERR).
// The exchange is one text line each way per step over TCP (port 18516). Prints one "ok ..." or "FAIL ..." line per
// check; exit 0 when every check passed.
//
//   gcc -O2 -Wall -o mw_peer mw_peer.c -libverbs ; mw_peer [-d rxe0] [-g 1] [-p 18516]
#include <arpa/inet.h>
#include <errno.h>
#include <infiniband/verbs.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define REGION_BYTES (64 * 1024)
#define W1_OFFSET 4096
#define W2_OFFSET 16384
#define WINDOW_BYTES 8192
#define SCRATCH_OFFSET 40960

static int failures;
static FILE *tcp_in, *tcp_out;

static void check(int ok, const char *what, const char *detail)
{
    printf("%s %s%s%s\n", ok ? "ok" : "FAIL", what, detail ? ": " : "", detail ? detail : "");
    fflush(stdout);
    if (!ok)
        failures++;
}

static void die(const char *what)
{
    fprintf(stderr, "mw_peer: %s: %s\n", what, strerror(errno));
    exit(2);
}

static uint8_t owner_pattern(long i) { return (uint8_t)(i * 7 + 1); }
static uint8_t peer_pattern(long i) { return (uint8_t)(i * 13 + 5); }

static void send_line(const char *line)
{
    fprintf(tcp_out, "%s\n", line);
    fflush(tcp_out);
}

static void read_line(char *buf, size_t n)
{
    if (!fgets(buf, (int)n, tcp_in))
    {
        fprintf(stderr, "mw_peer: the peer closed the exchange\n");
        exit(2);
    }
}

struct side
{
    struct ibv_qp *qp;
    struct ibv_cq *cq;
};

/** Polls one completion within 20 s. */
static int poll_one(struct ibv_cq *cq, struct ibv_wc *wc)
{
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (;;)
    {
        int n = ibv_poll_cq(cq, 1, wc);
        if (n < 0)
            return -1;
        if (n == 1)
            return 0;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (now.tv_sec - start.tv_sec > 20)
            return -1;
    }
}

static struct ibv_qp *create_qp(struct ibv_pd *pd, struct ibv_cq *cq)
{
    struct ibv_qp_init_attr init = {
        .send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
        .cap = { .max_send_wr = 16, .max_recv_wr = 16, .max_send_sge = 1, .max_recv_sge = 1 },
    };
    struct ibv_qp *qp = ibv_create_qp(pd, &init);
    if (!qp)
        die("ibv_create_qp");
    struct ibv_qp_attr attr = {
        .qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = 1,
        .qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE |
            IBV_ACCESS_REMOTE_ATOMIC,
    };
    if (ibv_modify_qp(qp, &attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
        die("modify to INIT");
    return qp;
}

static void connect_qp(struct ibv_qp *qp, uint32_t dest_qpn, uint32_t psn, uint32_t dest_psn, union ibv_gid *dgid,
    int gid_index)
{
    struct ibv_qp_attr attr = {
        .qp_state = IBV_QPS_RTR, .path_mtu = IBV_MTU_1024, .dest_qp_num = dest_qpn, .rq_psn = dest_psn,
        .max_dest_rd_atomic = 1, .min_rnr_timer = 12,
        .ah_attr = { .is_global = 1, .port_num = 1,
                     .grh = { .dgid = *dgid, .sgid_index = (uint8_t)gid_index, .hop_limit = 64 } },
    };
    if (ibv_modify_qp(qp, &attr, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
        IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
        die("modify to RTR");
    attr.qp_state = IBV_QPS_RTS;
    attr.timeout = 14;
    attr.retry_cnt = 7;
    attr.rnr_retry = 7;
    attr.sq_psn = psn;
    attr.max_rd_atomic = 1;
    if (ibv_modify_qp(qp, &attr, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
        IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC))
        die("modify to RTS");
}

static void post_recv(struct ibv_qp *qp, struct ibv_mr *mr, char *base)
{
    struct ibv_sge sge = { .addr = (uintptr_t)(base + SCRATCH_OFFSET), .length = 4096, .lkey = mr->lkey };
    struct ibv_recv_wr wr = { .wr_id = 90, .sg_list = &sge, .num_sge = 1 }, *bad;
    if (ibv_post_recv(qp, &wr, &bad))
        die("ibv_post_recv");
}

/** Posts one READ, WRITE or SEND_WITH_INV and returns its completion status. */
static int post_one(struct side *s, enum ibv_wr_opcode opcode, struct ibv_mr *mr, char *local, uint32_t length,
    uint64_t remote, uint32_t rkey)
{
    struct ibv_sge sge = { .addr = (uintptr_t)local, .length = length, .lkey = mr->lkey };
    struct ibv_send_wr wr = { .wr_id = 7, .sg_list = &sge, .num_sge = 1, .opcode = opcode,
                              .send_flags = IBV_SEND_SIGNALED }, *bad;
    if (opcode == IBV_WR_SEND_WITH_INV)
        wr.invalidate_rkey = rkey;
    else
    {
        wr.wr.rdma.remote_addr = remote;
        wr.wr.rdma.rkey = rkey;
    }
    if (ibv_post_send(s->qp, &wr, &bad))
        die("ibv_post_send");
    struct ibv_wc wc;
    if (poll_one(s->cq, &wc))
        return -1;
    return wc.status;
}

static int pattern_matches(const char *p, long n, uint8_t (*pattern)(long))
{
    for (long i = 0; i < n; i++)
        if ((uint8_t)p[i] != pattern(i))
            return 0;
    return 1;
}

int main(int argc, char **argv)
{
    const char *device = "rxe0";
    int gid_index = 1, port = 18516;
    for (int i = 1; i + 1 < argc; i += 2)
    {
        if (!strcmp(argv[i], "-d")) device = argv[i + 1];
        else if (!strcmp(argv[i], "-g")) gid_index = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-p")) port = atoi(argv[i + 1]);
    }
    struct ibv_device **list = ibv_get_device_list(NULL);
    struct ibv_device *dev = NULL;
    for (int i = 0; list && list[i]; i++)
        if (!strcmp(ibv_get_device_name(list[i]), device))
            dev = list[i];
    if (!dev)
        die("no such device");
    struct ibv_context *ctx = ibv_open_device(dev);
    struct ibv_device_attr dattr;
    if (!ctx || ibv_query_device(ctx, &dattr))
        die("ibv_open_device");
    printf("device %s max_mw %d (IBV_DEVICE_MEM_WINDOW %s, TYPE_2B %s)\n", device, dattr.max_mw,
        dattr.device_cap_flags & IBV_DEVICE_MEM_WINDOW ? "yes" : "no",
        dattr.device_cap_flags & IBV_DEVICE_MEM_WINDOW_TYPE_2B ? "yes" : "no");
    struct ibv_pd *pd = ibv_alloc_pd(ctx);
    struct ibv_cq *cq_a = ibv_create_cq(ctx, 32, NULL, NULL, 0), *cq_b = ibv_create_cq(ctx, 32, NULL, NULL, 0);
    char *base = aligned_alloc(4096, REGION_BYTES);
    memset(base, 0, REGION_BYTES);
    struct ibv_mr *mr = ibv_reg_mr(pd, base, REGION_BYTES, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
        IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_MW_BIND);
    if (!pd || !cq_a || !cq_b || !mr)
        die("pd/cq/mr");
    struct side a = { create_qp(pd, cq_a), cq_a }, b = { create_qp(pd, cq_b), cq_b };
    union ibv_gid gid;
    if (ibv_query_gid(ctx, 1, gid_index, &gid))
        die("ibv_query_gid");

    int server = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    setsockopt(server, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = INADDR_ANY };
    if (bind(server, (struct sockaddr *)&sin, sizeof(sin)) || listen(server, 1))
        die("listen");
    printf("listening on %d\n", port);
    fflush(stdout);
    int fd = accept(server, NULL, NULL);
    if (fd < 0)
        die("accept");
    tcp_in = fdopen(fd, "r");
    tcp_out = fdopen(dup(fd), "w");

    char line[512], gidhex[33];
    uint32_t psn = (uint32_t)(time(NULL) * 2654435761u) & 0xffffff;
    for (int i = 0; i < 16; i++)
        sprintf(gidhex + 2 * i, "%02x", gid.raw[i]);
    snprintf(line, sizeof(line), "HELLO %u %u %u %s", a.qp->qp_num, b.qp->qp_num, psn, gidhex);
    send_line(line);
    read_line(line, sizeof(line));
    unsigned peer_a, peer_b, peer_psn;
    char peer_gidhex[64];
    if (sscanf(line, "HELLO %u %u %u %40s", &peer_a, &peer_b, &peer_psn, peer_gidhex) != 4 ||
        strlen(peer_gidhex) != 32)
    {
        fprintf(stderr, "mw_peer: bad HELLO: %s", line);
        return 2;
    }
    union ibv_gid dgid;
    for (int i = 0; i < 16; i++)
        sscanf(peer_gidhex + 2 * i, "%2hhx", &dgid.raw[i]);
    connect_qp(a.qp, peer_a, psn, peer_psn, &dgid, gid_index);
    connect_qp(b.qp, peer_b, psn, peer_psn, &dgid, gid_index);

    // ---- QP A: our windows, the peer's accesses
    memset(base, 0xA5, REGION_BYTES);
    for (long i = 0; i < WINDOW_BYTES; i++)
        base[W1_OFFSET + i] = base[W2_OFFSET + i] = (char)owner_pattern(i);
    struct ibv_mw *mw1 = ibv_alloc_mw(pd, IBV_MW_TYPE_1), *mw2 = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
    check(mw1 && mw2, "ibv_alloc_mw type 1 and type 2", NULL);
    if (!mw1 || !mw2)
        return 1;
    struct ibv_mw_bind bind1 = { .wr_id = 1, .send_flags = IBV_SEND_SIGNALED,
        .bind_info = { .mr = mr, .addr = (uintptr_t)(base + W1_OFFSET), .length = WINDOW_BYTES,
                       .mw_access_flags = IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE } };
    uint32_t before = mw1->rkey;
    int rc = ibv_bind_mw(a.qp, mw1, &bind1);
    struct ibv_wc wc;
    char detail[256];
    if (rc == 0 && poll_one(cq_a, &wc) == 0)
    {
        snprintf(detail, sizeof(detail), "status %d opcode %d rkey %#x -> %#x", wc.status, wc.opcode, before, mw1->rkey);
        check(wc.status == IBV_WC_SUCCESS && wc.opcode == IBV_WC_BIND_MW, "rxe binds a type 1 window (ibv_bind_mw)",
            detail);
    }
    else
        check(0, "rxe binds a type 1 window (ibv_bind_mw)", "post or poll failed");
    uint32_t rkey2 = ibv_inc_rkey(mw2->rkey);
    struct ibv_send_wr bind2 = { .wr_id = 2, .opcode = IBV_WR_BIND_MW, .send_flags = IBV_SEND_SIGNALED,
        .bind_mw = { .mw = mw2, .rkey = rkey2,
                     .bind_info = { .mr = mr, .addr = (uintptr_t)(base + W2_OFFSET), .length = WINDOW_BYTES,
                                    .mw_access_flags = IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE } } }, *bad;
    if (ibv_post_send(a.qp, &bind2, &bad) == 0 && poll_one(cq_a, &wc) == 0)
    {
        snprintf(detail, sizeof(detail), "status %d opcode %d rkey %#x", wc.status, wc.opcode, rkey2);
        check(wc.status == IBV_WC_SUCCESS && wc.opcode == IBV_WC_BIND_MW,
            "rxe binds a type 2 window (IBV_WR_BIND_MW)", detail);
    }
    else
        check(0, "rxe binds a type 2 window (IBV_WR_BIND_MW)", "post or poll failed");
    post_recv(a.qp, mr, base);
    snprintf(line, sizeof(line), "WINDOWS %llu %u %llu %u %d", (unsigned long long)(uintptr_t)(base + W1_OFFSET),
        mw1->rkey, (unsigned long long)(uintptr_t)(base + W2_OFFSET), rkey2, WINDOW_BYTES);
    send_line(line);
    read_line(line, sizeof(line)); // DONE: the peer has read, written, invalidated and been refused
    check(pattern_matches(base + W1_OFFSET, WINDOW_BYTES, peer_pattern), "the peer's WRITE through the type 1 window",
        NULL);
    check(pattern_matches(base + W2_OFFSET, WINDOW_BYTES, peer_pattern), "the peer's WRITE through the type 2 window",
        NULL);
    int untouched = 1;
    for (int i = 0; i < 64; i++)
        untouched &= (uint8_t)base[W1_OFFSET + WINDOW_BYTES + i] == 0xA5 &&
            (uint8_t)base[W2_OFFSET + WINDOW_BYTES + i] == 0xA5 && (uint8_t)base[W1_OFFSET - 1 - i] == 0xA5;
    check(untouched, "nothing written outside the windows", NULL);
    if (poll_one(cq_a, &wc) == 0)
    {
        snprintf(detail, sizeof(detail), "status %d opcode %d flags %#x invalidated_rkey %#x (window %#x)", wc.status,
            wc.opcode, wc.wc_flags, wc.invalidated_rkey, rkey2);
        // rxe 6.1 sets the kernel's IB_WC_WITH_INVALIDATE (1 << 2) in the user CQE, which libibverbs reads as
        // IBV_WC_IP_CSUM_OK; IBV_WC_WITH_INV is 1 << 3. Either bit, with the right invalidated_rkey, passes.
        check(wc.status == IBV_WC_SUCCESS && wc.opcode == IBV_WC_RECV &&
            (wc.wc_flags & (IBV_WC_WITH_INV | IBV_WC_IP_CSUM_OK)) && wc.invalidated_rkey == rkey2,
            "the peer's SEND_WITH_INV completes with its invalidated_rkey", detail);
        if (!(wc.wc_flags & IBV_WC_WITH_INV))
            printf("note: rxe flagged the receive %#x: the kernel's IB_WC_WITH_INVALIDATE bit, not IBV_WC_WITH_INV\n",
                wc.wc_flags);
    }
    else
        check(0, "the peer's SEND_WITH_INV completes with its invalidated_rkey", "no receive completion");
    send_line(failures ? "CHECKED fail" : "CHECKED ok");

    // ---- QP B: the peer's windows, our accesses
    read_line(line, sizeof(line));
    unsigned long long va1, va2;
    unsigned pk1, pk2;
    int length;
    if (sscanf(line, "WINDOWS %llu %u %llu %u %d", &va1, &pk1, &va2, &pk2, &length) != 5)
    {
        fprintf(stderr, "mw_peer: bad WINDOWS: %s", line);
        return 2;
    }
    char *scratch = base + SCRATCH_OFFSET;
    memset(scratch, 0, length);
    rc = post_one(&b, IBV_WR_RDMA_READ, mr, scratch, length, va1, pk1);
    snprintf(detail, sizeof(detail), "status %d", rc);
    check(rc == IBV_WC_SUCCESS && pattern_matches(scratch, length, owner_pattern),
        "READ through the peer's type 1 window", detail);
    memset(scratch, 0, length);
    rc = post_one(&b, IBV_WR_RDMA_READ, mr, scratch, length, va2, pk2);
    snprintf(detail, sizeof(detail), "status %d", rc);
    check(rc == IBV_WC_SUCCESS && pattern_matches(scratch, length, owner_pattern),
        "READ through the peer's type 2 window", detail);
    for (long i = 0; i < length; i++)
        scratch[i] = (char)peer_pattern(i);
    rc = post_one(&b, IBV_WR_RDMA_WRITE, mr, scratch, length, va1, pk1);
    snprintf(detail, sizeof(detail), "status %d", rc);
    check(rc == IBV_WC_SUCCESS, "WRITE through the peer's type 1 window", detail);
    rc = post_one(&b, IBV_WR_RDMA_WRITE, mr, scratch, length, va2, pk2);
    snprintf(detail, sizeof(detail), "status %d", rc);
    check(rc == IBV_WC_SUCCESS, "WRITE through the peer's type 2 window", detail);
    rc = post_one(&b, IBV_WR_SEND_WITH_INV, mr, scratch, 16, 0, pk2);
    snprintf(detail, sizeof(detail), "status %d", rc);
    check(rc == IBV_WC_SUCCESS, "SEND_WITH_INV naming the peer's type 2 window", detail);
    rc = post_one(&b, IBV_WR_RDMA_WRITE, mr, scratch, 8, va2, pk2);
    snprintf(detail, sizeof(detail), "status %d (%s)", rc, rc >= 0 ? ibv_wc_status_str(rc) : "none");
    check(rc == IBV_WC_REM_ACCESS_ERR, "a WRITE through the invalidated window: IBV_WC_REM_ACCESS_ERR", detail);
    send_line("DONE");
    read_line(line, sizeof(line)); // CHECKED ok|fail from the peer
    check(!strncmp(line, "CHECKED ok", 10), "the peer's checks of our accesses", line);

    printf("%s: %d failure(s)\n", failures ? "FAIL" : "PASS", failures);
    return failures ? 1 : 0;
}
