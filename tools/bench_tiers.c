/*
 * `ebb bench`: measuring each tier through ebb's own pools (ebb/storage.h).
 *
 * Every measurement keeps a window of `lanes` operations in flight: operation
 * i runs on lane i mod lanes, and before it starts, the lane's previous
 * operation (i - lanes) is waited for. Operations therefore complete at the
 * pace of the tier's engine while the caller only queues, which is how the
 * runtime drives the tiers. Only the timed loops are measured: pool creation
 * (allocation, pinning, preallocation) is not.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ebb/ebb.h"
#include "tools/bench.h"
#include "tools/cli.h"

static const uint64_t GiB = UINT64_C(1) << 30;

static int fail(bench_result *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->error, sizeof r->error, fmt, ap);
    va_end(ap);
    return -1;
}

static uint64_t round_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }
static uint64_t div_up(uint64_t a, uint64_t b) { return (a + b - 1) / b; }
static uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }
static uint64_t max_u64(uint64_t a, uint64_t b) { return a > b ? a : b; }

void bench_progress(const bench_params *p, const char *label, uint64_t done, uint64_t total,
                    double t0)
{
    static double last;
    if (!p->progress)
        return;
    double now = cli_now();
    if (done < total && now - last < 0.2)
        return;
    last = now;
    if (done >= total) {
        fprintf(stderr, "\r%-72s\r", "");
    } else {
        double el = now - t0;
        fprintf(stderr, "\rebb bench: %-16s %5.1f%%  %7.2f GB/s", label,
                100.0 * (double)done / (double)total,
                el > 0 ? (double)done / el / 1e9 : 0.0);
    }
    fflush(stderr);
}

/* Starts operation i on lane `lane`; fills *t. */
typedef ebb_status (*start_fn)(void *ctx, int64_t i, int32_t lane, ebb_ticket *t);

/* Runs `count` operations of `bytes_each` bytes, `lanes` in flight; returns
 * 0 and the seconds taken, or -1 with r->error. */
static int run_window(const bench_params *p, bench_result *r, const char *label, int64_t count,
                      int32_t lanes, uint64_t bytes_each, start_fn start, void *ctx,
                      double *seconds)
{
    ebb_ticket *t = calloc((size_t)lanes, sizeof *t);
    if (!t)
        return fail(r, "%s: out of memory", label);
    ebb_status s = EBB_OK;
    uint64_t total = (uint64_t)count * bytes_each;
    double t0 = cli_now();
    for (int64_t i = 0; i < count; i++) {
        int32_t lane = (int32_t)(i % lanes);
        if (i >= lanes && (s = ebb_ticket_wait(&t[lane])) != EBB_OK)
            break;
        memset(&t[lane], 0, sizeof t[lane]);
        if ((s = start(ctx, i, lane, &t[lane])) != EBB_OK)
            break;
        if (i >= lanes)
            bench_progress(p, label, (uint64_t)(i - lanes + 1) * bytes_each, total, t0);
    }
    if (s != EBB_OK) {
        fail(r, "%s: %s", label, ebb_last_error());
        (void)ebb_ticket_wait_all(t, (size_t)lanes);
        free(t);
        bench_progress(p, label, total, total, t0);
        return -1;
    }
    s = ebb_ticket_wait_all(t, (size_t)lanes);
    *seconds = cli_now() - t0;
    free(t);
    bench_progress(p, label, total, total, t0);
    if (s != EBB_OK)
        return fail(r, "%s: %s", label, ebb_last_error());
    return 0;
}

static double gbps(uint64_t bytes, double seconds)
{
    return seconds > 0 ? (double)bytes / seconds / 1e9 : 0.0;
}

static void copy_str(char *dst, size_t size, const char *src)
{
    snprintf(dst, size, "%s", src ? src : "");
}

static void add_warnings(bench_result *r, const char *what, const char *w)
{
    if (!w || !*w)
        return;
    size_t n = strlen(r->warnings);
    snprintf(r->warnings + n, sizeof r->warnings - n, "%s%s: %s", n ? "; " : "", what, w);
}

static void fill_slots(ebb_pool *pool, int32_t slots, size_t size)
{
    for (int32_t k = 0; k < slots; k++) {
        void *ptr = NULL;
        if (ebb_pool_slot_ptr(pool, k, &ptr) == EBB_OK)
            memset(ptr, 0x5a ^ k, size);
    }
}

/* Host pool options from the configuration (ebb_config_pool_options) for
 * states of p->size bytes: o->slots is what the host budget holds. The disk
 * and gpu tiers stage through host slots even where the host tier is
 * disabled; then the host budget does not limit them (o->slots INT32_MAX). */
static int host_options(const ebb_config *cfg, const bench_params *p, bench_result *r,
                        ebb_pool_options *o)
{
    ebb_config staging = *cfg; /* shallow: only read, never disposed */
    if (!staging.host.enabled) {
        staging.host.enabled = 1;
        staging.host.budget = UINT64_MAX;
    }
    if (ebb_config_pool_options(&staging, EBB_TIER_HOST, (size_t)p->size, o) != EBB_OK)
        return fail(r, "host pool: %s", ebb_last_error());
    return 0;
}

/* A host pool of `slots` slots (within o->slots) for the tier itself, for
 * staging (disk) or for pinned transfers (gpu). */
static int make_host_pool(ebb_pool_options *o, int32_t slots, bench_result *r, ebb_pool **out)
{
    o->slots = slots;
    if (ebb_pool_create(o, out) != EBB_OK)
        return fail(r, "host pool of %d slots of %zu bytes: %s", (int)slots, o->slot_size,
                    ebb_last_error());
    return 0;
}

/* ---- host ------------------------------------------------------------------ */

typedef struct host_ctx {
    ebb_pool *pool;
    int32_t slots;
    void *mem; /* the caller's state */
} host_ctx;

static ebb_status host_put(void *c, int64_t i, int32_t lane, ebb_ticket *t)
{
    host_ctx *h = c;
    (void)lane;
    return ebb_pool_put(h->pool, (int32_t)(i % h->slots), h->mem, t);
}

static ebb_status host_get(void *c, int64_t i, int32_t lane, ebb_ticket *t)
{
    host_ctx *h = c;
    (void)lane;
    return ebb_pool_get(h->pool, (int32_t)(i % h->slots), h->mem, t);
}

int bench_host(const ebb_config *cfg, const bench_params *p, bench_result *r)
{
    ebb_pool_options o;
    if (host_options(cfg, p, r, &o))
        return -1;
    uint64_t stride = round_up(p->size, 4096);
    uint64_t total = p->total ? p->total : BENCH_TOTAL_HOST;
    int64_t count = (int64_t)max_u64(1, div_up(total, p->size));
    /* Cycle over at most 1 GiB of slots (more than any cache), within the budget. */
    uint64_t slots = min_u64(min_u64((uint64_t)o.slots, (uint64_t)count),
                             max_u64(2, GiB / stride));
    slots = max_u64(1, min_u64(slots, 4096));
    host_ctx h = {NULL, (int32_t)slots, NULL};
    if (make_host_pool(&o, h.slots, r, &h.pool))
        return -1;
    int rc = -1;
    h.mem = aligned_alloc(4096, stride);
    if (!h.mem) {
        fail(r, "cannot allocate a %llu-byte state", (unsigned long long)p->size);
        goto out;
    }
    memset(h.mem, 0xa5, stride);
    ebb_pool_info info;
    ebb_pool_info_get(h.pool, &info);
    copy_str(r->backend, sizeof r->backend, info.backend);
    add_warnings(r, "host", info.warnings);
    r->pinned = info.pinned;
    r->numa_node = info.numa_node;
    r->slots = info.slots;
    r->slot_stride = info.slot_stride;
    r->in_flight = 1;
    r->ops = count;
    r->moved = (uint64_t)count * p->size;
    r->device = -1;
    if (run_window(p, r, "host write", count, 1, p->size, host_put, &h, &r->write_s) ||
        run_window(p, r, "host read", count, 1, p->size, host_get, &h, &r->read_s))
        goto out;
    r->write_GBps = gbps(r->moved, r->write_s);
    r->read_GBps = gbps(r->moved, r->read_s);
    r->ran = 1;
    rc = 0;
out:
    free(h.mem);
    ebb_pool_destroy(h.pool);
    return rc;
}

/* ---- disk ------------------------------------------------------------------ */

typedef struct disk_ctx {
    ebb_pool *disk, *host;
    int32_t disk_slots;
} disk_ctx;

static ebb_status disk_store(void *c, int64_t i, int32_t lane, ebb_ticket *t)
{
    disk_ctx *d = c;
    return ebb_move(d->disk, (int32_t)(i % d->disk_slots), d->host, lane, t);
}

static ebb_status disk_load(void *c, int64_t i, int32_t lane, ebb_ticket *t)
{
    disk_ctx *d = c;
    return ebb_move(d->host, lane, d->disk, (int32_t)(i % d->disk_slots), t);
}

/* Operations in flight: enough that, when the oldest completes, the others
 * still hold a full queue of requests (depth x block) plus one state of
 * slack; at least 4; host memory for them at most 2 GiB (or 2 states),
 * within the host budget's slots and the disk slots. */
static uint64_t disk_lanes(const bench_params *p, int32_t host_slots, uint64_t disk_slots)
{
    uint64_t stride = round_up(p->size, 4096);
    uint64_t per_req = min_u64(p->block, stride);
    uint64_t lanes = max_u64(4, 2 + div_up((uint64_t)p->depth * per_req, p->size));
    lanes = min_u64(lanes, max_u64(2, (2 * GiB) / stride));
    lanes = min_u64(lanes, (uint64_t)host_slots);
    lanes = min_u64(lanes, disk_slots);
    return max_u64(1, min_u64(lanes, 1024));
}

/* What the disk pool and its staging pool are, into r. */
static void disk_describe(const disk_ctx *d, bench_result *r)
{
    ebb_pool_info hi, di;
    ebb_pool_info_get(d->host, &hi);
    ebb_pool_info_get(d->disk, &di);
    add_warnings(r, "disk", di.warnings);
    copy_str(r->backend, sizeof r->backend, di.backend);
    r->direct = di.direct;
    r->registered_buffers = di.registered_buffers;
    r->registered_files = di.registered_files;
    r->registered_bytes = di.registered_bytes;
    r->staging_bytes = hi.bytes;
    r->pinned = hi.pinned;
    r->numa_node = di.numa_node;
    r->checksum = di.checksum;
    r->depth = di.queue_depth;
    r->threads = di.threads;
    r->block = di.block;
    r->alignment = di.alignment;
    r->path_count = di.path_count;
    r->max_bandwidth = di.max_bandwidth;
    r->slots = di.slots;
    r->slot_stride = di.slot_stride;
    r->device = -1;
}

/* The write, then the read measurement, each counting its requests. */
static int disk_measure(const bench_params *p, disk_ctx *d, int32_t lanes, bench_result *r)
{
    const struct {
        const char *label;
        start_fn op;
        double *seconds;
    } phases[] = {{"disk write", disk_store, &r->write_s}, {"disk read", disk_load, &r->read_s}};
    r->requests = r->retries = 0;
    for (size_t k = 0; k < sizeof phases / sizeof *phases; k++) {
        ebb_pool_stats st;
        ebb_pool_stats_reset(d->disk);
        if (run_window(p, r, phases[k].label, r->ops, lanes, p->size, phases[k].op, d,
                       phases[k].seconds))
            return -1;
        ebb_pool_stats_get(d->disk, &st);
        r->requests += st.requests;
        r->retries += st.retries;
    }
    r->write_GBps = gbps(r->moved, r->write_s);
    r->read_GBps = gbps(r->moved, r->read_s);
    return 0;
}

int bench_disk(const ebb_config *cfg, const bench_params *p, bench_result *r)
{
    /* The configuration with the command line's --block, --depth and
     * --backend (p holds the configuration's where they were not given), so
     * that the slot count follows the block the pool will use. */
    ebb_config dcfg = *cfg; /* shallow: only read, never disposed */
    dcfg.disk.block_size = p->block;
    dcfg.disk.queue_depth = p->depth;
    dcfg.disk.backend = p->backend;
    dcfg.disk.max_bandwidth = p->max_bandwidth;
    ebb_pool_options o, ho;
    if (ebb_config_pool_options(&dcfg, EBB_TIER_DISK, (size_t)p->size, &o) != EBB_OK)
        return fail(r, "disk pool: %s", ebb_last_error());
    if (host_options(cfg, p, r, &ho))
        return -1;
    uint64_t total = p->total ? p->total : BENCH_TOTAL_DISK;
    int64_t count = (int64_t)max_u64(1, div_up(total, p->size));
    /* Disk slots: one per operation (no slot written twice: the first write
     * into preallocated space is what a run does), within the budget (which
     * ebb_config_pool_options counts in the pool's own slot rounding and
     * striping); a small budget is cycled over. */
    uint64_t dslots = max_u64(1, min_u64((uint64_t)count, (uint64_t)o.slots));
    uint64_t lanes = disk_lanes(p, ho.slots, dslots);

    disk_ctx d = {NULL, NULL, (int32_t)dslots};
    int rc = -1;
    if (make_host_pool(&ho, (int32_t)lanes, r, &d.host))
        return -1;
    o.slots = (int32_t)dslots;
    o.staging = d.host;
    copy_str(r->path, sizeof r->path, cfg->disk.path_count ? cfg->disk.paths[0] : "");
    if (ebb_pool_create(&o, &d.disk) != EBB_OK) {
        fail(r, "disk pool of %llu slots of %llu bytes in '%s': %s",
             (unsigned long long)dslots, (unsigned long long)p->size, r->path, ebb_last_error());
        goto out;
    }
    fill_slots(d.host, (int32_t)lanes, (size_t)p->size);
    disk_describe(&d, r);
    r->staging_slots = (int32_t)lanes;
    r->in_flight = (int32_t)lanes;
    r->ops = count;
    r->moved = (uint64_t)count * p->size;
    if (disk_measure(p, &d, (int32_t)lanes, r) == 0) {
        r->ran = 1;
        rc = 0;
    }
out:
    ebb_pool_destroy(d.disk);
    ebb_pool_destroy(d.host);
    return rc;
}

/* ---- gpu ------------------------------------------------------------------- */

/* One gpu pool: slots [0, lanes) stand for the states the forward step
 * produces (device memory), slots [lanes, slots) are the stored ones. */
typedef struct gpu_ctx {
    ebb_pool *gpu, *host;
    int32_t lanes, stored;
} gpu_ctx;

static int32_t gpu_slot(const gpu_ctx *g, int64_t i) { return g->lanes + (int32_t)(i % g->stored); }

static ebb_status gpu_store(void *c, int64_t i, int32_t lane, ebb_ticket *t)
{
    gpu_ctx *g = c;
    return ebb_move(g->gpu, gpu_slot(g, i), g->gpu, lane, t);
}

static ebb_status gpu_load(void *c, int64_t i, int32_t lane, ebb_ticket *t)
{
    gpu_ctx *g = c;
    return ebb_move(g->gpu, lane, g->gpu, gpu_slot(g, i), t);
}

static ebb_status gpu_d2h(void *c, int64_t i, int32_t lane, ebb_ticket *t)
{
    gpu_ctx *g = c;
    return ebb_move(g->host, lane, g->gpu, gpu_slot(g, i), t);
}

static ebb_status gpu_h2d(void *c, int64_t i, int32_t lane, ebb_ticket *t)
{
    gpu_ctx *g = c;
    return ebb_move(g->gpu, gpu_slot(g, i), g->host, lane, t);
}

/* Both directions at once: even lanes copy device -> host, odd lanes host -> device. */
static ebb_status gpu_both(void *c, int64_t i, int32_t lane, ebb_ticket *t)
{
    return lane % 2 == 0 ? gpu_d2h(c, i, lane, t) : gpu_h2d(c, i, lane, t);
}

/* The warm-up (untimed), then each direction alone, then both at once. */
static int gpu_measure(const bench_params *p, gpu_ctx *g, bench_result *r)
{
    double warm = 0, d2h_s = 0, h2d_s = 0, both_s = 0;
    int64_t n = r->ops, lanes = g->lanes;
    const struct {
        const char *label;
        int64_t ops;
        start_fn op;
        double *seconds;
    } phases[] = {{"gpu warm-up", 2 * lanes, gpu_both, &warm}, /* one pass over the lanes each way */
                  {"gpu write (d2d)", n, gpu_store, &r->write_s},
                  {"gpu read (d2d)", n, gpu_load, &r->read_s},
                  {"gpu d2h", n, gpu_d2h, &d2h_s},
                  {"gpu h2d", n, gpu_h2d, &h2d_s},
                  {"gpu d2h+h2d", 2 * n, gpu_both, &both_s}};
    for (size_t k = 0; k < sizeof phases / sizeof *phases; k++)
        if (run_window(p, r, phases[k].label, phases[k].ops, g->lanes, p->size, phases[k].op, g,
                       phases[k].seconds))
            return -1;
    ebb_pool_stats st;
    ebb_pool_stats_get(g->gpu, &st);
    r->requests = st.requests;
    r->write_GBps = gbps(r->moved, r->write_s);
    r->read_GBps = gbps(r->moved, r->read_s);
    r->d2h_GBps = gbps(r->moved, d2h_s);
    r->h2d_GBps = gbps(r->moved, h2d_s);
    r->both_GBps = gbps(2 * r->moved, both_s);
    return 0;
}

/* What the gpu pool and its pinned host pool are, into r; 0, or -1 with
 * r->error set when the host pool is not pinned. */
static int gpu_describe(const gpu_ctx *g, bench_result *r)
{
    ebb_pool_info hi, gi;
    ebb_pool_info_get(g->host, &hi);
    ebb_pool_info_get(g->gpu, &gi);
    add_warnings(r, "host", hi.warnings);
    add_warnings(r, "gpu", gi.warnings);
    if (!hi.pinned)
        return fail(r, "the host pool could not be pinned (%s): transfers need pinned memory",
                    hi.warnings[0] ? hi.warnings : "no reason given");
    copy_str(r->backend, sizeof r->backend, gi.backend);
    r->pinned = hi.pinned;
    r->numa_node = hi.numa_node;
    r->device = gi.device;
    r->block = gi.block;
    r->slots = gi.slots;
    r->slot_stride = gi.slot_stride;
    return 0;
}

int bench_gpu(const ebb_config *cfg, const bench_params *p, bench_result *r)
{
    if (ebb_gpu_count() == 0)
        return fail(r, "no CUDA device is usable here%s",
#if defined(EBB_HAVE_CUDA) && EBB_HAVE_CUDA
                    ""
#else
                    " (this ebb was built without CUDA)"
#endif
        );
    ebb_pool_options o, ho;
    if (ebb_config_pool_options(cfg, EBB_TIER_GPU, (size_t)p->size, &o) != EBB_OK)
        return fail(r, "gpu pool: %s", ebb_last_error());
    if (host_options(cfg, p, r, &ho))
        return -1;
    uint64_t slots = min_u64((uint64_t)o.slots, 12);
    if (slots < 2) {
        uint64_t budget = 0;
        (void)ebb_config_budget(cfg, EBB_TIER_GPU, &budget);
        return fail(r, "the gpu budget (%llu bytes) holds fewer than 2 states of %llu bytes",
                    (unsigned long long)budget, (unsigned long long)p->size);
    }
    /* lanes <= slots / 3 keeps 2 x lanes stored slots, so a slot's previous
     * operation was waited for before the slot comes round again. */
    uint64_t lanes = max_u64(1, min_u64(4, slots / 3));
    lanes = max_u64(1, min_u64(lanes, (uint64_t)ho.slots));
    uint64_t total = p->total ? p->total : BENCH_TOTAL_GPU;
    int64_t count = (int64_t)max_u64(1, div_up(total, p->size));
    gpu_ctx g = {NULL, NULL, (int32_t)lanes, (int32_t)(slots - lanes)};
    int rc = -1;
    if (make_host_pool(&ho, (int32_t)lanes, r, &g.host))
        return -1;
    o.slots = (int32_t)slots;
    if (ebb_pool_create(&o, &g.gpu) != EBB_OK) {
        fail(r, "gpu pool of %llu slots of %llu bytes: %s", (unsigned long long)slots,
             (unsigned long long)p->size, ebb_last_error());
        goto out;
    }
    fill_slots(g.host, (int32_t)lanes, (size_t)p->size);
    if (gpu_describe(&g, r))
        goto out;
    r->staging_slots = (int32_t)lanes;
    r->in_flight = (int32_t)lanes;
    r->ops = count;
    r->moved = (uint64_t)count * p->size;
    if (gpu_measure(p, &g, r) == 0) {
        r->ran = 1;
        rc = 0;
    }
out:
    ebb_pool_destroy(g.gpu);
    ebb_pool_destroy(g.host);
    return rc;
}
