/*
 * The public runtime calls: the forward sweep (in one call, step by step,
 * or with the caller's states pushed in), the reverse sweep (run with the
 * reverse callback, or pulled one state at a time), info and statistics;
 * and the engine's creation and destruction (rt_run_create,
 * rt_run_destroy), which ebb_run_create and ebb_run_destroy call
 * (planner/create.c: creation asks the planner for auto).
 *
 * A run that meets an error stops at once: it waits for its transfers,
 * releases every pool (the disk files go with them) and keeps the message;
 * later calls return EBB_ERR_STATE quoting it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error_internal.h"
#include "runtime/runtime_internal.h"

void ebb_run_options_init(ebb_run_options *o)
{
    if (!o)
        return;
    memset(o, 0, sizeof *o);
    o->state_tier = EBB_TIER_HOST;
    o->device = -1;
    o->strategy = EBB_STRATEGY_FROM_CONFIG;
    o->fast_tier = -1;
    o->slow_tier = -1;
    o->audit = EBB_RUN_FROM_CONFIG;
    o->element = -1;
    o->error_samples = EBB_RUN_FROM_CONFIG;
}

int ebb_callback_fail(const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    ebb_fail(EBB_ERR_CALLBACK, "%s", msg);
    return EBB_ERR_CALLBACK;
}

int ebb_callback_fail_message(const char *message)
{
    return ebb_callback_fail("%s", message ? message : "(no message)");
}

static void release_all(ebb_run *run)
{
    /* disk before host: the disk pool stages through the host pool (the
     * compressed one's transfers end before it goes) */
    rt_pool **pools[] = {&run->disk, &run->gpu.pool, &run->packed, &run->host.pool};
    for (size_t i = 0; i < sizeof pools / sizeof *pools; i++) {
        if (*pools[i])
            run->io->ops->pool_destroy(run->io, *pools[i]);
        *pools[i] = NULL;
    }
}

/* Stops the run on an error: waits, frees every pool, keeps the message. */
static ebb_status stop(ebb_run *run, ebb_status st)
{
    if (run->agree) /* the other processes stop too; the status is the failing one's */
        st = run->agree->fail(run->agree, st);
    snprintf(run->failure, sizeof run->failure, "%s", ebb_last_error());
    run->phase = RT_FAILED;
    if (run->host.pool || run->gpu.pool || run->disk || run->packed)
        (void)rt_drain(run);
    release_all(run);
    return ebb_fail(st, "%s", run->failure);
}

static ebb_status check_phase(const ebb_run *run, rt_phase want, const char *call)
{
    if (!run)
        return ebb_fail(EBB_ERR_INVALID_ARG, "%s: run is NULL", call);
    if (run->phase == RT_FAILED)
        return ebb_fail(EBB_ERR_STATE, "%s: the run stopped on an error (%s); destroy it",
                        call, run->failure);
    if (run->phase != want) {
        static const char *const what[] = {"before the forward sweep", "in the forward sweep",
                                           "after the forward sweep", "after the reverse sweep"};
        return ebb_fail(EBB_ERR_STATE, "%s cannot be called %s", call, what[run->phase]);
    }
    return EBB_OK;
}

ebb_status rt_run_create(const rt_create_args *a, ebb_run **out)
{
    if (!a || !out)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_run_create: NULL argument");
    *out = NULL;
    ebb_run *run = calloc(1, sizeof *run);
    if (!run)
        return ebb_fail(EBB_ERR_NO_MEMORY, "cannot allocate a run");
    const ebb_run_options *o = &a->options;
    run->opt = *o;
    run->io = a->io;
    run->tiers = a->tiers;
    run->live = run->prev = run->xn = run->scratch = -1;
    run->computed = -1;
    run->clock.t = -1;
    run->last_step_at = -1;
    run->pulled = -1;
    run->info.steps = o->steps;
    run->info.inplace = o->forward_inplace != NULL;
    run->info.warnings = run->warnings;
    run->info.audit = (ebb_audit)o->audit;
    run->agree = a->agree;
    if (a->disk_measured) { /* as auto's planner measures it */
        memcpy(run->plan_channel, a->costs.channel, sizeof run->plan_channel);
        run->planned_channels = 1;
    }
    for (int t = 0; t < EBB_TIER_COUNT; t++)
        run->slot_cap[t] = INT32_MAX;
    ebb_status st = EBB_OK;
    if (o->state_sizes) { /* read at create only: the run keeps its own */
        size_t count = (size_t)o->steps + 1;
        run->sizes = malloc(count * sizeof *run->sizes);
        if (run->sizes)
            memcpy(run->sizes, o->state_sizes, count * sizeof *run->sizes);
        else
            st = ebb_fail(EBB_ERR_NO_MEMORY, "cannot allocate the sizes of %lld states",
                          (long long)count);
        run->opt.state_sizes = run->sizes;
    }
    if (st == EBB_OK && (st = rt_setup_schedule(run, a)) == EBB_OK &&
        (st = rt_setup_pools(run, a)) == EBB_OK &&
        (st = rt_audit_init(run)) == EBB_OK && (st = rt_errs_init(run)) == EBB_OK &&
        /* the planner's runs keep no step times: nobody reads them */
        (a->planning || (st = rt_step_times_init(run)) == EBB_OK) && a->trace &&
        (st = rt_trace_open(&run->trace, run->io, a->trace,
                            run->agree && run->agree->ranks > 1 ? run->agree->rank : -1,
                            a->trace_named, rt_clock(run))) ==
            EBB_OK) {
        /* the codec threads' tracks (what the pools compress: tier.*.compression) */
        if (run->disk && run->codec.mode != EBB_COMPRESSION_OFF)
            st = rt_trace_codec(&run->trace, run->disk, EBB_TIER_DISK, a->trace_codec_spans);
        if (st == EBB_OK && run->packed)
            st = rt_trace_codec(&run->trace, run->packed, EBB_TIER_HOST, a->trace_codec_spans);
    }
    if (st != EBB_OK) {
        char msg[1024];
        snprintf(msg, sizeof msg, "%s", ebb_last_error());
        run->agree = NULL; /* still the caller's */
        rt_run_destroy(run);
        return ebb_fail(st, "%s", msg);
    }
    *out = run;
    return EBB_OK;
}

int64_t rt_run_period(const ebb_run *run)
{
    ebb_schedule_options got;
    if (run->schedule && ebb_schedule_get_options(run->schedule, &got) == EBB_OK)
        return got.period;
    return 0;
}

rt_agree *ebb_run_agreement(const ebb_run *run)
{
    return run ? run->agree : NULL;
}

uint64_t ebb_run_actions_hash(const ebb_run *run)
{
    return run ? run->actions_hash : 0;
}

void rt_run_destroy(ebb_run *run)
{
    if (!run)
        return;
    if (run->host.pool || run->gpu.pool || run->disk || run->packed)
        (void)rt_drain(run);
    rt_trace_discard(&run->trace); /* a timeline not finished: the path as it was */
    release_all(run);
    rt_step_times_free(run); /* a GPU state's timing events: before its pool */
    rt_mem_free(&run->host);
    rt_mem_free(&run->gpu);
    rt_ahead_free(run);
    free(run->sizes);
    free(run->disk_pending);
    free(run->disk_cache);
    free(run->packed_pending);
    rt_audit_free(run);
    rt_errs_free(run);
    ebb_schedule_destroy(run->schedule);
    rt_async_destroy(run->async);
    if (run->agree)
        run->agree->destroy(run->agree);
    free(run);
}

ebb_pool *ebb_run_debug_pool(ebb_run *run, ebb_tier tier)
{
    if (run->io != rt_io_storage()) /* only the real io's pools are ebb_pools */
        return NULL;
    rt_pool *p = tier == EBB_TIER_DISK ? run->disk
               : tier == EBB_TIER_GPU  ? run->gpu.pool
                                       : run->host.pool;
    return (ebb_pool *)(void *)p;
}

static ebb_status peek(ebb_run *run, const ebb_action **a)
{
    return rt_window_peek(&run->win, rt_source_next, run, a);
}

ebb_status ebb_run_begin(ebb_run *run, const void *x0)
{
    ebb_status st = check_phase(run, RT_CREATED, "ebb_run_begin");
    if (st != EBB_OK)
        return st;
    if (!x0)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_run_begin: x0 is NULL");
    run->t_forward_begin = rt_clock(run);
    run->phase = RT_FORWARD;
    rt_mem *m = run->state;
    int32_t b;
    if ((st = rt_put_state(run, x0, 0, &b)) != EBB_OK)
        return stop(run, ebb_fail_context(st, "copying x_0"));
    rt_set_ref(m, &run->live, b);
    run->live_step = 0;
    if ((st = rt_audit_computed(run, 0, b)) != EBB_OK || (st = rt_errs_computed(run, 0, b)) != EBB_OK)
        return stop(run, st);
    run->computed = 0;
    if (run->step_s) {
        run->pushed_mark = rt_clock(run);
        rt_step_device_begin(run);
    }
    return EBB_OK;
}

/* n known: at x_n, tell online's schedule, as a user would (async, which
 * knew n from the start, takes the measured costs there) */
static ebb_status tell_n(ebb_run *run)
{
    int online = run->info.strategy == EBB_STRATEGY_ONLINE;
    int async = run->info.strategy == EBB_STRATEGY_ASYNC && run->opt.measure_costs;
    if (!(online || async) || run->opt.steps == 0 || run->steps_told ||
        run->live_step != run->opt.steps)
        return EBB_OK;
    run->steps_told = 1;
    return rt_source_set_steps(run, run->opt.steps);
}

/* A sweep runs in one form: the first call that steps chooses it. */
static ebb_status check_form(ebb_run *run, int form, const char *call)
{
    if (run->forward_form == RT_FORM_NONE || run->forward_form == form) {
        run->forward_form = form;
        return EBB_OK;
    }
    if (form == RT_FORM_PUSH)
        return ebb_fail(EBB_ERR_STATE,
                        "%s: this forward sweep runs the forward callback (ebb_run_advance); a "
                        "sweep is either pushed or advanced, not both",
                        call);
    return ebb_fail(EBB_ERR_STATE,
                    "%s: this forward sweep is pushed (ebb_run_push); a sweep is either pushed "
                    "or advanced, not both: push the remaining states, then call "
                    "ebb_run_finish_forward",
                    call);
}

/* ebb_run_advance's loop (push form: run->pushed set, max_steps 1). */
static ebb_status advance(ebb_run *run, int64_t max_steps, int64_t *done)
{
    ebb_status st;
    int64_t total = 0;
    run->clock.t = -1; /* the caller's time since its last call is no step's */
    while (total < max_steps && run->last_step_at < 0) {
        if ((st = tell_n(run)) != EBB_OK)
            return stop(run, st);
        const ebb_action *a = NULL;
        if ((st = peek(run, &a)) != EBB_OK)
            return stop(run, st);
        if (a->kind == EBB_ACT_TURN)
            break;
        if (a->kind != EBB_ACT_ADVANCE) {
            run->win.pos++;
            if ((st = rt_execute(run, a)) != EBB_OK)
                return stop(run, st);
            continue;
        }
        if (run->advance_at <= a->step) {
            run->advance_at = a->step;
            if ((st = rt_execute(run, a)) != EBB_OK)
                return stop(run, st);
        }
        int64_t ran = 0;
        st = rt_run_steps(run, a->to, max_steps - total, &ran);
        total += ran;
        if (done)
            *done = total;
        if (st != EBB_OK)
            return stop(run, st);
        if (run->advance_at == a->to)
            run->win.pos++;
        else if (run->last_step_at >= 0)
            return stop(run, ebb_fail(EBB_ERR_INTERNAL, "the forward stopped inside an advance"));
    }
    return EBB_OK;
}

ebb_status ebb_run_advance(ebb_run *run, int64_t max_steps, int64_t *done)
{
    if (done)
        *done = 0;
    ebb_status st = check_phase(run, RT_FORWARD, "ebb_run_advance");
    if (st != EBB_OK)
        return st;
    if (max_steps < 0)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_run_advance: max_steps must be >= 0");
    if ((st = check_form(run, RT_FORM_CALLBACK, "ebb_run_advance")) != EBB_OK)
        return st;
    return advance(run, max_steps, done);
}

ebb_status ebb_run_push(ebb_run *run, const void *x_next)
{
    ebb_status st = check_phase(run, RT_FORWARD, "ebb_run_push");
    if (st != EBB_OK)
        return st;
    if (!x_next)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_run_push: x_next is NULL");
    if ((st = check_form(run, RT_FORM_PUSH, "ebb_run_push")) != EBB_OK)
        return st;
    if (run->opt.steps > 0 && run->live_step >= run->opt.steps)
        return ebb_fail(EBB_ERR_STATE,
                        "ebb_run_push: all %lld states were pushed already (the run was created "
                        "with steps = %lld); call ebb_run_finish_forward",
                        (long long)run->opt.steps, (long long)run->opt.steps);
    int64_t ran = 0, step = run->live_step;
    /* the caller's step: from the last push (or the begin) returning to this
     * one; the clock is read only where step times are kept */
    if (run->step_s) {
        rt_step_forward_time(run, step, rt_clock(run) - run->pushed_mark);
        rt_step_device_end(run, step, 0);
    }
    run->pushed = x_next;
    st = advance(run, 1, &ran);
    run->pushed = NULL;
    if (st != EBB_OK)
        return st; /* the run stopped */
    if (ran != 1)
        return stop(run, ebb_fail(EBB_ERR_INTERNAL, "the schedule took no pushed state at step %lld",
                                  (long long)run->live_step));
    if (run->step_s) {
        run->pushed_mark = rt_clock(run);
        rt_step_device_begin(run);
    }
    return EBB_OK;
}

ebb_status ebb_run_finish_forward(ebb_run *run, void **xn)
{
    ebb_status st = check_phase(run, RT_FORWARD, "ebb_run_finish_forward");
    if (st != EBB_OK)
        return st;
    if (run->opt.steps == 0 && run->live_step < 1)
        return ebb_fail(EBB_ERR_STATE,
                        "ebb_run_finish_forward: no forward step ran yet (n must be >= 1)");
    /* the processes' forward sweeps must end at the same step (n known or
     * not); a process that failed is heard of here */
    if (run->agree && (st = run->agree->finish_forward(run->agree, run->live_step)) != EBB_OK)
        return stop(run, st);
    if (run->opt.steps == 0) {
        if ((st = rt_source_set_steps(run, run->live_step)) != EBB_OK)
            return stop(run, st);
        run->info.steps = run->stats.steps = run->live_step;
    } else {
        /* run what is left before the turn (stores of x_n's predecessors) */
        if ((st = tell_n(run)) != EBB_OK)
            return stop(run, st);
        const ebb_action *a = NULL;
        if ((st = peek(run, &a)) != EBB_OK)
            return stop(run, st);
        while (a->kind != EBB_ACT_TURN) {
            if (a->kind == EBB_ACT_ADVANCE)
                return ebb_fail(EBB_ERR_STATE,
                                "ebb_run_finish_forward: only %lld of the %lld steps ran; call "
                                "%s until all have",
                                (long long)run->live_step, (long long)run->opt.steps,
                                run->forward_form == RT_FORM_PUSH ? "ebb_run_push"
                                                                  : "ebb_run_advance");
            run->win.pos++;
            if ((st = rt_execute(run, a)) != EBB_OK || (st = peek(run, &a)) != EBB_OK)
                return stop(run, st);
        }
        run->stats.steps = run->opt.steps;
    }
    const ebb_action *a = NULL;
    if ((st = peek(run, &a)) != EBB_OK)
        return stop(run, st);
    if (a->kind != EBB_ACT_TURN)
        return stop(run, ebb_fail(EBB_ERR_INTERNAL, "the forward ended but the schedule did not "
                                                    "turn (next action: %s)",
                                  ebb_action_kind_name(a->kind)));
    rt_set_ref(run->state, &run->xn, run->live);
    run->phase = RT_TURNED;
    run->stats.forward_sweep_s = rt_clock(run) - run->t_forward_begin;
    if (xn)
        *xn = rt_buf_ptr(run, run->state, run->live);
    return EBB_OK;
}

ebb_status ebb_run_forward(ebb_run *run, const void *x0, void **xn)
{
    ebb_status st = ebb_run_begin(run, x0);
    if (st == EBB_OK)
        st = ebb_run_advance(run, INT64_MAX, NULL);
    if (st == EBB_OK)
        st = ebb_run_finish_forward(run, xn);
    return st;
}

/* Works through the reverse sweep's actions until END (*ended = 1) or, in
 * the pull form, until a REVERSE handed its state out (run->pulled). */
static ebb_status reverse_actions(ebb_run *run, int *ended)
{
    ebb_status st;
    *ended = 0;
    run->clock.t = -1; /* the caller's time since its last call is no step's */
    for (;;) {
        const ebb_action *a = NULL;
        if ((st = peek(run, &a)) != EBB_OK)
            return stop(run, st);
        run->win.pos++;
        const ebb_action act = *a;
        if ((st = rt_execute(run, &act)) != EBB_OK)
            return stop(run, st);
        if (act.kind == EBB_ACT_END) {
            *ended = 1;
            return EBB_OK;
        }
        /* pull form: before the caller's own step, so that it overlaps the reads */
        if ((st = rt_lookahead(run)) != EBB_OK)
            return stop(run, st);
        if (act.kind == EBB_ACT_ADVANCE) {
            int64_t ran;
            run->advance_at = act.step;
            if ((st = rt_run_steps(run, act.to, INT64_MAX, &ran)) != EBB_OK)
                return stop(run, st);
        }
        if (run->pulled >= 0)
            return EBB_OK;
    }
}

/* After END: the agreement's and the validator's last word, the times. */
static ebb_status end_reverse(ebb_run *run)
{
    ebb_status st;
    if (run->validator && (st = ebb_validator_finish(run->validator)) != EBB_OK)
        return stop(run, st);
    if (run->agree && (st = run->agree->finish_reverse(run->agree)) != EBB_OK)
        return stop(run, st);
    run->phase = RT_REVERSED;
    run->stats.reverse_sweep_s = rt_clock(run) - run->t_reverse_begin;
    run->stats.wall_s = run->stats.forward_sweep_s + run->stats.reverse_sweep_s;
    /* the timeline is complete: it replaces the trace file (the sweep itself ended) */
    return rt_trace_finish(&run->trace, rt_clock(run));
}

ebb_status ebb_run_reverse(ebb_run *run)
{
    ebb_status st = check_phase(run, RT_TURNED, "ebb_run_reverse");
    if (st != EBB_OK)
        return st;
    if (run->pulling)
        return ebb_fail(EBB_ERR_STATE, "ebb_run_reverse: this reverse sweep is pulled "
                                       "(ebb_run_reverse_next); go on with it to its end");
    if (!run->opt.reverse)
        return ebb_fail(EBB_ERR_STATE,
                        "ebb_run_reverse: the run was created without a reverse callback "
                        "(ebb_run_options.reverse); pull the reverse sweep with "
                        "ebb_run_reverse_next, or give the callback");
    run->t_reverse_begin = rt_clock(run);
    int ended;
    if ((st = reverse_actions(run, &ended)) != EBB_OK)
        return st;
    return end_reverse(run);
}

ebb_status ebb_run_reverse_next(ebb_run *run, int64_t *step, const void **state)
{
    if (step)
        *step = -1;
    if (state)
        *state = NULL;
    if (!step || !state)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_run_reverse_next: NULL argument");
    ebb_status st = check_phase(run, RT_TURNED, "ebb_run_reverse_next");
    if (st != EBB_OK)
        return st;
    if (!run->pulling) {
        run->pulling = 1;
        run->t_reverse_begin = rt_clock(run);
    } else if (run->pulled >= 0) { /* the caller is done with the last state */
        if ((st = rt_reverse_done(run)) != EBB_OK || (st = rt_lookahead(run)) != EBB_OK)
            return stop(run, st);
    }
    int ended;
    if ((st = reverse_actions(run, &ended)) != EBB_OK)
        return st;
    if (ended)
        return end_reverse(run);
    *step = run->pulled;
    *state = rt_buf_ptr(run, run->state, run->live);
    return EBB_OK;
}

ebb_status ebb_run_info_get(const ebb_run *run, ebb_run_info *info)
{
    if (!run || !info)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_run_info_get: NULL argument");
    *info = run->info;
    return EBB_OK;
}

ebb_status ebb_run_stats_get(const ebb_run *run, ebb_run_stats *stats)
{
    if (!run || !stats)
        return ebb_fail(EBB_ERR_INVALID_ARG, "ebb_run_stats_get: NULL argument");
    *stats = run->stats;
    int64_t n = run->info.steps;
    stats->steps = n;
    stats->recomputed_steps = n > 0 && stats->forward_steps > n ? stats->forward_steps - n : 0;
    if (run->phase == RT_FORWARD)
        stats->forward_sweep_s = rt_clock(run) - run->t_forward_begin;
    /* each tier's codec (the pools count), and the sums */
    rt_pool *codec_pool[EBB_TIER_COUNT] = {
        [EBB_TIER_HOST] = run->packed,
        [EBB_TIER_DISK] = run->codec.mode != EBB_COMPRESSION_OFF ? run->disk : NULL};
    for (int t = 0; t < EBB_TIER_COUNT; t++) {
        if (!codec_pool[t])
            continue;
        ebb_pool_stats ps;
        ebb_status st = run->io->ops->pool_stats(run->io, codec_pool[t], &ps);
        if (st != EBB_OK)
            return st;
        stats->bytes_before_compression_tier[t] = ps.bytes_before_compression;
        stats->bytes_after_compression_tier[t] = ps.bytes_after_compression;
        stats->codec_s_tier[t] = ps.codec_s;
        stats->compressions[t] = (int64_t)ps.compressions;
        stats->decompressions[t] = (int64_t)ps.decompressions;
        stats->bytes_before_compression += ps.bytes_before_compression;
        stats->bytes_after_compression += ps.bytes_after_compression;
        stats->codec_s += ps.codec_s;
        if (t == EBB_TIER_DISK) {
            stats->stored_raw = (int64_t)ps.stored_raw;
            stats->stored_raw_slower = (int64_t)ps.stored_raw_slower;
            stats->codec_ratio = ps.measured.ratio;
            stats->compress_bps = ps.measured.compress_bps;
            stats->decompress_bps = ps.measured.decompress_bps;
        } else {
            stats->host_compress_bps = ps.measured.compress_bps;
            stats->host_decompress_bps = ps.measured.decompress_bps;
        }
    }
    return EBB_OK;
}
