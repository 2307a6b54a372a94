/* benchmarks/pipeline: what its three parts share (pipeline.c has the
 * description and the command lines). Only ebb's public API and the plain
 * io_uring loop of benchmarks/loops. */
#ifndef EBB_BENCHMARKS_PIPELINE_H
#define EBB_BENCHMARKS_PIPELINE_H

#include <stddef.h>
#include <stdint.h>

#include "ebb/ebb.h"

/* Exit status when io_uring is refused here (ctest counts it as skipped). */
#define PL_EXIT_SKIP 77

typedef struct pl_args {
    const char *dir;        /* disk files (--dir) */
    int quick;              /* --quick */
    int json;               /* --json */
    /* part 1, disk */
    uint64_t total;         /* bytes per state size (--total) */
    size_t disk_sizes[3];
    int disk_count;
    uint64_t host_budget;   /* tier.host.budget of part 1 */
    /* part 2, reverse */
    size_t rev_state;       /* 4 MiB */
    int64_t rev_steps;      /* n (--steps) */
    double step_s;          /* forward and reverse step (--step-ms) */
    int32_t rev_host_states; /* host budget in states */
    double io_ratio;        /* disk-revolve R (--io-ratio); 0: from the loop */
    /* part 3, actions */
    int64_t revolve_n;
    int32_t revolve_slots[3];
    int64_t store_all_n[2];
    double min_time;        /* each case repeated until its sweeps took this long */
} pl_args;

/* What a run's callbacks count. The forward step writes its output's step
 * number into the first 8 bytes and checks its input's; the reverse step
 * checks that the state's first 8 bytes are its step and that the steps
 * come n-1 .. 0. */
typedef struct pl_ctx {
    int64_t n;
    int64_t next_reverse;
    int64_t mismatches;     /* states whose tag was wrong, steps out of order */
    int64_t reverse_calls;
    double step_s;          /* busy-wait of each step (0: none) */
} pl_ctx;

int pl_forward(void *user, int64_t step, const void *in, void *out);
int pl_reverse(void *user, int64_t step, void *state);
void pl_ctx_init(pl_ctx *c, int64_t n, double step_s);
int pl_ctx_exact(const pl_ctx *c);

double pl_now(void);

/* One plain io_uring loop run; 0, or -1 (PL_EXIT_SKIP when io_uring is
 * refused: *skip set) with the message printed. */
typedef struct pl_loop {
    size_t block;
    int depth;
    uint64_t bytes;
    double write_s, read_s;
    int direct, registered;
} pl_loop;
int pl_loop_run(const char *dir, size_t block, int depth, uint64_t bytes, pl_loop *out, int *skip);

/* The run's info, its strings copied. */
typedef struct pl_info {
    char strategy[32];
    ebb_tier fast_tier, slow_tier;
    int32_t slots[EBB_TIER_COUNT];
    int32_t buffers[EBB_TIER_COUNT];
    int32_t staging; /* of buffers[host]: the disk's */
    uint64_t bytes[EBB_TIER_COUNT];
    char warnings[256];
} pl_info;
void pl_info_copy(const ebb_run_info *in, pl_info *out);

/* An ebb failure: prints "pipeline: WHAT: ebb_last_error()"; returns 1, or
 * PL_EXIT_SKIP when the message says io_uring is refused. */
int pl_fail(const char *what);

/* One run: create, both sweeps timed (the wall of ebb_run_forward and of
 * ebb_run_reverse), stats (*st_forward, may be NULL: those between the
 * sweeps), destroy. c->step_s is kept; the rest of *c is reset. 0, or the
 * exit status (the error printed). info may be NULL. */
int pl_run_once(const ebb_run_options *o, pl_ctx *c, double *forward_s, double *reverse_s,
                ebb_run_stats *st, ebb_run_stats *st_forward, pl_info *info);

/* ---- part 1: disk-bound store-all ---- */
typedef struct pl_disk_row {
    size_t state;
    int64_t n;
    int depth;
    double forward_s, reverse_s;  /* wall of ebb_run_forward, ebb_run_reverse */
    ebb_run_stats st, st_fwd;     /* at the end; after the forward sweep */
    pl_info info;
    const char *backend;
    pl_loop loop;
    int exact;
    int64_t mismatches;
} pl_disk_row;
int pl_disk_part(const pl_args *a, pl_disk_row *rows);

/* ---- part 2: reverse sweep with 1 ms steps ---- */
typedef struct pl_rev_row {
    ebb_strategy strategy;
    double forward_s, reverse_s;
    double io_ratio;              /* disk-revolve's R */
    ebb_run_stats st, st_fwd;
    pl_info info;
    int exact;
    int64_t mismatches;
} pl_rev_row;
typedef struct pl_rev {
    size_t state;
    int64_t n;
    int depth;
    pl_loop loop;
    pl_rev_row rows[2];
} pl_rev;
int pl_reverse_part(const pl_args *a, pl_rev *out);

/* ---- part 3: cost per action ---- */
typedef struct pl_act_row {
    ebb_strategy strategy;
    int64_t n;
    int32_t slots;                /* the schedule's host slots */
    int repeats;
    double sweeps_s;              /* both sweeps, all repeats */
    double median_s;              /* both sweeps, the median repeat (what ns/action uses) */
    int64_t actions;              /* per run, from the schedule's replay */
    int64_t ops;                  /* per run: forward + reverse steps + stores + restores */
    int counts_match;             /* the replay's counts = the run's */
    ebb_run_stats st;             /* of the last repeat */
    int exact;
    int64_t mismatches;
} pl_act_row;
int pl_actions_part(const pl_args *a, pl_act_row *rows, int *count);

/* ---- output (pipeline_print.c): a table, or the part's member of the JSON
 * object (", \"disk\": {...}") ---- */
void pl_print_disk(const pl_args *a, const pl_disk_row *rows, int json);
void pl_print_reverse(const pl_args *a, const pl_rev *v, int json);
void pl_print_actions(const pl_act_row *rows, int count, int json);
/* `text` as the inside of a JSON string (quotes, backslashes and control
 * characters escaped; cut to fit `len`). Returns buf. */
const char *pl_json_text(const char *text, char *buf, size_t len);

#endif
