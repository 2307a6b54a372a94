/*
 * Channel figures for the planner, measured on the spot through a small disk pool of the
 * configuration (a few states written, then read, all in flight at once,
 * for the bandwidth; then one alone, for the latency).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/error_internal.h"
#include "ebb/planner.h"
#include "ebb/storage.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

enum { MEASURE_SLOTS = 8 };

static void pause_ms(long ms)
{
    struct timespec ts = {0, ms * 1000000L};
    nanosleep(&ts, NULL);
}

/* A step's stand-in: passes over `len` bytes of memory, as a solver's or
 * `ebb run`'s step streams its state. Returns the seconds it took. */
static double probe(uint64_t *buf, size_t len)
{
    double t0 = now_s();
    size_t words = len / sizeof *buf;
    uint64_t carry = 0x9e3779b97f4a7c15ULL;
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < words; i++) {
            carry = (buf[i] ^ carry) * 0xff51afd7ed558ccdULL;
            buf[i] = carry;
        }
    return now_s() - t0;
}

/* What the probes measure: the fastest alone, and the median of those run
 * while transfers were in flight. */
typedef struct probes {
    uint64_t *buf;
    size_t len;
    double during[64];
    int count;
} probes;

/* Moves `count` slots between the pools all at once; *seconds until the last
 * ends. With pr, the probe runs beside the transfers until they end. */
static ebb_status move_all(ebb_pool *dst, ebb_pool *src, int to_disk, int32_t count,
                           double *seconds, probes *pr)
{
    ebb_ticket t[MEASURE_SLOTS];
    double t0 = now_s();
    for (int32_t i = 0; i < count; i++) {
        ebb_status st = ebb_move(dst, i, src, i, &t[i]);
        if (st != EBB_OK) {
            (void)ebb_ticket_wait_all(t, (size_t)i);
            return ebb_fail_context(st, "measuring the disk %s", to_disk ? "write" : "read");
        }
    }
    for (int done = 0; pr && !done && pr->count < (int)(sizeof pr->during / sizeof *pr->during);) {
        double took = probe(pr->buf, pr->len);
        int last = 0;
        if (ebb_ticket_test(&t[count - 1], &last) != EBB_OK || last)
            done = 1; /* a probe that outlived the transfers is not counted */
        else
            pr->during[pr->count++] = took;
    }
    ebb_status st = ebb_ticket_wait_all(t, (size_t)count);
    *seconds = now_s() - t0;
    return st;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* How much longer the probe takes beside the transfers than alone (0 when
 * it could not tell: no probe ended while they ran). */
static double slowdown(probes *pr)
{
    if (pr->count == 0)
        return 0.0;
    double alone = INFINITY;
    for (int k = 0; k < 5; k++) {
        double t = probe(pr->buf, pr->len);
        alone = t < alone ? t : alone;
    }
    qsort(pr->during, (size_t)pr->count, sizeof *pr->during, by_value);
    double during = pr->during[pr->count / 2];
    return alone > 0 && during > alone ? during / alone - 1.0 : 0.0;
}

/* The slots of the measurement, within the disk's and the host's budgets
 * (the run's pools are made after it, so it may use them whole): up to
 * MEASURE_SLOTS states of at most 16 MiB (a large state is measured in
 * part), fewer where the budgets hold fewer, and one smaller part of a state
 * where they hold none (4 KiB at least: a disk budget holds one state
 * rounded up to 4 KiB). */
static ebb_status measure_slots(const ebb_config *cfg, size_t state, size_t *size, int32_t *count)
{
    const uint64_t align = 4096; /* as the disk pool rounds a slot */
    uint64_t room = UINT64_MAX, b;
    for (int t = EBB_TIER_HOST; t <= EBB_TIER_DISK; t++) {
        ebb_status st = ebb_config_budget(cfg, (ebb_tier)t, &b);
        if (st != EBB_OK)
            return st;
        if (b > 0 && b < room) /* 0: a disabled tier bounds nothing */
            room = b;
    }
    uint64_t s = state < (size_t)16 << 20 ? state : (size_t)16 << 20;
    uint64_t per = (s + align - 1) / align * align;
    uint64_t fit = room / per;
    if (fit == 0) {
        s = room / align * align;
        if (s == 0)
            return ebb_fail(EBB_ERR_NO_MEMORY,
                            "the budgets leave %llu bytes, below the 4 KiB the disk needs to be "
                            "measured: raise tier.disk.budget and tier.host.budget",
                            (unsigned long long)room);
        fit = 1;
    }
    *size = (size_t)s;
    *count = fit < MEASURE_SLOTS ? (int32_t)fit : MEASURE_SLOTS;
    return EBB_OK;
}

ebb_status ebb_plan_channels_measure(ebb_plan_problem *p, const ebb_config *cfg)
{
    if (!p || !cfg || p->state_size == 0)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "ebb_plan_channels_measure: NULL argument or state_size 0");
    size_t size = 0;
    int32_t count = 0;
    ebb_status st = measure_slots(cfg, p->state_size, &size, &count);
    if (st != EBB_OK)
        return ebb_fail_context(st, "measuring the disk");
    ebb_pool_options dopt, hopt;
    ebb_config raw = *cfg; /* shallow, only read: the device's own rate, not the pace */
    raw.disk.max_bandwidth = 0;
    raw.disk.compression.mode = EBB_COMPRESSION_OFF; /* the disk's rate, not the codec's */
    cfg = &raw;
    st = ebb_config_pool_options(cfg, EBB_TIER_DISK, size, &dopt);
    if (st != EBB_OK)
        return ebb_fail_context(st, "measuring the disk");
    ebb_pool_options_init(&hopt, EBB_TIER_HOST);
    hopt.slot_size = size;
    hopt.slots = count;
    hopt.pin = cfg->host.pin;
    hopt.numa_node = cfg->host.numa;
    dopt.slots = count;
    ebb_pool *host = NULL, *disk = NULL;
    if ((st = ebb_pool_create(&hopt, &host)) != EBB_OK)
        return ebb_fail_context(st, "measuring the disk (host buffers)");
    dopt.staging = host;
    if ((st = ebb_pool_create(&dopt, &disk)) != EBB_OK) {
        ebb_pool_destroy(host);
        return ebb_fail_context(st, "measuring the disk");
    }
    for (int32_t i = 0; i < count; i++) {
        void *ptr = NULL;
        if (ebb_pool_slot_ptr(host, i, &ptr) == EBB_OK && ptr)
            memset(ptr, 0x5a + i, size);
    }
    double w = 0, r = 0, w1 = INFINITY, r1 = INFINITY;
    probes pr = {.len = (size_t)4 << 20};
    pr.buf = calloc(pr.len / sizeof *pr.buf, sizeof *pr.buf);
    /* the rates alone, then the step's slowdown beside a write pass of its
     * own: a probe checks the transfers only between its passes (a few ms),
     * which timed with them would be taken for the disk's rate */
    st = move_all(disk, host, 1, count, &w, NULL);
    if (st == EBB_OK)
        st = move_all(host, disk, 0, count, &r, NULL);
    double beside = 0;
    if (st == EBB_OK && pr.buf) {
        (void)probe(pr.buf, pr.len); /* its pages faulted in: not the disk's doing */
        st = move_all(disk, host, 1, count, &beside, &pr);
    }
    /* one state alone, after a pause, as the runtime's reads and spaced
     * writes come: what it takes beyond size / bandwidth is the latency */
    for (int k = 0; k < 2 && st == EBB_OK; k++) {
        double t = 0;
        pause_ms(5);
        if ((st = move_all(disk, host, 1, 1, &t, NULL)) == EBB_OK && t < w1)
            w1 = t;
        pause_ms(5);
        if (st == EBB_OK && (st = move_all(host, disk, 0, 1, &t, NULL)) == EBB_OK && t < r1)
            r1 = t;
    }
    ebb_pool_destroy(disk);
    ebb_pool_destroy(host);
    if (st == EBB_OK && pr.buf)
        p->step_slowdown = slowdown(&pr);
    free(pr.buf);
    if (st != EBB_OK)
        return st;
    double bytes = (double)size * count;
    ebb_plan_channel *cw = &p->channel[EBB_PLAN_HOST_TO_DISK], *cr = &p->channel[EBB_PLAN_DISK_TO_HOST];
    if (w > 0)
        cw->bandwidth = bytes / w;
    if (r > 0)
        cr->bandwidth = bytes / r;
    /* the latency of a whole state, measured on a part of it for a large one */
    if (cw->bandwidth > 0 && isfinite(w1))
        cw->latency = w1 > (double)size / cw->bandwidth ? w1 - (double)size / cw->bandwidth : 0;
    if (cr->bandwidth > 0 && isfinite(r1))
        cr->latency = r1 > (double)size / cr->bandwidth ? r1 - (double)size / cr->bandwidth : 0;
    return EBB_OK;
}
