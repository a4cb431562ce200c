/* Experiment only: a fake device to check the ABI assumptions against real binaries. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <stdint.h>
#include <arpa/inet.h>
#include <infiniband/verbs.h>
static struct ibv_device dev;
static void trace(const char *f) { if (getenv("FAKE_TRACE")) fprintf(stderr, "[fake] %s\n", f); }
struct ibv_device **ibv_get_device_list(int *num) {
    trace(__func__);
    struct ibv_device **l = calloc(2, sizeof *l);
    if (getenv("FAKE_NONE")) { if (num) *num = 0; return l; }
    strcpy(dev.name, "rnic_veth0"); strcpy(dev.dev_name, "rnic0");
    dev.node_type = IBV_NODE_CA; dev.transport_type = IBV_TRANSPORT_IB;
    l[0] = &dev; if (num) *num = 1; return l;
}
void ibv_free_device_list(struct ibv_device **l) { trace(__func__); free(l); }
const char *ibv_get_device_name(struct ibv_device *d) { trace(__func__); return d->name; }
__be64 ibv_get_device_guid(struct ibv_device *d) { trace(__func__); return htobe64(0x0200c0fffe000001ULL); }
static int q_port(struct ibv_context *c, uint8_t p, struct ibv_port_attr *a, size_t len) {
    trace(__func__); memset(a, 0, len);
    a->state = IBV_PORT_ACTIVE; a->max_mtu = a->active_mtu = IBV_MTU_1024; a->gid_tbl_len = 4;
    a->max_msg_sz = 1u << 31; a->pkey_tbl_len = 1; a->link_layer = IBV_LINK_LAYER_ETHERNET;
    a->active_width = 1; a->active_speed = 32; a->phys_state = 5; a->port_cap_flags = IBV_PORT_CM_SUP;
    return 0;
}
static void fill_dev(struct ibv_device_attr *a) {
    memset(a, 0, sizeof *a); strcpy(a->fw_ver, "0.1"); a->node_guid = htobe64(0x0200c0fffe000001ULL);
    a->vendor_id = 0; a->vendor_part_id = 0; a->phys_port_cnt = 1; a->max_qp = 1024; a->max_qp_wr = 4096;
}
static int q_dev_ex(struct ibv_context *c, const struct ibv_query_device_ex_input *in, struct ibv_device_attr_ex *a, size_t sz) {
    trace(__func__); memset(a, 0, sz); fill_dev(&a->orig_attr); a->phys_port_cnt_ex = 1; return 0;
}
int ibv_query_device(struct ibv_context *c, struct ibv_device_attr *a) { trace(__func__); fill_dev(a); return 0; }
#undef ibv_query_port
int ibv_query_port(struct ibv_context *c, uint8_t p, struct _compat_ibv_port_attr *ca) { trace(__func__); return q_port(c, p, (struct ibv_port_attr *)ca, sizeof(struct ibv_port_attr)); }
int _ibv_query_gid_ex(struct ibv_context *c, uint32_t port, uint32_t idx, struct ibv_gid_entry *e, uint32_t flags, size_t esz) {
    trace(__func__); memset(e, 0, esz); if (idx >= 4) return EINVAL; if (idx > 1) return ENODATA;
    e->gid.raw[10] = e->gid.raw[11] = 0xff; e->gid.raw[12] = 10; e->gid.raw[15] = 1;
    e->gid_index = idx; e->port_num = port; e->gid_type = idx ? IBV_GID_TYPE_ROCE_V2 : IBV_GID_TYPE_ROCE_V1; return 0;
}
int ibv_query_gid(struct ibv_context *c, uint8_t port, int idx, union ibv_gid *g) {
    struct ibv_gid_entry e; int r = _ibv_query_gid_ex(c, port, idx, &e, 0, sizeof e);
    trace(__func__); if (r == ENODATA) { memset(g, 0, sizeof *g); return 0; } if (r) return -1; *g = e.gid; return 0;
}
int ibv_query_gid_type(struct ibv_context *c, uint8_t port, unsigned idx, int *type) {
    struct ibv_gid_entry e; int r = _ibv_query_gid_ex(c, port, idx, &e, 0, sizeof e);
    trace(__func__); if (r == ENODATA) { *type = 0; return 0; } if (r) return -1; *type = e.gid_type == IBV_GID_TYPE_ROCE_V2; return 0;
}
int ibv_read_sysfs_file(const char *dir, const char *file, char *buf, size_t size) { trace(__func__); return -1; }
struct ibv_context *ibv_open_device(struct ibv_device *d) {
    trace(__func__);
    struct verbs_context *v = calloc(1, sizeof *v);
    v->sz = sizeof *v; v->context.abi_compat = (void *)UINTPTR_MAX;
    v->query_port = q_port; v->query_device_ex = q_dev_ex;
    v->context.device = d; v->context.cmd_fd = -1; v->context.async_fd = -1; v->context.num_comp_vectors = 1;
    return &v->context;
}
int ibv_close_device(struct ibv_context *c) { trace(__func__); free((char *)c - offsetof(struct verbs_context, context)); return 0; }
