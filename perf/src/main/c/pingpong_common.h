/*
 * Shared by the two baseline ping-pongs: CPU pinning, the clock, and percentiles printed on one line that
 * deploy/bench/latency.sh reads. Round trips in nanoseconds; the line shows microseconds.
 */
#ifndef PINGPONG_COMMON_H
#define PINGPONG_COMMON_H

#define _GNU_SOURCE
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static inline uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline void pin(int cpu)
{
    if (cpu < 0)
        return;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof(set), &set) != 0) {
        perror("sched_setaffinity");
        exit(2);
    }
}

static int compare_u64(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static inline double percentile_us(const uint64_t *sorted, size_t n, double p)
{
    size_t i = (size_t)(p / 100.0 * (double)n);
    if (i >= n)
        i = n - 1;
    return (double)sorted[i] / 1000.0;
}

/* One line: NAME size=S iters=N p50=.. p90=.. p99=.. p99.9=.. p99.99=.. max=.. (round trip, µs). */
static inline void report(const char *name, size_t size, uint64_t *rtt, size_t n)
{
    qsort(rtt, n, sizeof(rtt[0]), compare_u64);
    printf("%s size=%zu iters=%zu rtt_us p50=%.2f p90=%.2f p99=%.2f p99.9=%.2f p99.99=%.2f max=%.2f\n", name, size,
        n, percentile_us(rtt, n, 50), percentile_us(rtt, n, 90), percentile_us(rtt, n, 99),
        percentile_us(rtt, n, 99.9), percentile_us(rtt, n, 99.99), (double)rtt[n - 1] / 1000.0);
}

#endif
