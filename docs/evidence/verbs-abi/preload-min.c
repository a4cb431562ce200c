#include <stdio.h>
#include <stdlib.h>
#include <infiniband/verbs.h>
static struct ibv_device dev;   /* zero: name "", dev_name "" */
struct ibv_device **ibv_get_device_list(int *num) {
    fprintf(stderr, "[preload] ibv_get_device_list called\n");
    struct ibv_device **l = calloc(2, sizeof *l);
    snprintf(dev.name, sizeof dev.name, "rnic_veth0");
    l[0] = &dev; if (num) *num = 1; return l;
}
void ibv_free_device_list(struct ibv_device **l) { fprintf(stderr, "[preload] free\n"); free(l); }
__be64 ibv_get_device_guid(struct ibv_device *d) { return htobe64(0x0123456789abcdefULL); }
