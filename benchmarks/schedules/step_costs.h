/*
 * What the benchmarks of schedules told their steps' costs share
 * (online_costs.c, async_costs.c): the clock, and each case's costs from a
 * fixed xorshift seed, so that every run prints the same table.
 */
#ifndef EBB_BENCHMARKS_SCHEDULES_STEP_COSTS_H
#define EBB_BENCHMARKS_SCHEDULES_STEP_COSTS_H

#include <stdint.h>
#include <time.h>

static inline double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static inline uint64_t xorshift(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

/* f[0 .. n-1] for case `salt`: kind 0, costs 1 to 9; kind 1, one step in
 * five 16 and the others 1. Returns their sum (the first sweep's cost). */
static inline double fill_costs(double *f, int64_t n, int kind, uint64_t salt)
{
    uint64_t x = 88172645463325252ull ^ salt;
    double sum = 0;
    for (int64_t k = 0; k < n; k++) {
        f[k] = kind ? (xorshift(&x) % 5 == 0 ? 16 : 1) : (double)(1 + xorshift(&x) % 9);
        sum += f[k];
    }
    return sum;
}

#endif
