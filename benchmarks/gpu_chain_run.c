/* See gpu_chain_run.h. Each round times, in turn: the device -> host copy
 * alone, the disk write alone, the two-step store, the chained store, and
 * the same four the other way; every restore is checked against the state
 * stored. */
#include "gpu_chain_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ebb/ebb.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

typedef struct pools {
    ebb_pool *gpu, *host, *disk;
} pools;

static int fail(gpu_chain_result *r, const char *what)
{
    snprintf(r->error, sizeof r->error, "%s: %s", what, ebb_last_error());
    return -1;
}

/* One move (or two in a row) timed; -1 on failure. */
static double timed_move(ebb_pool *dst, int32_t ds, ebb_pool *src, int32_t ss)
{
    ebb_ticket t;
    double t0 = now_s();
    if (ebb_move(dst, ds, src, ss, &t) != EBB_OK || ebb_ticket_wait(&t) != EBB_OK)
        return -1;
    return now_s() - t0;
}

static double timed_via(ebb_pool *dst, int32_t ds, ebb_pool *via, int32_t vs, ebb_pool *src,
                        int32_t ss)
{
    ebb_ticket t[2];
    double t0 = now_s();
    if (ebb_move_via(dst, ds, via, vs, src, ss, t) != EBB_OK || ebb_ticket_wait(&t[1]) != EBB_OK)
        return -1;
    return now_s() - t0;
}

/* Gpu slot 1 (restored) against the state in host slot 1 (stored). */
static int same(pools *p, size_t size)
{
    void *a = NULL, *b = NULL;
    if (ebb_pool_slot_ptr(p->host, 0, &a) != EBB_OK || ebb_pool_slot_ptr(p->host, 1, &b) != EBB_OK)
        return 0;
    if (timed_move(p->host, 0, p->gpu, 1) < 0)
        return 0;
    return memcmp(a, b, size) == 0;
}

static int measure(pools *p, const gpu_chain_args *a, gpu_chain_result *r)
{
    int n = a->repeat;
    double *v = calloc((size_t)n * 8, sizeof *v);
    if (!v) {
        snprintf(r->error, sizeof r->error, "out of memory");
        return -1;
    }
    int ok = 1;
    r->exact = 1;
    for (int i = 0; i < n && ok; i++) {
        double *x = v + 8 * i;
        x[0] = timed_move(p->host, 0, p->gpu, 0);                     /* d2h */
        x[1] = timed_move(p->disk, 0, p->host, 0);                    /* disk write */
        double a1 = timed_move(p->host, 0, p->gpu, 0);                /* two-step store */
        double a2 = a1 < 0 ? -1 : timed_move(p->disk, 0, p->host, 0);
        x[2] = a2 < 0 ? -1 : a1 + a2;
        x[3] = timed_via(p->disk, 0, p->host, 0, p->gpu, 0);          /* chained store */
        x[4] = timed_move(p->host, 0, p->disk, 0);                    /* disk read */
        x[5] = timed_move(p->gpu, 1, p->host, 0);                     /* h2d */
        double b1 = timed_move(p->host, 0, p->disk, 0);               /* two-step restore */
        double b2 = b1 < 0 ? -1 : timed_move(p->gpu, 1, p->host, 0);
        x[6] = b2 < 0 ? -1 : b1 + b2;
        r->exact &= same(p, a->state_size);
        x[7] = timed_via(p->gpu, 1, p->host, 0, p->disk, 0);          /* chained restore */
        r->exact &= same(p, a->state_size);
        for (int k = 0; k < 8; k++)
            ok &= x[k] >= 0;
    }
    if (!ok) {
        free(v);
        return fail(r, "a move failed");
    }
    double col[8][64];
    int m = n > 64 ? 64 : n;
    for (int k = 0; k < 8; k++)
        for (int i = 0; i < m; i++)
            col[k][i] = v[8 * i + k];
    free(v);
    r->d2h_s = median(col[0], m);
    r->disk_write_s = median(col[1], m);
    r->two_step_store_s = median(col[2], m);
    r->chained_store_s = median(col[3], m);
    r->disk_read_s = median(col[4], m);
    r->h2d_s = median(col[5], m);
    r->two_step_restore_s = median(col[6], m);
    r->chained_restore_s = median(col[7], m);
    return 0;
}

int gpu_chain_run(const gpu_chain_args *a, gpu_chain_result *r)
{
    memset(r, 0, sizeof *r);
    if (a->repeat < 1 || a->repeat > 64) {
        snprintf(r->error, sizeof r->error, "repeat must be 1 .. 64");
        return -1;
    }
    pools p = {0};
    ebb_pool_options o;
    ebb_pool_options_init(&o, EBB_TIER_GPU);
    o.slot_size = a->state_size;
    o.slots = 2;
    o.device = a->device;
    int rc = -1;
    if (ebb_pool_create(&o, &p.gpu) != EBB_OK) {
        fail(r, "gpu pool");
        goto out;
    }
    ebb_pool_options_init(&o, EBB_TIER_HOST);
    o.slot_size = a->state_size;
    o.slots = 2;
    o.device = a->device;
    if (ebb_pool_create(&o, &p.host) != EBB_OK) {
        fail(r, "host pool");
        goto out;
    }
    const char *dirs[1] = {a->disk_dir};
    ebb_pool_options_init(&o, EBB_TIER_DISK);
    o.slot_size = a->state_size;
    o.slots = 1;
    o.paths = dirs;
    o.path_count = 1;
    o.staging = p.host;
    if (a->block)
        o.block = a->block;
    if (ebb_pool_create(&o, &p.disk) != EBB_OK) {
        fail(r, "disk pool");
        goto out;
    }
    /* the state: random bytes in host slot 1, put into gpu slot 0 */
    unsigned char *s = NULL;
    if (ebb_pool_slot_ptr(p.host, 1, (void **)&s) != EBB_OK) {
        fail(r, "host slot");
        goto out;
    }
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (size_t i = 0; i < a->state_size; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        s[i] = (unsigned char)x;
    }
    if (timed_move(p.gpu, 0, p.host, 1) < 0) {
        fail(r, "the state to the gpu");
        goto out;
    }
    rc = measure(&p, a, r);
out:
    ebb_pool_destroy(p.disk);
    ebb_pool_destroy(p.host);
    ebb_pool_destroy(p.gpu);
    return rc;
}
