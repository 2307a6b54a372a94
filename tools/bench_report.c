/* `ebb bench`'s report: the compute/transfer ratios a step time gives, and
 * the table or JSON of every tier's figures and its baseline. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ebb/ebb.h"
#include "tools/bench_cmd.h"
#include "tools/cli.h"
#include "tools/json.h"

/* ---- compute/transfer ratio ---------------------------------------------------- */

typedef struct channel {
    const char *name;
    const char *what;
    double seconds; /* to move one state (both: one each way) */
} channel;

enum { MAX_CHANNELS = 9 };

static double per_state(uint64_t size, double GBps) { return GBps > 0 ? (double)size / GBps / 1e9 : NAN; }

static int64_t every(double seconds, double step_s)
{
    if (!(seconds > 0) || !(step_s > 0))
        return 0;
    double k = ceil(seconds / step_s - 1e-9);
    return k < 1 ? 1 : (int64_t)k;
}

static int collect_channels(const bench_result *res, uint64_t size, channel *ch)
{
    int n = 0;
    const bench_result *g = &res[EBB_TIER_GPU], *h = &res[EBB_TIER_HOST], *d = &res[EBB_TIER_DISK];
    if (g->ran) {
        ch[n++] = (channel){"gpu_write", "gpu slot store (device copy)", per_state(size, g->write_GBps)};
        ch[n++] = (channel){"gpu_read", "gpu slot load (device copy)", per_state(size, g->read_GBps)};
        ch[n++] = (channel){"d2h", "device -> host", per_state(size, g->d2h_GBps)};
        ch[n++] = (channel){"h2d", "host -> device", per_state(size, g->h2d_GBps)};
        ch[n++] = (channel){"both", "d2h + h2d at once (one state each way)",
                            per_state(2 * size, g->both_GBps)};
    }
    if (h->ran) {
        ch[n++] = (channel){"host_write", "host slot store (memcpy)", per_state(size, h->write_GBps)};
        ch[n++] = (channel){"host_read", "host slot load (memcpy)", per_state(size, h->read_GBps)};
    }
    if (d->ran) {
        ch[n++] = (channel){"disk_write", "host -> disk", per_state(size, d->write_GBps)};
        ch[n++] = (channel){"disk_read", "disk -> host", per_state(size, d->read_GBps)};
    }
    return n;
}

/* Seconds per stored state, per tier, for the forward sweep: the state is
 * made on the GPU when there is one (gpu: a device copy; host: d2h; disk:
 * d2h then host -> disk, pipelined through a host slot, so the slower of the
 * two), else in host memory (host: memcpy; disk: memcpy into a staging slot
 * then host -> disk, pipelined). NAN where a tier was not measured. */
static void store_seconds(const bench_result *res, uint64_t size, double out[EBB_TIER_COUNT])
{
    const bench_result *g = &res[EBB_TIER_GPU], *h = &res[EBB_TIER_HOST], *d = &res[EBB_TIER_DISK];
    out[EBB_TIER_GPU] = g->ran ? per_state(size, g->write_GBps) : NAN;
    double to_host = g->ran ? per_state(size, g->d2h_GBps)
                     : h->ran ? per_state(size, h->write_GBps) : NAN;
    out[EBB_TIER_HOST] = h->ran || g->ran ? to_host : NAN;
    if (d->ran) {
        double t = per_state(size, d->write_GBps);
        out[EBB_TIER_DISK] = isfinite(to_host) && to_host > t ? to_host : t;
    } else {
        out[EBB_TIER_DISK] = NAN;
    }
}

/* ---- output ------------------------------------------------------------------ */

static const char *size_str(uint64_t bytes, char *buf, size_t n)
{
    ebb_format_size(bytes, buf, n);
    return buf;
}

static const ebb_tier tier_order[] = {EBB_TIER_GPU, EBB_TIER_HOST, EBB_TIER_DISK};

/* ---- JSON -------------------------------------------------------------------- */

static void json_disk_details(json_writer *w, const bench_result *r)
{
    json_int(w, "block", (int64_t)r->block);
    json_int(w, "depth", r->depth);
    json_int(w, "threads", r->threads);
    json_bool(w, "direct", r->direct);
    json_bool(w, "registered_buffers", r->registered_buffers);
    json_int(w, "registered_bytes", (int64_t)r->registered_bytes);
    json_int(w, "staging_bytes", (int64_t)r->staging_bytes);
    json_bool(w, "registered_files", r->registered_files);
    json_bool(w, "checksum", r->checksum);
    json_int(w, "alignment", (int64_t)r->alignment);
    json_string(w, "path", r->path);
    json_int(w, "paths", r->path_count);
    json_int(w, "requests", (int64_t)r->requests);
    json_int(w, "retries", (int64_t)r->retries);
    json_double(w, "max_bandwidth", r->max_bandwidth); /* bytes/s, 0: no limit */
}

/* One measured tier's object. */
static void json_tier(json_writer *w, ebb_tier t, const bench_result *r, uint64_t size)
{
    json_object(w, ebb_tier_name(t));
    json_double(w, "write_GBps", r->write_GBps);
    json_double(w, "read_GBps", r->read_GBps);
    if (t == EBB_TIER_GPU) {
        json_double(w, "d2h_GBps", r->d2h_GBps);
        json_double(w, "h2d_GBps", r->h2d_GBps);
        json_double(w, "both_GBps", r->both_GBps);
        json_int(w, "device", r->device);
        json_int(w, "chunk", (int64_t)r->block);
    }
    json_int(w, "size", (int64_t)size);
    json_int(w, "slot_stride", (int64_t)r->slot_stride);
    json_int(w, "slots", r->slots);
    json_int(w, "in_flight", r->in_flight);
    json_int(w, "bytes_moved", (int64_t)r->moved);
    json_int(w, "operations", r->ops);
    json_double(w, "write_s", r->write_s);
    json_double(w, "read_s", r->read_s);
    json_string(w, "backend", r->backend);
    json_bool(w, "pinned", r->pinned);
    json_int(w, "numa_node", r->numa_node);
    if (t == EBB_TIER_DISK)
        json_disk_details(w, r);
    json_string(w, "warnings", r->warnings);
    json_close(w);
}

static void json_skipped(json_writer *w, const char skipped[EBB_TIER_COUNT][256])
{
    int any_skipped = 0;
    for (int t = 0; t < EBB_TIER_COUNT; t++)
        any_skipped |= skipped[t][0] != '\0';
    if (!any_skipped)
        return;
    json_object(w, "skipped");
    for (int t = 0; t < EBB_TIER_COUNT; t++)
        if (skipped[t][0])
            json_string(w, ebb_tier_name((ebb_tier)t), skipped[t]);
    json_close(w);
}

static void json_baselines(json_writer *w, const bench_params *p, const bench_result *res,
                           const baseline_result *b, const gpu_baseline_result *gb)
{
    if (b->ran) {
        const bench_result *d = &res[EBB_TIER_DISK];
        json_object(w, "baseline");
        json_string(w, "what", "plain io_uring loop (benchmarks/loops/uring_loop.c)");
        json_string(w, "path", b->dir);
        json_int(w, "bytes", (int64_t)b->bytes);
        json_int(w, "block", (int64_t)p->block);
        json_int(w, "depth", p->depth);
        json_bool(w, "direct", b->direct);
        json_bool(w, "registered_buffers", b->registered);
        json_double(w, "write_GBps", b->write_GBps);
        json_double(w, "read_GBps", b->read_GBps);
        json_double(w, "disk_write_ratio", d->ran ? d->write_GBps / b->write_GBps : NAN);
        json_double(w, "disk_read_ratio", d->ran ? d->read_GBps / b->read_GBps : NAN);
        json_close(w);
    }
    if (gb->ran) {
        const bench_result *g = &res[EBB_TIER_GPU];
        json_object(w, "gpu_baseline");
        json_string(w, "what", "pinned cudaMemcpyAsync loop (benchmarks/loops/cuda_loop.c)");
        json_string(w, "device_name", gb->device_name);
        json_int(w, "bytes", (int64_t)gb->bytes);
        json_double(w, "h2d_GBps", gb->h2d_GBps);
        json_double(w, "d2h_GBps", gb->d2h_GBps);
        json_double(w, "both_GBps", gb->both_GBps);
        json_double(w, "h2d_ratio", g->ran ? g->h2d_GBps / gb->h2d_GBps : NAN);
        json_double(w, "d2h_ratio", g->ran ? g->d2h_GBps / gb->d2h_GBps : NAN);
        json_double(w, "both_ratio", g->ran ? g->both_GBps / gb->both_GBps : NAN);
        json_close(w);
    }
}

/* --step-ms: each channel's ratio, and how often each tier can take a state. */
static void json_ratio(json_writer *w, const bench_args *a, const bench_params *p,
                       const bench_result *res)
{
    double step_s = a->step_ms / 1e3;
    channel ch[MAX_CHANNELS];
    int n = collect_channels(res, p->size, ch);
    json_object(w, "ratio");
    json_double(w, "step_ms", a->step_ms);
    json_object(w, "channels");
    for (int i = 0; i < n; i++) {
        json_object(w, ch[i].name);
        json_double(w, "seconds_per_state", ch[i].seconds);
        json_double(w, "ratio", ch[i].seconds / step_s);
        json_int(w, "every", every(ch[i].seconds, step_s));
        json_close(w);
    }
    json_close(w);
    double st[EBB_TIER_COUNT];
    store_seconds(res, p->size, st);
    json_object(w, "store_every");
    for (int t = 0; t < EBB_TIER_COUNT; t++)
        if (isfinite(st[t]))
            json_int(w, ebb_tier_name((ebb_tier)t), every(st[t], step_s));
    json_close(w);
    json_close(w);
}

void bench_print_json(const bench_args *a, const bench_params *p, const bench_result *res,
                      const char skipped[EBB_TIER_COUNT][256], const baseline_result *b,
                      const gpu_baseline_result *gb)
{
    json_writer w;
    json_begin(&w, stdout);
    json_string(&w, "version", ebb_version());
    json_int(&w, "size", (int64_t)p->size);
    json_int(&w, "block", (int64_t)p->block);
    json_int(&w, "depth", p->depth);
    json_string(&w, "backend_requested", ebb_disk_backend_name(p->backend));
    json_object(&w, "tiers");
    for (int k = 0; k < EBB_TIER_COUNT; k++)
        if (res[tier_order[k]].ran)
            json_tier(&w, tier_order[k], &res[tier_order[k]], p->size);
    json_close(&w);
    json_skipped(&w, skipped);
    json_baselines(&w, p, res, b, gb);
    if (a->step_ms > 0)
        json_ratio(&w, a, p, res);
    json_end(&w);
}

/* ---- table ------------------------------------------------------------------- */

static const char *ordinal(int64_t k, char *buf, size_t n)
{
    if (k == 1) {
        snprintf(buf, n, "every step");
        return buf;
    }
    const char *suf = "th";
    if (k % 100 < 11 || k % 100 > 13)
        suf = k % 10 == 1 ? "st" : k % 10 == 2 ? "nd" : k % 10 == 3 ? "rd" : "th";
    snprintf(buf, n, "every %lld%s step", (long long)k, suf);
    return buf;
}

/* A bandwidth in the table's GB/s: two decimals, and three significant
 * digits below 1 GB/s (a small state's 0.0042 printed as 0.00). */
static const char *gbps(double v, char *buf, size_t n)
{
    snprintf(buf, n, v > 0 && v < 1 ? "%.3g" : "%.2f", v);
    return buf;
}

/* "1 slot", "2 slots" */
static const char *plural(int k, const char *what, char *buf, size_t n)
{
    snprintf(buf, n, "%d %s%s", k, what, k == 1 ? "" : "s");
    return buf;
}

/* The disk row's details, after its bandwidths. */
static void table_disk_details(const bench_result *r)
{
    char reg[96], s1[32], s2[32], s3[32];
    if (!r->registered_buffers)
        snprintf(reg, sizeof reg, "unregistered buffers");
    else
        snprintf(reg, sizeof reg, "registered buffers (%s of %s)",
                 size_str(r->registered_bytes, s2, sizeof s2),
                 size_str(r->staging_bytes, s3, sizeof s3));
    char lim[64] = "";
    if (r->max_bandwidth > 0) {
        memcpy(lim, ", paced to ", 12);
        ebb_format_rate((uint64_t)r->max_bandwidth, lim + 11, sizeof lim - 11);
    }
    char n1[32], n2[48];
    /* states in flight, not requests (--depth, in the header) */
    printf(" %9s %9s %9s  %s moved each way, %s, %s in flight, %s, %s, "
           "%d thread%s%s%s\n",
           "-", "-", "-", size_str(r->moved, s1, sizeof s1), plural((int)r->slots, "slot", n1,
           sizeof n1), plural((int)r->in_flight, "state", n2, sizeof n2),
           r->direct ? "O_DIRECT" : "buffered (page cache!)", reg, (int)r->threads,
           r->threads == 1 ? "" : "s", r->checksum ? ", checksums" : "", lim);
}

/* One tier's row: its figures, or why it was skipped. */
static void table_tier(ebb_tier t, const bench_result *r, const char *skipped)
{
    char s1[32], g1[32], g2[32], g3[32], n1[48];
    if (!r->ran) {
        if (skipped[0])
            printf("%-5s skipped: %s\n", ebb_tier_name(t), skipped);
        return;
    }
    printf("%-5s %-9s %9s %9s", ebb_tier_name(t), r->backend, gbps(r->write_GBps, g1, sizeof g1),
           gbps(r->read_GBps, g2, sizeof g2));
    if (t == EBB_TIER_GPU)
        printf(" %9s %9s %9s  device %d, %s moved each way, %s in flight\n",
               gbps(r->d2h_GBps, g1, sizeof g1), gbps(r->h2d_GBps, g2, sizeof g2),
               gbps(r->both_GBps, g3, sizeof g3), r->device, size_str(r->moved, s1, sizeof s1),
               plural((int)r->in_flight, "state", n1, sizeof n1));
    else if (t == EBB_TIER_HOST)
        printf(" %9s %9s %9s  %s moved each way, %s, %s\n", "-", "-", "-",
               size_str(r->moved, s1, sizeof s1), plural((int)r->slots, "slot", n1, sizeof n1),
               r->pinned ? "pinned" : "not pinned");
    else
        table_disk_details(r);
}

static void table_baselines(const bench_result *res, const baseline_result *b,
                            const gpu_baseline_result *gb)
{
    char s1[32];
    if (b->ran) {
        const bench_result *d = &res[EBB_TIER_DISK];
        printf("\nbaseline: plain io_uring loop in %s (%s, %s buffers, same block, depth, %s)\n",
               b->dir, b->direct ? "O_DIRECT" : "buffered",
               b->registered ? "registered" : "unregistered", size_str(b->bytes, s1, sizeof s1));
        printf("  write %.2f GB/s, read %.2f GB/s", b->write_GBps, b->read_GBps);
        if (d->ran)
            printf("; ebb disk tier reaches %.0f%% (write) and %.0f%% (read) of it",
                   100.0 * d->write_GBps / b->write_GBps, 100.0 * d->read_GBps / b->read_GBps);
        printf("\n");
    }
    if (gb->ran) {
        const bench_result *g = &res[EBB_TIER_GPU];
        printf("\ngpu baseline: pinned cudaMemcpyAsync on %s (same size, %s each way, one call "
               "per state)\n",
               gb->device_name, size_str(gb->bytes, s1, sizeof s1));
        printf("  h2d %.2f GB/s, d2h %.2f GB/s, both %.2f GB/s", gb->h2d_GBps, gb->d2h_GBps,
               gb->both_GBps);
        if (g->ran)
            printf("; ebb gpu tier reaches %.0f%% (h2d), %.0f%% (d2h), %.0f%% (both) of it",
                   100.0 * g->h2d_GBps / gb->h2d_GBps, 100.0 * g->d2h_GBps / gb->d2h_GBps,
                   100.0 * g->both_GBps / gb->both_GBps);
        printf("\n");
    }
}

/* --step-ms: each channel's ratio, and how often each tier can take a state. */
static void table_ratio(const bench_args *a, const bench_params *p, const bench_result *res)
{
    double step_s = a->step_ms / 1e3;
    channel ch[MAX_CHANNELS];
    int n = collect_channels(res, p->size, ch);
    char buf[48];
    printf("\nstep %.6g ms: time to move one state / step time\n", a->step_ms);
    printf("  %-11s %-40s %12s %8s\n", "channel", "", "ms/state", "ratio");
    for (int i = 0; i < n; i++)
        printf("  %-11s %-40s %12.3f %8.3f\n", ch[i].name, ch[i].what, ch[i].seconds * 1e3,
               ch[i].seconds / step_s);
    double st[EBB_TIER_COUNT];
    store_seconds(res, p->size, st);
    printf("\nstoring a state without slowing the forward sweep:\n");
    for (int k = 0; k < EBB_TIER_COUNT; k++)
        if (isfinite(st[tier_order[k]]))
            printf("  %-5s %s (%.3f ms per state)\n", ebb_tier_name(tier_order[k]),
                   ordinal(every(st[tier_order[k]], step_s), buf, sizeof buf),
                   st[tier_order[k]] * 1e3);
}

void bench_print_table(const bench_args *a, const bench_params *p, const bench_result *res,
                       const char skipped[EBB_TIER_COUNT][256], const baseline_result *b,
                       const gpu_baseline_result *gb)
{
    char s1[32], s2[32];
    printf("ebb bench: state %s", size_str(p->size, s1, sizeof s1));
    if (res[EBB_TIER_DISK].ran)
        printf(", disk requests up to %s, %d in flight", size_str(p->block, s2, sizeof s2),
               (int)p->depth);
    printf(" (GB/s = 10^9 bytes/s)\n\n");
    printf("%-5s %-9s %9s %9s %9s %9s %9s  %s\n", "tier", "backend", "write", "read", "d2h",
           "h2d", "both", "details");
    for (int k = 0; k < EBB_TIER_COUNT; k++)
        table_tier(tier_order[k], &res[tier_order[k]], skipped[tier_order[k]]);
    for (int t = 0; t < EBB_TIER_COUNT; t++)
        if (res[t].ran && res[t].warnings[0])
            printf("  %s warnings: %s\n", ebb_tier_name((ebb_tier)t), res[t].warnings);
    if (res[EBB_TIER_DISK].ran)
        printf("  disk path: %s%s\n", res[EBB_TIER_DISK].path,
               res[EBB_TIER_DISK].path_count > 1 ? " (and more, striped)" : "");
    table_baselines(res, b, gb);
    if (a->step_ms > 0)
        table_ratio(a, p, res);
}
