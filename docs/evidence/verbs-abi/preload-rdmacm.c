#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <sys/eventfd.h>
#include <rdma/rdma_cma.h>
struct rdma_event_channel *rdma_create_event_channel(void) {
    struct rdma_event_channel *c = malloc(sizeof *c); c->fd = eventfd(0, EFD_CLOEXEC);
    fprintf(stderr, "[cm] rdma_create_event_channel fd=%d\n", c->fd); return c;
}
void rdma_destroy_event_channel(struct rdma_event_channel *c) { fprintf(stderr, "[cm] destroy channel\n"); free(c); }
int rdma_create_id(struct rdma_event_channel *c, struct rdma_cm_id **id, void *ctx, enum rdma_port_space ps) {
    fprintf(stderr, "[cm] rdma_create_id ps=0x%x\n", ps); errno = ENOSYS; return -1;
}
int rdma_getaddrinfo(const char *node, const char *service, const struct rdma_addrinfo *hints, struct rdma_addrinfo **res) {
    fprintf(stderr, "[cm] rdma_getaddrinfo %s %s\n", node ? node : "-", service ? service : "-"); errno = ENOSYS; return -1;
}
