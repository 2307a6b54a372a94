/* A small deterministic workload for the runtime tests (a header: only *.c
 * files are tests). The forward step mixes every word of x_i into x_{i+1};
 * the reverse step folds x_i into a running "adjoint" hash, so the final
 * adjoint depends on every state it was given and on their order. The
 * oracle is the plain loop: compute every state, fold them in reverse. */
#ifndef EBB_TESTS_RUNTIME_WORKLOAD_H
#define EBB_TESTS_RUNTIME_WORKLOAD_H

#include <criterion/criterion.h>
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

#include "ebb/ebb.h"
#include "planner/create.h"
#include "runtime/runtime_internal.h"

typedef struct wl {
    size_t size;          /* bytes of a state (any size, not only multiples of 8) */
    uint64_t adjoint;
    int64_t forward_calls, reverse_calls;
    int64_t expect_reverse; /* the next reverse step, checked on each call */
    int order_ok;
    int64_t steps_known;  /* 0: return EBB_STEP_LAST at step last_at */
    int64_t last_at;
    /* faults */
    int64_t fail_forward_at; /* -1 none; forward step k fails (first sweep or recomputation) */
    int fail_forward_call;   /* fail on the fail_forward_call-th call of that step (1 = first) */
    int64_t fail_forward_seen;
    int64_t fail_reverse_at;
    int64_t nondet_at;       /* -1 none; the recomputation of this step gives another result */
    int64_t nondet_seen;
    /* check_buffers: every callback checks the run's buffer lists */
    int check_buffers;
    /* sparse: 7 words of 8 are zero in every state (states that compress) */
    int sparse;
    ebb_run *run;
    int64_t buffer_faults;
    char buffer_fault[256];
    int32_t host_extents; /* with check_buffers: the most extents the host pool had ready */
} wl;

/* The clock the runtime reads (CLOCK_MONOTONIC), in seconds, */
static inline double wl_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* and a wait of s seconds on it, to a few microseconds: a sleep overshoots
 * by 5-10% of a millisecond step, so the end is waited for by spinning. */
static inline void wl_wait_s(double s)
{
    double end = wl_now_s() + s;
    double nap = s - 3e-4;
    if (nap > 0) {
        struct timespec ts = {(time_t)nap, (long)((nap - (double)(time_t)nap) * 1e9)};
        nanosleep(&ts, NULL);
    }
    while (wl_now_s() < end) {
    }
}

/* Resident memory of this process, bytes (/proc/self/statm). */
static inline uint64_t wl_resident_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    cr_assert_not_null(f);
    unsigned long long size = 0, res = 0;
    cr_assert_eq(fscanf(f, "%llu %llu", &size, &res), 2);
    fclose(f);
    return res * (uint64_t)sysconf(_SC_PAGESIZE);
}

static inline void wl_init(wl *w, size_t size)
{
    memset(w, 0, sizeof *w);
    w->size = size;
    w->adjoint = 0x5eed;
    w->order_ok = 1;
    w->expect_reverse = -1;
    w->fail_forward_at = w->fail_reverse_at = w->nondet_at = -1;
    w->last_at = -1;
}

static inline uint64_t wl_mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return x;
}

/* out = F_k(in); in and out may be the same buffer. */
static inline void wl_step(const wl *w, int64_t k, const unsigned char *in, unsigned char *out)
{
    size_t words = w->size / 8;
    uint64_t carry = (uint64_t)k * 0x9e3779b97f4a7c15ULL;
    uint64_t first = 0;
    for (size_t j = 0; j < words; j++) {
        uint64_t v;
        memcpy(&v, in + 8 * j, 8);
        if (j == 0)
            first = v;
        carry = wl_mix(v ^ carry);
        uint64_t keep = w->sparse && j % 8 ? 0 : carry;
        memcpy(out + 8 * j, &keep, 8);
    }
    for (size_t j = words * 8; j < w->size; j++) {
        carry = wl_mix(in[j] ^ carry ^ first);
        out[j] = w->sparse ? 0 : (unsigned char)carry;
    }
}

/* With check_buffers: the run's buffer lists agree with its buffers' fields
 * (buffers.c), checked at every step; the first fault is kept. */
static inline void wl_check_buffers(wl *w)
{
    /* the pool itself, whatever io the run has (the real one's, or a wrapper of it) */
    ebb_pool *host = w->check_buffers && w->run ? (ebb_pool *)(void *)w->run->host.pool : NULL;
    ebb_host_debug d;
    if (host && ebb_host_debug_get(host, &d) == EBB_OK && d.extents > w->host_extents)
        w->host_extents = d.extents;
    if (!w->check_buffers || !w->run || ebb_run_debug_check_buffers(w->run) == 0)
        return;
    if (w->buffer_faults++ == 0)
        snprintf(w->buffer_fault, sizeof w->buffer_fault, "%s", ebb_last_error());
    ebb_clear_error();
}

static inline int wl_forward_cb(void *user, int64_t k, const void *in, void *out)
{
    wl *w = user;
    w->forward_calls++;
    wl_check_buffers(w);
    if (k == w->fail_forward_at && ++w->fail_forward_seen == w->fail_forward_call)
        return ebb_callback_fail("synthetic failure in forward step %lld", (long long)k);
    wl_step(w, k, in, out);
    if (k == w->nondet_at && ++w->nondet_seen == 2)
        ((unsigned char *)out)[w->size / 2] ^= 1;
    if (w->steps_known == 0 && k == w->last_at)
        return EBB_STEP_LAST;
    return EBB_STEP_OK;
}

static inline int wl_forward_inplace_cb(void *user, int64_t k, void *state)
{
    return wl_forward_cb(user, k, state, state);
}

static inline int wl_reverse_cb(void *user, int64_t k, void *state)
{
    wl *w = user;
    w->reverse_calls++;
    wl_check_buffers(w);
    if (w->expect_reverse >= 0 && k != w->expect_reverse)
        w->order_ok = 0;
    w->expect_reverse = k - 1;
    if (k == w->fail_reverse_at)
        return 7; /* a plain failure value, no message */
    w->adjoint = XXH3_64bits_withSeed(state, w->size, w->adjoint ^ (uint64_t)k);
    memset(state, 0xa5, w->size); /* the reverse step may consume its state */
    return EBB_STEP_OK;
}

static inline void wl_x0(const wl *w, unsigned char *x0, uint64_t seed)
{
    uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
    for (size_t i = 0; i < w->size; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x0[i] = w->sparse && (i / 8 % 8 || i >= w->size / 8 * 8) ? 0 : (unsigned char)(x >> 24);
    }
}

/* The oracle: the adjoint of a store-everything loop with no ebb code, for
 * the workload `like` describes (its size and sparse flag). */
static inline uint64_t wl_reference_like(const wl *like, int64_t n, uint64_t seed)
{
    size_t size = like->size;
    wl w;
    wl_init(&w, size);
    w.sparse = like->sparse;
    unsigned char *all = malloc((size_t)(n + 1) * size);
    cr_assert_not_null(all);
    wl_x0(&w, all, seed);
    for (int64_t k = 0; k < n; k++)
        wl_step(&w, k, all + (size_t)k * size, all + (size_t)(k + 1) * size);
    for (int64_t k = n - 1; k >= 0; k--)
        w.adjoint = XXH3_64bits_withSeed(all + (size_t)k * size, size, w.adjoint ^ (uint64_t)k);
    free(all);
    return w.adjoint;
}

static inline uint64_t wl_reference(size_t size, int64_t n, uint64_t seed)
{
    wl w;
    wl_init(&w, size);
    return wl_reference_like(&w, n, seed);
}

/* Random cases of the property tests: a xorshift generator, */
typedef struct wl_rng {
    uint64_t x;
} wl_rng;

static inline uint64_t wl_next(wl_rng *r)
{
    r->x ^= r->x << 13;
    r->x ^= r->x >> 7;
    r->x ^= r->x << 17;
    return r->x;
}

/* a number in [lo, hi], */
static inline int64_t wl_pick(wl_rng *r, int64_t lo, int64_t hi)
{
    return lo + (int64_t)(wl_next(r) % (uint64_t)(hi - lo + 1));
}

/* a strategy (any of them), */
static inline ebb_config_strategy wl_pick_strategy(wl_rng *r)
{
    static const ebb_config_strategy all[] = {
        EBB_CONFIG_STRATEGY_STORE_ALL,  EBB_CONFIG_STRATEGY_PERIODIC,
        EBB_CONFIG_STRATEGY_REVOLVE,    EBB_CONFIG_STRATEGY_ONLINE,
        EBB_CONFIG_STRATEGY_MULTISTAGE, EBB_CONFIG_STRATEGY_DISK_REVOLVE,
        EBB_CONFIG_STRATEGY_AUTO,       EBB_CONFIG_STRATEGY_ASYNC,
        EBB_CONFIG_STRATEGY_H_REVOLVE};
    return all[wl_pick(r, 0, (int64_t)(sizeof all / sizeof *all) - 1)];
}

/* and case c's options for n steps of `size` bytes under strategy s: the
 * slots (fast and slow), disk-revolve's ratio and the staging buffers at
 * random; store-all with the n - 1 slots it needs. */
static inline void wl_random_options(wl_rng *r, int c, size_t size, int64_t n,
                                     ebb_config_strategy s, ebb_config *cfg, ebb_run_options *o)
{
    ebb_run_options_init(o);
    o->state_size = size;
    o->config = cfg;
    o->strategy = (int)s;
    o->steps = n;
    o->slots = (int32_t)wl_pick(r, 1, n < 12 ? n + 1 : (c % 3 ? 6 : n));
    o->slow_slots = (int32_t)wl_pick(r, 1, 8);
    o->io_ratio = (double)wl_pick(r, 0, 6);
    o->staging = (int32_t)wl_pick(r, 0, 3);
}

/* A configuration whose disk tier lives in a fresh temporary directory. */
static inline void wl_config(ebb_config *cfg, char *dir, size_t dir_len)
{
    const char *base = getenv("TMPDIR");
    if (!base || base[0] != '/')
        base = "/tmp";
    snprintf(dir, dir_len, "%s/ebb-runtime-test-XXXXXX", base);
    cr_assert_not_null(mkdtemp(dir));
    cr_assert_eq(ebb_config_init_default(cfg), EBB_OK);
    const char *paths[] = {dir};
    cr_assert_eq(ebb_config_set_disk_paths(cfg, paths, 1), EBB_OK);
    cfg->disk.enabled = 1;
    cfg->disk.budget = 64ull << 20;
    cfg->host.budget = 16ull << 20;
    cfg->gpu.enabled = 0;
}

/* The contract tests' setup: a configuration (with wl_config's directory), */
typedef struct wl_setup {
    char dir[256];
    ebb_config cfg;
} wl_setup;

static inline void wl_setup_open(wl_setup *env) { wl_config(&env->cfg, env->dir, sizeof env->dir); }

static inline void wl_setup_close(wl_setup *env)
{
    rmdir(env->dir);
    ebb_config_dispose(&env->cfg);
}

/* the options of n steps of w's callbacks under cfg, */
static inline ebb_run_options wl_options(wl *w, ebb_config *cfg, int64_t n)
{
    ebb_run_options o;
    ebb_run_options_init(&o);
    o.state_size = w->size;
    o.steps = n;
    o.config = cfg;
    o.forward = wl_forward_cb;
    o.reverse = wl_reverse_cb;
    o.user = w;
    return o;
}

/* The chain program's least cost (ebb_chain_schedule_info) for n steps of
 * forward and reverse costs f and r (NULL: 1 each) whose states
 * x_0 .. x_{n-1} take sizes[i] bytes (NULL: `size` each), within `budget`
 * bytes: what a run of revolve over them must cost. */
static inline double wl_chain_cost(int64_t n, const double *f, const double *r,
                                   const size_t *sizes, size_t size, uint64_t budget)
{
    uint64_t *b = malloc(sizeof *b * (size_t)n);
    double *ones = malloc(sizeof *ones * (size_t)n);
    cr_assert(b && ones);
    for (int64_t i = 0; i < n; i++) {
        b[i] = sizes ? sizes[i] : size;
        ones[i] = 1;
    }
    ebb_chain chain = {.steps = n, .forward_cost = f ? f : ones, .reverse_cost = r ? r : ones,
                       .state_bytes = b};
    ebb_chain_options co;
    ebb_chain_options_init(&co);
    co.memory_bytes = budget;
    ebb_schedule *s = NULL;
    cr_assert_eq(ebb_chain_schedule_create(&chain, &co, &s), EBB_OK, "%s", ebb_last_error());
    ebb_chain_info ci;
    cr_assert_eq(ebb_chain_schedule_info(s, &ci), EBB_OK);
    ebb_schedule_destroy(s);
    free(b);
    free(ones);
    return ci.cost;
}

/* a run that must be created, */
static inline ebb_run *wl_create(const ebb_run_options *o)
{
    ebb_run *run = NULL;
    cr_assert_eq(ebb_run_create(o, &run), EBB_OK, "%s", ebb_last_error());
    return run;
}

/* and a call that must fail with `want`, saying `text`. */
static inline void wl_says(ebb_status got, ebb_status want, const char *text)
{
    cr_assert_eq(got, want, "got %s: %s", ebb_status_name(got), ebb_last_error());
    cr_assert(strstr(ebb_last_error(), text), "'%s' lacks '%s'", ebb_last_error(), text);
}

/* Number of entries in dir other than . and .. */
static inline int wl_dir_entries(const char *dir)
{
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "opendir %s", dir);
    struct dirent *e;
    int left = 0;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            left++;
    closedir(d);
    return left;
}

/* Runs both sweeps; returns the status, the workload keeps the adjoint. */
static inline ebb_status wl_run(const ebb_run_options *o, const ebb_storage_fault *fault, wl *w,
                                uint64_t seed, ebb_run_stats *stats)
{
    unsigned char *x0 = malloc(w->size);
    cr_assert_not_null(x0);
    wl_x0(w, x0, seed);
    ebb_run *run = NULL;
    ebb_status st = ebb_run_create_with_faults(o, fault, &run);
    w->run = run;
    if (st == EBB_OK) {
        void *xn = NULL;
        st = ebb_run_forward(run, x0, &xn);
        if (st == EBB_OK)
            cr_assert_not_null(xn);
        if (st == EBB_OK)
            st = ebb_run_reverse(run);
        if (stats)
            ebb_run_stats_get(run, stats);
    }
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", ebb_last_error());
    ebb_run_destroy(run);
    w->run = NULL;
    free(x0);
    if (st != EBB_OK)
        ebb_callback_fail("%s", msg); /* keep the message for the caller */
    return st;
}

#endif
