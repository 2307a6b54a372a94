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

/* Moves `count` slots between the pools all at once; *seconds until the last ends. */
static ebb_status move_all(ebb_pool *dst, ebb_pool *src, int to_disk, int32_t count,
                           double *seconds)
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
    ebb_status st = ebb_ticket_wait_all(t, (size_t)count);
    *seconds = now_s() - t0;
    return st;
}

ebb_status ebb_plan_channels_measure(ebb_plan_problem *p, const ebb_config *cfg)
{
    if (!p || !cfg || p->state_size == 0)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "ebb_plan_channels_measure: NULL argument or state_size 0");
    /* at most 128 MiB a direction: a large state is measured in part */
    size_t size = p->state_size < (size_t)16 << 20 ? p->state_size : (size_t)16 << 20;
    int32_t count = MEASURE_SLOTS;
    ebb_pool_options dopt, hopt;
    ebb_config raw = *cfg; /* shallow, only read: the device's own rate, not the pace */
    raw.disk.max_bandwidth = 0;
    cfg = &raw;
    ebb_status st = ebb_config_pool_options(cfg, EBB_TIER_DISK, size, &dopt);
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
    st = move_all(disk, host, 1, count, &w);
    if (st == EBB_OK)
        st = move_all(host, disk, 0, count, &r);
    /* one state alone, after a pause, as the runtime's reads and spaced
     * writes come: what it takes beyond size / bandwidth is the latency */
    for (int k = 0; k < 2 && st == EBB_OK; k++) {
        double t;
        pause_ms(5);
        if ((st = move_all(disk, host, 1, 1, &t)) == EBB_OK && t < w1)
            w1 = t;
        pause_ms(5);
        if (st == EBB_OK && (st = move_all(host, disk, 0, 1, &t)) == EBB_OK && t < r1)
            r1 = t;
    }
    ebb_pool_destroy(disk);
    ebb_pool_destroy(host);
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
