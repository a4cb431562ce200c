/* Experiment: move a malloc'd / .bss / SysV-shm span onto a sealed memfd in place. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <unistd.h>
#include <fcntl.h>
#include <malloc.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/wait.h>
static char bss_buf[16];           /* like rdma_client's send_msg/recv_msg */
static int bss_neighbour = 42;     /* a neighbour on the same page */
static long pg;
static int move_to_memfd(void *addr, size_t len, void **view) {
    uintptr_t lo = (uintptr_t)addr & ~(pg - 1), hi = ((uintptr_t)addr + len + pg - 1) & ~(pg - 1);
    size_t span = hi - lo;
    int fd = memfd_create("mr", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0 || ftruncate(fd, span)) return -1;
    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL);
    void *tmp = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (mprotect((void *)lo, span, PROT_READ)) { perror("mprotect"); return -1; } /* writers now fault instead of being lost */
    memcpy(tmp, (void *)lo, span);                                             /* whole pages, neighbours included */
    if (mremap(tmp, span, span, MREMAP_MAYMOVE | MREMAP_FIXED, (void *)lo) == MAP_FAILED) { perror("mremap"); return -1; }
    *view = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);      /* stands for the driver's mapping */
    return fd;
}
static void show_maps(void *p) {
    char cmd[128]; snprintf(cmd, sizeof cmd, "grep -i '^%lx' /proc/%d/maps", (unsigned long)((uintptr_t)p & ~(pg - 1)), getpid()); system(cmd);
}
int main(void) {
    pg = sysconf(_SC_PAGESIZE);
    void *view;
    /* 1. small malloc chunk sharing its page with other heap objects */
    char *a = malloc(100), *b = malloc(100); strcpy(a, "hello"); strcpy(b, "neighbour");
    if (move_to_memfd(a, 100, &view) < 0) return 1;
    char *va = (char *)view + ((uintptr_t)a & (pg - 1));
    strcpy(va + 10, "REMOTE");  /* a 'remote WRITE' through the driver's view */
    printf("heap: a='%s' a+10='%s' b='%s' (neighbour kept)\n", a, a + 10, b);
    show_maps(a);
    char *c = malloc(200); strcpy(c, "malloc still works"); free(b); printf("%s\n", c);
    /* 2. .bss */
    if (move_to_memfd(bss_buf, sizeof bss_buf, &view) < 0) return 1;
    strcpy((char *)view + ((uintptr_t)bss_buf & (pg - 1)), "bss-remote");
    printf("bss: '%s' neighbour=%d\n", bss_buf, bss_neighbour);
    /* 3. memalign'd page-aligned buffer, as perftest does */
    char *m = memalign(pg, 8 * pg); memset(m, 7, 8 * pg);
    move_to_memfd(m, 8 * pg, &view); ((char *)view)[8 * pg - 1] = 9;
    printf("memalign: last byte=%d first=%d\n", m[8 * pg - 1], m[0]);
    /* 4. fork: the span is now MAP_SHARED, so the child's writes show in the parent (no copy-on-write) */
    pid_t pid = fork(); if (!pid) { m[0] = 55; _exit(0); } waitpid(pid, 0, 0);
    printf("fork: parent sees child's write m[0]=%d (anonymous private memory would show 7)\n", m[0]);
    /* 5. SysV shm, as perftest --use_hugepages (without SHM_HUGETLB here) */
    int id = shmget(IPC_PRIVATE, 4 * pg, IPC_CREAT | 0600); char *s = shmat(id, NULL, 0); shmctl(id, IPC_RMID, 0);
    strcpy(s, "sysv");
    int r = move_to_memfd(s, 4 * pg, &view);
    printf("sysv: move=%d content='%s'\n", r >= 0, s);
    printf("sysv: shmdt after move = %d (%m)\n", shmdt(s));
    return 0;
}
