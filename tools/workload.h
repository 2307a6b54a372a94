/* `ebb run`: the synthetic workload (a forward step that computes for about
 * F ms and a reverse step that folds every state into an adjoint) and the
 * driver of one run under one strategy (workload.c). run.c parses the
 * command line and prints the results. */
#ifndef EBB_TOOLS_WORKLOAD_H
#define EBB_TOOLS_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>

#include "ebb/runtime.h"

/* The work of the steps, fixed once at start so that every step of every
 * strategy computes exactly the same thing, whatever the timing. */
typedef struct workload_plan {
    size_t size;           /* bytes of one state */
    int64_t steps;         /* n */
    double pass_s;         /* measured time of one pass over a state */
    int64_t forward_passes; /* passes per forward step, >= 1 */
    int64_t reverse_passes; /* passes per reverse step (on a scratch buffer), >= 0 */
    double forward_s, reverse_s; /* the step times asked (0: as the passes take): a step
                                    that ends early waits for its time */
    int data;              /* what the states hold: a state_data (tools/state_data.h);
                              random: pseudo-random bytes, mixed by every pass */
    int element;           /* smooth, sparse: float32 or float64 values (ebb_element) */
} workload_plan;

/* Times passes over a state-sized buffer holding `data` (a state_data) of
 * `element` and derives the passes per step from the wanted forward and
 * reverse milliseconds. 0, or -1 with a message in err when memory runs out
 * or the size is not a whole number of elements. */
int workload_calibrate(size_t size, int64_t steps, double forward_ms, double reverse_ms, int data,
                       int element, workload_plan *plan, char *err, size_t errlen);

/* What one run asks of the engine, beyond the workload. */
typedef struct workload_request {
    const ebb_config *config;
    int strategy;       /* an ebb_config_strategy, or -1: the configuration's */
    int32_t slots, slow_slots;
    int64_t period;
    double io_ratio;
    int audit;          /* -1 or EBB_AUDIT_HASH */
    int inplace;
    int progress;       /* 0 none, 1 on a terminal (a \r line, 10 updates/s), 2 to a
                           file or pipe (a plain line every 10 s, the first after 10 s) */
    const char *trace;  /* timeline file, or NULL */
    uint64_t seed;      /* x_0's seed (ebb run --seed); 0: the default x_0 */
    int field_gradient; /* 1: float states also give the numeric gradient
                           (workload_result.field; workload.c, at the top) */
    int32_t error_samples; /* the lossy error estimate's samples; -1: run.error_samples */
    int fail;           /* tests: 1 = the forward step fail_step fails (--fail-at-step) */
    int64_t fail_step;
    /* another way to create the run (ebb run --mpi), NULL: ebb_run_create;
     * and a look at the run before it is destroyed (ok: both sweeps ran) */
    ebb_status (*create)(void *ctx, const ebb_run_options *o, ebb_run **run);
    void (*before_destroy)(void *ctx, ebb_run *run, int ok);
    void *ctx;
} workload_request;

/* The result of one run. */
typedef struct workload_result {
    int ran;                  /* 1: stats, info and gradient are set */
    int on_disk;              /* 1: retried with the fast tier on disk */
    char on_disk_why[512];    /* then why the first try failed (a budget, --slots, or
                                 an allocation refused) */
    char strategy[32];        /* as resolved (or as asked for, when it did not run) */
    char asked[32];           /* as asked for ("auto", "async") */
    char reason[256];         /* why the run chose what it ran (ebb_run_info.reason) */
    char error[1024];         /* why it did not run, or why it failed */
    ebb_run_info info;        /* strings copied below: the run is gone */
    char warnings[1024];
    ebb_run_stats stats;
    uint64_t gradient;        /* the final adjoint */
    double *field;            /* field_gradient with float states: the numeric gradient
                                 (owned: workload_result_free), else NULL */
    size_t field_count;       /* its values: one a state's element */
    double first_sweep_callback_s; /* forward callbacks during ebb_run_forward */
    int64_t first_sweep_steps;
    double forward_callback_own_s; /* every forward callback, timed by the workload */
    double reverse_callback_own_s;
} workload_result;

/* Outcomes of workload_run. */
enum {
    WORKLOAD_OK = 0,
    WORKLOAD_SKIPPED = 1, /* ebb_run_create refused: r->error says why */
    WORKLOAD_FAILED = 2   /* a sweep failed, or memory ran out: r->error */
};

/* Runs the workload once: creates the run (retrying with the fast tier on
 * disk when the budget is too small), both sweeps, and collects the figures. */
int workload_run(const workload_plan *plan, const workload_request *req, workload_result *r);

/* Frees r->field (the result stays readable). */
void workload_result_free(workload_result *r);

/* |g - exact|_2 / |exact|_2 over n values; NaN when exact is all zeros. */
double workload_relative_error(const double *g, const double *exact, size_t n);

#endif
