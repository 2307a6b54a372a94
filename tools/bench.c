/*
 * `ebb bench`: measures the tiers the configuration describes, through ebb's
 * own pools, and what they mean for a forward sweep of a given step time.
 * The measurements are in bench_tiers.c; --baseline compares the disk tier
 * with the plain io_uring loop of benchmarks/uring_loop.c and the gpu tier
 * with the plain cudaMemcpyAsync loop of benchmarks/cuda_loop.c.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "benchmarks/uring_loop.h"
#if defined(EBB_HAVE_CUDA) && EBB_HAVE_CUDA
#include "benchmarks/cuda_loop.h"
#endif
#include "ebb/config.h"
#include "ebb/ebb.h"
#include "ebb/storage.h"
#include "tools/bench.h"
#include "tools/cli.h"
#include "tools/json.h"

static const char bench_help[] =
    "usage: ebb bench [options]\n"
    "\n"
    "Measures the store (write) and load (read) bandwidth of each tier through\n"
    "ebb's own tier code, and with --step-ms what it means for a forward sweep.\n"
    "\n"
    "  --config F         configuration file (default: the embedded default)\n"
    "  --tier T           gpu | host | disk | all (default all: every tier the\n"
    "                     configuration enables; gpu only where a device exists)\n"
    "  --size BYTES       state (slot) size, units allowed: 256MiB, \"8 MiB\"\n"
    "                     (default 256 MiB)\n"
    "  --block BYTES      disk: bytes per request (default tier.disk.block_size)\n"
    "  --depth N          disk: requests in flight (default tier.disk.queue_depth)\n"
    "  --backend B        disk: auto | uring | threads (default tier.disk.backend)\n"
    "  --max-bandwidth R  disk: pace the tier to this rate, reads and writes together:\n"
    "                     \"500 MB/s\", \"2GiB/s\", bytes per second, or none\n"
    "                     (default tier.disk.max_bandwidth; --baseline is not paced)\n"
    "  --total BYTES      bytes moved per measurement and direction (default\n"
    "                     host 4 GiB, disk 8 GiB, gpu 16 GiB; disk within its budget)\n"
    "  --step-ms F        step time: compute/transfer ratio of each channel and how\n"
    "                     often a state can be stored to each tier for free\n"
    "  --baseline         also run the plain loops (no ebb code) and compare: for\n"
    "                     the disk tier an io_uring O_DIRECT loop on its directory\n"
    "                     with the same block, depth and bytes; for the gpu tier\n"
    "                     pinned cudaMemcpyAsync of the same size and bytes\n"
    "  --json             print one JSON object on stdout instead of the table\n"
    "\n"
    "GB/s are 10^9 bytes per second. A progress line goes to stderr when it is a\n"
    "terminal.\n";

enum { TIER_BIT_GPU = 1 << EBB_TIER_GPU, TIER_BIT_HOST = 1 << EBB_TIER_HOST,
       TIER_BIT_DISK = 1 << EBB_TIER_DISK };

typedef struct bench_args {
    const char *config;
    int tiers;     /* TIER_BIT_* asked for */
    int tier_all;  /* --tier all (or none given) */
    uint64_t size;
    uint64_t block; /* 0: the configuration's */
    int32_t depth;  /* 0: the configuration's */
    int backend_set;
    ebb_disk_backend backend;
    uint64_t total;
    int max_bandwidth_set;
    uint64_t max_bandwidth; /* bytes per second, 0: none */
    double step_ms; /* 0: none */
    int json, baseline;
} bench_args;

/* Parses a size option; 0 or 2 after printing why not. */
static int parse_size_opt(const char *option, const char *text, uint64_t min, uint64_t *out)
{
    uint64_t v;
    if (ebb_parse_size(text, &v) != EBB_OK) {
        fprintf(stderr, "ebb bench: %s: %s\n", option, ebb_last_error());
        return 2;
    }
    if (v < min) {
        fprintf(stderr, "ebb bench: %s must be at least %llu byte%s, got '%s'\n", option,
                (unsigned long long)min, min == 1 ? "" : "s", text);
        return 2;
    }
    *out = v;
    return 0;
}

static int parse(int argc, char **argv, bench_args *a)
{
    enum { O_CONFIG = 256, O_TIER, O_SIZE, O_BLOCK, O_DEPTH, O_BACKEND, O_TOTAL, O_STEP,
           O_BASELINE, O_JSON, O_HELP, O_MAX_BW };
    static const struct option longopts[] = {
        {"config", required_argument, 0, O_CONFIG}, {"tier", required_argument, 0, O_TIER},
        {"size", required_argument, 0, O_SIZE},     {"block", required_argument, 0, O_BLOCK},
        {"depth", required_argument, 0, O_DEPTH},   {"backend", required_argument, 0, O_BACKEND},
        {"total", required_argument, 0, O_TOTAL},   {"step-ms", required_argument, 0, O_STEP},
        {"baseline", no_argument, 0, O_BASELINE},   {"json", no_argument, 0, O_JSON},
        {"help", no_argument, 0, O_HELP},
        {"max-bandwidth", required_argument, 0, O_MAX_BW}, {0, 0, 0, 0}};
    int c;
    int64_t v;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case O_CONFIG: a->config = optarg; break;
        case O_TIER:
            if (strcmp(optarg, "gpu") == 0)
                a->tiers = TIER_BIT_GPU, a->tier_all = 0;
            else if (strcmp(optarg, "host") == 0)
                a->tiers = TIER_BIT_HOST, a->tier_all = 0;
            else if (strcmp(optarg, "disk") == 0)
                a->tiers = TIER_BIT_DISK, a->tier_all = 0;
            else if (strcmp(optarg, "all") == 0)
                a->tiers = TIER_BIT_GPU | TIER_BIT_HOST | TIER_BIT_DISK, a->tier_all = 1;
            else {
                fprintf(stderr, "ebb bench: --tier must be gpu, host, disk or all, got '%s'\n",
                        optarg);
                return 2;
            }
            break;
        case O_SIZE:
            if (parse_size_opt("--size", optarg, 1, &a->size))
                return 2;
            break;
        case O_BLOCK:
            if (parse_size_opt("--block", optarg, 4096, &a->block))
                return 2;
            if (a->block % 4096 || a->block > (UINT64_C(1) << 30)) {
                fprintf(stderr,
                        "ebb bench: --block must be a multiple of 4096 bytes, at most 1 GiB, "
                        "got '%s'\n",
                        optarg);
                return 2;
            }
            break;
        case O_DEPTH:
            if (cli_parse_int("bench", "--depth", optarg, 1, 4096, &v))
                return 2;
            a->depth = (int32_t)v;
            break;
        case O_BACKEND:
            if (ebb_disk_backend_from_name(optarg, &a->backend) != EBB_OK) {
                fprintf(stderr, "ebb bench: --backend must be auto, uring or threads, got '%s'\n",
                        optarg);
                return 2;
            }
            a->backend_set = 1;
            break;
        case O_TOTAL:
            if (parse_size_opt("--total", optarg, 1, &a->total))
                return 2;
            break;
        case O_MAX_BW:
            if (ebb_parse_rate(optarg, &a->max_bandwidth) != EBB_OK) {
                fprintf(stderr, "ebb bench: --max-bandwidth: %s\n", ebb_last_error());
                return 2;
            }
            a->max_bandwidth_set = 1;
            break;
        case O_STEP:
            if (cli_parse_double("bench", "--step-ms", optarg, 0.0, &a->step_ms))
                return 2;
            if (!(a->step_ms > 0)) {
                fprintf(stderr, "ebb bench: --step-ms must be a number > 0, got '%s'\n", optarg);
                return 2;
            }
            break;
        case O_BASELINE: a->baseline = 1; break;
        case O_JSON: a->json = 1; break;
        case O_HELP: fputs(bench_help, stdout); return 1;
        default:
            fprintf(stderr,
                    "ebb bench: unknown or incomplete option '%s' (see 'ebb bench --help')\n",
                    argv[optind - 1]);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "ebb bench: unexpected argument '%s' (see 'ebb bench --help')\n",
                argv[optind]);
        return 2;
    }
    return 0;
}

/* ---- --baseline -------------------------------------------------------------- */

typedef struct baseline_result {
    int ran;
    double write_GBps, read_GBps;
    uint64_t bytes;
    int registered, direct;
    char dir[1024];
} baseline_result;

static void baseline_progress(void *user, int phase, uint64_t done, uint64_t total)
{
    const bench_params *p = user;
    static double t0;
    if (done == 0 || t0 == 0)
        t0 = cli_now();
    bench_progress(p, phase == 0 ? "baseline write" : "baseline read", done, total, t0);
    if (done >= total)
        t0 = 0;
}

static int run_baseline(const ebb_config *cfg, const bench_params *p, uint64_t bytes,
                        baseline_result *b)
{
    bl_uring_options o;
    bl_uring_result r;
    bl_uring_options_init(&o);
    o.dir = cfg->disk.paths[0];
    o.bytes = bytes;
    o.block = p->block;
    o.depth = p->depth;
    o.direct = cfg->disk.direct;
    o.progress = baseline_progress;
    o.user = (void *)p;
    snprintf(b->dir, sizeof b->dir, "%s", o.dir);
    if (bl_uring_run(&o, &r) != 0) {
        fprintf(stderr, "ebb bench: baseline loop in '%s': %s\n", o.dir, r.error);
        return -1;
    }
    b->ran = 1;
    b->bytes = r.bytes;
    b->write_GBps = (double)r.bytes / r.write_s / 1e9;
    b->read_GBps = (double)r.bytes / r.read_s / 1e9;
    b->registered = r.registered;
    b->direct = r.direct;
    return 0;
}

/* The gpu tier's baseline: pinned cudaMemcpyAsync, whole-state calls. */
typedef struct gpu_baseline_result {
    int ran;
    double h2d_GBps, d2h_GBps, both_GBps;
    uint64_t bytes; /* per direction */
    char device_name[256];
} gpu_baseline_result;

#if defined(EBB_HAVE_CUDA) && EBB_HAVE_CUDA
static void gpu_baseline_progress(void *user, int phase, uint64_t done, uint64_t total)
{
    const bench_params *p = user;
    static double t0;
    (void)phase;
    if (done == 0 || t0 == 0)
        t0 = cli_now();
    bench_progress(p, "gpu baseline", done, total, t0);
    if (done >= total)
        t0 = 0;
}
#endif

static int run_gpu_baseline(const ebb_config *cfg, const bench_params *p, gpu_baseline_result *b)
{
#if defined(EBB_HAVE_CUDA) && EBB_HAVE_CUDA
    bl_cuda_options o;
    bl_cuda_result r;
    bl_cuda_options_init(&o);
    o.device = cfg->gpu.device;
    o.size = (size_t)p->size;
    o.total = p->total ? p->total : BENCH_TOTAL_GPU;
    o.progress = gpu_baseline_progress;
    o.user = (void *)p;
    if (bl_cuda_run(&o, &r) != 0) {
        fprintf(stderr, "ebb bench: gpu baseline (cudaMemcpyAsync loop): %s\n", r.error);
        return -1;
    }
    b->ran = 1;
    b->bytes = r.bytes;
    b->h2d_GBps = (double)r.bytes / r.h2d_s / 1e9;
    b->d2h_GBps = (double)r.bytes / r.d2h_s / 1e9;
    b->both_GBps = 2.0 * (double)r.bytes / r.both_s / 1e9;
    snprintf(b->device_name, sizeof b->device_name, "%s", r.device_name);
    return 0;
#else
    (void)cfg, (void)p, (void)b;
    fprintf(stderr, "ebb bench: gpu baseline: this ebb was built without CUDA\n");
    return -1;
#endif
}

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

static void print_json(const bench_args *a, const bench_params *p, const bench_result *res,
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
    static const ebb_tier order[] = {EBB_TIER_GPU, EBB_TIER_HOST, EBB_TIER_DISK};
    for (int k = 0; k < 3; k++) {
        const bench_result *r = &res[order[k]];
        if (!r->ran)
            continue;
        json_object(&w, ebb_tier_name(order[k]));
        json_double(&w, "write_GBps", r->write_GBps);
        json_double(&w, "read_GBps", r->read_GBps);
        if (order[k] == EBB_TIER_GPU) {
            json_double(&w, "d2h_GBps", r->d2h_GBps);
            json_double(&w, "h2d_GBps", r->h2d_GBps);
            json_double(&w, "both_GBps", r->both_GBps);
            json_int(&w, "device", r->device);
            json_int(&w, "chunk", (int64_t)r->block);
        }
        json_int(&w, "size", (int64_t)p->size);
        json_int(&w, "slot_stride", (int64_t)r->slot_stride);
        json_int(&w, "slots", r->slots);
        json_int(&w, "in_flight", r->in_flight);
        json_int(&w, "bytes_moved", (int64_t)r->moved);
        json_int(&w, "operations", r->ops);
        json_double(&w, "write_s", r->write_s);
        json_double(&w, "read_s", r->read_s);
        json_string(&w, "backend", r->backend);
        json_bool(&w, "pinned", r->pinned);
        json_int(&w, "numa_node", r->numa_node);
        if (order[k] == EBB_TIER_DISK) {
            json_int(&w, "block", (int64_t)r->block);
            json_int(&w, "depth", r->depth);
            json_int(&w, "threads", r->threads);
            json_bool(&w, "direct", r->direct);
            json_bool(&w, "registered_buffers", r->registered_buffers);
            json_int(&w, "registered_bytes", (int64_t)r->registered_bytes);
            json_int(&w, "staging_bytes", (int64_t)r->staging_bytes);
            json_bool(&w, "registered_files", r->registered_files);
            json_bool(&w, "checksum", r->checksum);
            json_int(&w, "alignment", (int64_t)r->alignment);
            json_string(&w, "path", r->path);
            json_int(&w, "paths", r->path_count);
            json_int(&w, "requests", (int64_t)r->requests);
            json_int(&w, "retries", (int64_t)r->retries);
            json_double(&w, "max_bandwidth", r->max_bandwidth); /* bytes/s, 0: no limit */
        }
        json_string(&w, "warnings", r->warnings);
        json_close(&w);
    }
    json_close(&w);
    int any_skipped = 0;
    for (int t = 0; t < EBB_TIER_COUNT; t++)
        any_skipped |= skipped[t][0] != '\0';
    if (any_skipped) {
        json_object(&w, "skipped");
        for (int t = 0; t < EBB_TIER_COUNT; t++)
            if (skipped[t][0])
                json_string(&w, ebb_tier_name((ebb_tier)t), skipped[t]);
        json_close(&w);
    }
    if (b->ran) {
        const bench_result *d = &res[EBB_TIER_DISK];
        json_object(&w, "baseline");
        json_string(&w, "what", "plain io_uring loop (benchmarks/uring_loop.c)");
        json_string(&w, "path", b->dir);
        json_int(&w, "bytes", (int64_t)b->bytes);
        json_int(&w, "block", (int64_t)p->block);
        json_int(&w, "depth", p->depth);
        json_bool(&w, "direct", b->direct);
        json_bool(&w, "registered_buffers", b->registered);
        json_double(&w, "write_GBps", b->write_GBps);
        json_double(&w, "read_GBps", b->read_GBps);
        json_double(&w, "disk_write_ratio", d->ran ? d->write_GBps / b->write_GBps : NAN);
        json_double(&w, "disk_read_ratio", d->ran ? d->read_GBps / b->read_GBps : NAN);
        json_close(&w);
    }
    if (gb->ran) {
        const bench_result *g = &res[EBB_TIER_GPU];
        json_object(&w, "gpu_baseline");
        json_string(&w, "what", "pinned cudaMemcpyAsync loop (benchmarks/cuda_loop.c)");
        json_string(&w, "device_name", gb->device_name);
        json_int(&w, "bytes", (int64_t)gb->bytes);
        json_double(&w, "h2d_GBps", gb->h2d_GBps);
        json_double(&w, "d2h_GBps", gb->d2h_GBps);
        json_double(&w, "both_GBps", gb->both_GBps);
        json_double(&w, "h2d_ratio", g->ran ? g->h2d_GBps / gb->h2d_GBps : NAN);
        json_double(&w, "d2h_ratio", g->ran ? g->d2h_GBps / gb->d2h_GBps : NAN);
        json_double(&w, "both_ratio", g->ran ? g->both_GBps / gb->both_GBps : NAN);
        json_close(&w);
    }
    if (a->step_ms > 0) {
        double step_s = a->step_ms / 1e3;
        channel ch[MAX_CHANNELS];
        int n = collect_channels(res, p->size, ch);
        json_object(&w, "ratio");
        json_double(&w, "step_ms", a->step_ms);
        json_object(&w, "channels");
        for (int i = 0; i < n; i++) {
            json_object(&w, ch[i].name);
            json_double(&w, "seconds_per_state", ch[i].seconds);
            json_double(&w, "ratio", ch[i].seconds / step_s);
            json_int(&w, "every", every(ch[i].seconds, step_s));
            json_close(&w);
        }
        json_close(&w);
        double st[EBB_TIER_COUNT];
        store_seconds(res, p->size, st);
        json_object(&w, "store_every");
        for (int t = 0; t < EBB_TIER_COUNT; t++)
            if (isfinite(st[t]))
                json_int(&w, ebb_tier_name((ebb_tier)t), every(st[t], step_s));
        json_close(&w);
        json_close(&w);
    }
    json_end(&w);
}

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

static void print_table(const bench_args *a, const bench_params *p, const bench_result *res,
                        const char skipped[EBB_TIER_COUNT][256], const baseline_result *b,
                        const gpu_baseline_result *gb)
{
    char s1[32], s2[32];
    printf("ebb bench: state %s", size_str(p->size, s1, sizeof s1));
    if (res[EBB_TIER_DISK].ran)
        printf(", disk block %s, depth %d", size_str(p->block, s2, sizeof s2), (int)p->depth);
    printf(" (GB/s = 10^9 bytes/s)\n\n");
    printf("%-5s %-9s %9s %9s %9s %9s %9s  %s\n", "tier", "backend", "write", "read", "d2h",
           "h2d", "both", "details");
    static const ebb_tier order[] = {EBB_TIER_GPU, EBB_TIER_HOST, EBB_TIER_DISK};
    for (int k = 0; k < 3; k++) {
        ebb_tier t = order[k];
        const bench_result *r = &res[t];
        if (!r->ran) {
            if (skipped[t][0])
                printf("%-5s skipped: %s\n", ebb_tier_name(t), skipped[t]);
            continue;
        }
        printf("%-5s %-9s %9.2f %9.2f", ebb_tier_name(t), r->backend, r->write_GBps,
               r->read_GBps);
        if (t == EBB_TIER_GPU)
            printf(" %9.2f %9.2f %9.2f  device %d, %s moved each way, %d in flight\n",
                   r->d2h_GBps, r->h2d_GBps, r->both_GBps, r->device,
                   size_str(r->moved, s1, sizeof s1), (int)r->in_flight);
        else if (t == EBB_TIER_HOST)
            printf(" %9s %9s %9s  %s moved each way, %d slots, %s\n", "-", "-", "-",
                   size_str(r->moved, s1, sizeof s1), (int)r->slots,
                   r->pinned ? "pinned" : "not pinned");
        else {
            char reg[96], s3[32];
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
            printf(" %9s %9s %9s  %s moved each way, %d slots, %d in flight, %s, %s, "
                   "%d thread%s%s%s\n",
                   "-", "-", "-", size_str(r->moved, s1, sizeof s1), (int)r->slots,
                   (int)r->in_flight, r->direct ? "O_DIRECT" : "buffered (page cache!)", reg,
                   (int)r->threads, r->threads == 1 ? "" : "s", r->checksum ? ", checksums" : "",
                   lim);
        }
    }
    for (int t = 0; t < EBB_TIER_COUNT; t++)
        if (res[t].ran && res[t].warnings[0])
            printf("  %s warnings: %s\n", ebb_tier_name((ebb_tier)t), res[t].warnings);
    if (res[EBB_TIER_DISK].ran)
        printf("  disk path: %s%s\n", res[EBB_TIER_DISK].path,
               res[EBB_TIER_DISK].path_count > 1 ? " (and more, striped)" : "");
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
    if (a->step_ms > 0) {
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
        for (int k = 0; k < 3; k++)
            if (isfinite(st[order[k]]))
                printf("  %-5s %s (%.3f ms per state)\n", ebb_tier_name(order[k]),
                       ordinal(every(st[order[k]], step_s), buf, sizeof buf),
                       st[order[k]] * 1e3);
    }
}

/* ---- the command --------------------------------------------------------------- */

int ebb_cmd_bench(int argc, char **argv)
{
    bench_args a;
    memset(&a, 0, sizeof a);
    a.tiers = TIER_BIT_GPU | TIER_BIT_HOST | TIER_BIT_DISK;
    a.tier_all = 1;
    a.size = UINT64_C(256) << 20;
    int rc = parse(argc, argv, &a);
    if (rc)
        return rc == 1 ? 0 : rc;

    ebb_config cfg;
    if (ebb_config_init_default(&cfg) != EBB_OK) {
        fprintf(stderr, "ebb bench: %s\n", ebb_last_error());
        return 1;
    }
    if (a.config && ebb_config_load_file(a.config, &cfg) != EBB_OK) {
        fprintf(stderr, "ebb bench: %s\n", ebb_last_error());
        ebb_config_dispose(&cfg);
        return 1;
    }
    bench_params p;
    memset(&p, 0, sizeof p);
    p.size = a.size;
    p.block = a.block ? (size_t)a.block : (size_t)cfg.disk.block_size;
    p.depth = a.depth ? a.depth : cfg.disk.queue_depth;
    p.backend = a.backend_set ? a.backend : cfg.disk.backend;
    p.total = a.total;
    p.max_bandwidth = a.max_bandwidth_set ? a.max_bandwidth : cfg.disk.max_bandwidth;
    p.progress = isatty(STDERR_FILENO);

    /* Which tiers: those asked for that the configuration enables (a tier
     * asked for by name must be there); the gpu only with a device. */
    static const struct { ebb_tier tier; const char *key; } names[] = {
        {EBB_TIER_GPU, "tier.gpu.enabled"},
        {EBB_TIER_HOST, "tier.host.enabled"},
        {EBB_TIER_DISK, "tier.disk.enabled"}};
    int enabled[EBB_TIER_COUNT] = {cfg.gpu.enabled, cfg.host.enabled, cfg.disk.enabled};
    char skipped[EBB_TIER_COUNT][256] = {{0}};
    int run[EBB_TIER_COUNT] = {0};
    for (int k = 0; k < 3; k++) {
        ebb_tier t = names[k].tier;
        if (!(a.tiers & (1 << t)))
            continue;
        if (t == EBB_TIER_GPU && ebb_gpu_count() == 0) {
            if (!a.tier_all) { /* asked for by name: bench_gpu says why it cannot */
                run[t] = 1;
                continue;
            }
            snprintf(skipped[t], sizeof skipped[t], "no CUDA device");
            continue;
        }
        if (!enabled[t]) {
            if (!a.tier_all) {
                fprintf(stderr, "ebb bench: the %s tier is disabled in the configuration (%s = "
                                "false)\n",
                        ebb_tier_name(t), names[k].key);
                ebb_config_dispose(&cfg);
                return 1;
            }
            snprintf(skipped[t], sizeof skipped[t], "disabled (%s = false)", names[k].key);
            continue;
        }
        run[t] = 1;
    }
    if (a.baseline && !run[EBB_TIER_DISK] && !run[EBB_TIER_GPU]) {
        fprintf(stderr, "ebb bench: --baseline compares the disk tier (with an io_uring loop) "
                        "and the gpu tier (with a cudaMemcpyAsync loop), and this run measures "
                        "neither (use --tier disk, gpu or all)\n");
        ebb_config_dispose(&cfg);
        return 2;
    }
    if (!run[0] && !run[1] && !run[2]) {
        fprintf(stderr, "ebb bench: no tier to measure: the configuration enables none\n");
        ebb_config_dispose(&cfg);
        return 1;
    }

    bench_result res[EBB_TIER_COUNT];
    memset(res, 0, sizeof res);
    baseline_result base;
    memset(&base, 0, sizeof base);
    gpu_baseline_result gbase;
    memset(&gbase, 0, sizeof gbase);
    static int (*const measure[EBB_TIER_COUNT])(const ebb_config *, const bench_params *,
                                                bench_result *) = {bench_gpu, bench_host,
                                                                   bench_disk};
    static const ebb_tier order[] = {EBB_TIER_GPU, EBB_TIER_HOST, EBB_TIER_DISK};
    for (int k = 0; k < 3 && rc == 0; k++) {
        ebb_tier t = order[k];
        if (!run[t])
            continue;
        if (t == EBB_TIER_DISK && a.baseline) {
            /* The same bytes as the disk tier will move (its default, or --total). */
            uint64_t total = p.total ? p.total : BENCH_TOTAL_DISK;
            uint64_t bytes = (total + p.size - 1) / p.size * p.size, budget = 0;
            if (ebb_config_budget(&cfg, EBB_TIER_DISK, &budget) == EBB_OK && budget < bytes)
                bytes = budget / 4096 * 4096;
            if (run_baseline(&cfg, &p, bytes, &base) != 0) {
                rc = 1;
                break;
            }
        }
        if (t == EBB_TIER_GPU && a.baseline && ebb_gpu_count() > 0 &&
            run_gpu_baseline(&cfg, &p, &gbase) != 0) {
            rc = 1;
            break;
        }
        if (measure[t](&cfg, &p, &res[t]) != 0) {
            fprintf(stderr, "ebb bench: %s tier: %s\n", ebb_tier_name(t), res[t].error);
            rc = 1;
        }
    }
    if (rc == 0) {
        if (a.json)
            print_json(&a, &p, res, (const char(*)[256])skipped, &base, &gbase);
        else
            print_table(&a, &p, res, (const char(*)[256])skipped, &base, &gbase);
    }
    ebb_config_dispose(&cfg);
    return rc;
}
