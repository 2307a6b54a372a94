/* benchmarks/pipeline: the callbacks, the plain loop and the error path
 * its parts share (pipeline.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pipeline.h"
#include "uring_loop.h"

double pl_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* A step's time, busy: a sleep would give the core away and wake late. */
static void spin(double seconds)
{
    double end = pl_now() + seconds;
    while (pl_now() < end)
        ;
}

void pl_ctx_init(pl_ctx *c, int64_t n, double step_s)
{
    memset(c, 0, sizeof *c);
    c->n = n;
    c->next_reverse = n - 1;
    c->step_s = step_s;
}

int pl_ctx_exact(const pl_ctx *c) { return c->mismatches == 0 && c->reverse_calls == c->n; }

int pl_forward(void *user, int64_t step, const void *in, void *out)
{
    pl_ctx *c = user;
    uint64_t tag;
    memcpy(&tag, in, sizeof tag);
    if (tag != (uint64_t)step)
        c->mismatches++;
    if (c->step_s > 0)
        spin(c->step_s);
    tag = (uint64_t)step + 1;
    memcpy(out, &tag, sizeof tag);
    return EBB_STEP_OK;
}

int pl_reverse(void *user, int64_t step, void *state)
{
    pl_ctx *c = user;
    uint64_t tag;
    memcpy(&tag, state, sizeof tag);
    if (tag != (uint64_t)step || step != c->next_reverse)
        c->mismatches++;
    c->next_reverse = step - 1;
    c->reverse_calls++;
    if (c->step_s > 0)
        spin(c->step_s);
    return EBB_STEP_OK;
}

int pl_loop_run(const char *dir, size_t block, int depth, uint64_t bytes, pl_loop *out, int *skip)
{
    bl_uring_options o;
    bl_uring_options_init(&o);
    o.dir = dir;
    o.block = block;
    o.depth = depth;
    o.bytes = bytes;
    bl_uring_result r;
    *skip = 0;
    if (bl_uring_run(&o, &r) != 0) {
        fprintf(stderr,
                "pipeline: plain io_uring loop (block %zu, depth %d, %llu bytes in %s): %s\n",
                block, depth, (unsigned long long)bytes, dir, r.error);
        *skip = strstr(r.error, "io_uring_queue_init: ") != NULL;
        return -1;
    }
    out->block = block;
    out->depth = depth;
    out->bytes = r.bytes;
    out->write_s = r.write_s;
    out->read_s = r.read_s;
    out->direct = r.direct;
    out->registered = r.registered;
    return 0;
}

void pl_info_copy(const ebb_run_info *in, pl_info *out)
{
    memset(out, 0, sizeof *out);
    snprintf(out->strategy, sizeof out->strategy, "%s", in->strategy_name);
    out->fast_tier = in->fast_tier;
    out->slow_tier = in->slow_tier;
    out->staging = in->staging;
    for (int t = 0; t < EBB_TIER_COUNT; t++) {
        out->slots[t] = in->slots[t];
        out->buffers[t] = in->buffers[t];
        out->bytes[t] = in->bytes[t];
    }
    snprintf(out->warnings, sizeof out->warnings, "%s", in->warnings ? in->warnings : "");
}

int pl_fail(const char *what)
{
    const char *e = ebb_last_error();
    fprintf(stderr, "pipeline: %s: %s\n", what, e);
    return strstr(e, "io_uring cannot be used here") ? PL_EXIT_SKIP : 1;
}

int pl_run_once(const ebb_run_options *o, pl_ctx *c, double *forward_s, double *reverse_s,
                ebb_run_stats *st, ebb_run_stats *st_forward, pl_info *info)
{
    void *x0 = calloc(1, o->state_size); /* x_0: tag 0 */
    if (!x0) {
        fprintf(stderr, "pipeline: cannot allocate x_0 (%zu bytes)\n", o->state_size);
        return 1;
    }
    pl_ctx_init(c, o->steps, c->step_s);
    ebb_run *run = NULL;
    int rc = 0;
    ebb_run_info in;
    if (ebb_run_create(o, &run) != EBB_OK) {
        rc = pl_fail("ebb_run_create");
        goto out;
    }
    if (ebb_run_info_get(run, &in) != EBB_OK) {
        rc = pl_fail("ebb_run_info_get");
        goto out;
    }
    if (info)
        pl_info_copy(&in, info);
    double t0 = pl_now();
    if (ebb_run_forward(run, x0, NULL) != EBB_OK) {
        rc = pl_fail("ebb_run_forward");
        goto out;
    }
    double t1 = pl_now(), t1f = t1;
    if (st_forward && ebb_run_stats_get(run, st_forward) != EBB_OK) {
        rc = pl_fail("ebb_run_stats_get");
        goto out;
    }
    t1 = pl_now(); /* the reverse sweep starts now */
    if (ebb_run_reverse(run) != EBB_OK) {
        rc = pl_fail("ebb_run_reverse");
        goto out;
    }
    double t2 = pl_now();
    *forward_s = t1f - t0;
    *reverse_s = t2 - t1;
    if (ebb_run_stats_get(run, st) != EBB_OK)
        rc = pl_fail("ebb_run_stats_get");
out:
    ebb_run_destroy(run);
    free(x0);
    return rc;
}
