/* `ebb run` with a lossy tier (tier.host.compression or
 * tier.disk.compression fixed-rate, fixed-precision or fixed-accuracy): the
 * exact run, the same workload with compression off on every tier, whose
 * numeric gradient (tools/workload.c) the lossy runs' are measured against:
 * gradient relative error = |g - g_exact|_2 / |g_exact|_2. Without a lossy
 * tier every run is exact (compression off, or lossless: bitwise the
 * gradient of off, tests/runtime/exact_property.c) and the error is 0. */
#ifndef EBB_TOOLS_RUN_EXACT_H
#define EBB_TOOLS_RUN_EXACT_H

#include <stddef.h>
#include <stdint.h>

#include "ebb/config.h"
#include "tools/json.h"
#include "tools/workload.h"

typedef struct run_exact {
    const char *key;     /* the first lossy tier's key ("tier.host.compression"), or NULL */
    const char *mode;    /* its mode ("fixed-rate") */
    int measure;         /* 1: lossy and not --no-exact */
    int ran;             /* 1: the exact run ran; below are set */
    char strategy[32];   /* the strategy it ran (as resolved) */
    uint64_t gradient;   /* its hash gradient */
    double wall_s;
    int64_t recomputed;
    double *field;       /* its numeric gradient (owned) */
    size_t count;
} run_exact;

/* Finds cfg's lossy tier, if any; measure = lossy && !no_exact. */
void run_exact_init(run_exact *x, const ebb_config *cfg, int no_exact);

/* Runs the exact run (after the runs asked for, whose numeric gradients
 * wait for it): req's workload over cfg with compression off on every
 * tier, with req's strategy first, then those of `order` (n of them) until
 * one fits. 0, or -1 with a message in err. */
int run_exact_run(run_exact *x, const ebb_config *cfg, const workload_plan *plan,
                  const workload_request *req, const int *order, int n, char *err, size_t len);

/* r's gradient relative error: 0 without a lossy tier, NaN when not
 * measured (--no-exact, or r did not run), else measured against the exact
 * run. Frees r->field. */
double run_exact_error(const run_exact *x, workload_result *r);

/* The exact run in --json: "gradient_rel_error_from", and the exact run's
 * "exact_strategy", "exact_gradient", "exact_wall_s", "exact_recomputed_steps"
 * when it ran. */
void run_exact_json(json_writer *w, const run_exact *x);

/* The table's lines: each run's error (n results, error[i] from
 * run_exact_error) and what it was measured against. Nothing without a
 * lossy tier or lossless compression. */
void run_exact_print(const run_exact *x, const ebb_config *cfg, const workload_result *res,
                     const double *error, int n);

void run_exact_free(run_exact *x);

#endif
