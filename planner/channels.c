/*
 * Channel figures for the planner: read from a file `ebb bench --json`
 * wrote, or measured on the spot through a small disk pool of the
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

/* The object that follows `"key": {` at or after `from`, as [*begin, *end):
 * the bench file's tier objects hold no nested object. */
static int find_object(const char *from, const char *key, const char **begin, const char **end)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\": {", key);
    const char *b = strstr(from, pat);
    if (!b)
        return 0;
    b += strlen(pat);
    const char *e = strchr(b, '}');
    if (!e)
        return 0;
    *begin = b;
    *end = e;
    return 1;
}

/* A number member `"key": v` inside [begin, end); 1 if found and > 0. */
static int find_number(const char *begin, const char *end, const char *key, double *v)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\": ", key);
    const char *k = strstr(begin, pat);
    if (!k || k >= end)
        return 0;
    char *stop = NULL;
    double x = strtod(k + strlen(pat), &stop);
    if (stop == k + strlen(pat) || !(x > 0))
        return 0;
    *v = x;
    return 1;
}

ebb_status ebb_plan_channels_from_bench(ebb_plan_problem *p, const char *path)
{
    if (!p || !path)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_plan_channels_from_bench: NULL argument");
    FILE *f = fopen(path, "rb");
    if (!f)
        return ebb_fail_errno(EBB_ERR_IO, errno, "cannot open the bench file '%s'", path);
    char *text = malloc(1 << 20);
    if (!text) {
        fclose(f);
        return ebb_fail(EBB_ERR_NO_MEMORY, "cannot read the bench file '%s'", path);
    }
    size_t got = fread(text, 1, (1 << 20) - 1, f);
    int bad = ferror(f);
    fclose(f);
    text[got] = '\0';
    if (bad) {
        free(text);
        return ebb_fail(EBB_ERR_IO, "cannot read the bench file '%s'", path);
    }
    const char *tiers = strstr(text, "\"tiers\": {");
    const char *b, *e;
    int found = 0;
    double v;
    if (tiers && find_object(tiers, "disk", &b, &e)) {
        if (find_number(b, e, "write_GBps", &v))
            p->channel[EBB_PLAN_HOST_TO_DISK].bandwidth = v * 1e9, found++;
        if (find_number(b, e, "read_GBps", &v))
            p->channel[EBB_PLAN_DISK_TO_HOST].bandwidth = v * 1e9, found++;
    }
    if (tiers && find_object(tiers, "gpu", &b, &e)) {
        if (find_number(b, e, "d2h_GBps", &v))
            p->channel[EBB_PLAN_GPU_TO_HOST].bandwidth = v * 1e9, found++;
        if (find_number(b, e, "h2d_GBps", &v))
            p->channel[EBB_PLAN_HOST_TO_GPU].bandwidth = v * 1e9, found++;
    }
    free(text);
    if (!found)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "the bench file '%s' has no tiers.disk write_GBps/read_GBps nor tiers.gpu "
                        "d2h_GBps/h2d_GBps: write it with 'ebb bench --json > FILE'",
                        path);
    return EBB_OK;
}

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
