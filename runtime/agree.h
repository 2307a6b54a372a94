/*
 * Agreement between processes that run the same schedule (the MPI part,
 * mpi/, fills it in; ebb_run.agree NULL = one process, and then none of
 * this is called, so one process pays nothing).
 *
 * Each hook is collective: every process calls it at the same point of its
 * run. A hook that finds another process failed returns that process's
 * status, ebb_last_error() naming it ("rank R failed: ..."), and makes no
 * collective after.
 */
#ifndef EBB_RUNTIME_AGREE_H
#define EBB_RUNTIME_AGREE_H

#include <stdint.h>

#include "ebb/error.h"
#include "ebb/schedule.h"
#include "schedules/async.h"

/* What the processes must share before the strategy is chosen. */
typedef struct rt_agree_setup {
    int64_t steps;                   /* n (0 unknown): must be equal */
    int state_tier, fast, slow;      /* must be equal (slow -1: none) */
    int32_t slots[EBB_TIER_COUNT];   /* in: this process's; out: the least over all */
    int measure_costs;               /* must be equal */
} rt_agree_setup;

typedef struct rt_agree rt_agree;
struct rt_agree {
    int ranks_per_node;   /* processes sharing this one's disk */
    int rank, ranks;      /* this process's rank among `ranks` (its timeline, trace.h) */
    ebb_status (*setup)(rt_agree *a, rt_agree_setup *s);
    /* auto's planner: seconds[k] (k < count <= 8, +inf: does not fit) becomes
     * the largest over the processes; h-revolve's three costs likewise */
    ebb_status (*predictions)(rt_agree *a, double *seconds, int count);
    /* the strategy chosen (a code and its name): must be equal */
    ebb_status (*strategy)(rt_agree *a, int code, const char *name);
    /* the asynchronous strategy's decision at `step`: *idle = 1 when every
     * process agrees that the channels in `mask` are free (local answers
     * them for this process) */
    ebb_status (*idle)(rt_agree *a, rt_async_idle_fn local, void *local_ctx, int mask,
                       int64_t step, int *idle);
    /* the end of the forward sweep: n (steps run when unknown) must be equal */
    ebb_status (*finish_forward)(rt_agree *a, int64_t n);
    /* measure_costs, once n is known: costs[i] (i < count) becomes the
     * largest over the processes, so that they plan one reverse sweep */
    ebb_status (*costs)(rt_agree *a, double *costs, int64_t count);
    /* the end of the reverse sweep */
    ebb_status (*finish_reverse)(rt_agree *a);
    /* this process failed with st (message in ebb_last_error): tells the
     * others; returns the status to report (the failing process's) */
    ebb_status (*fail)(rt_agree *a, ebb_status st);
    void (*destroy)(rt_agree *a);
};

#endif
