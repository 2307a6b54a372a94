/*
 * The planner's internals, shared by its files:
 *   planner.c           the public calls: problems, one strategy or all, the
 *                       table of what each strategy needs;
 *   planner_setup.c     a strategy -> its action source and buffer counts, as
 *                       run_setup.c resolves them;
 *   planner_sim.c       the model of the runtime's buffers and channels:
 *                       one action at a time, in simulated time (the mirror
 *                       of execute.c and buffers.c);
 *   planner_drive.c     the sweeps, the batches and the read ahead (the
 *                       mirror of run.c and prefetch.c);
 *   planner_channels.c  channel figures from a bench file or measured;
 *   planner_size.c      sizing by bisection.
 *
 * The model keeps the runtime's decisions (which buffer, when to wait, when
 * to read ahead) and replaces each ticket by the time its transfer ends: a
 * channel is a server that moves one transfer at a time, first come first
 * served; the compute thread's clock `now` advances by f or b per step and
 * jumps to a transfer's end where the runtime would wait for it.
 */
#ifndef EBB_RUNTIME_PLANNER_INTERNAL_H
#define EBB_RUNTIME_PLANNER_INTERNAL_H

#include <stdint.h>

#include "ebb/planner.h"
#include "runtime/async.h"
#include "runtime/window.h"

/* A transfer in flight: its end time, or none. */
typedef struct ps_ticket {
    int busy;
    double end;
} ps_ticket;

typedef struct ps_buf {
    int32_t holders;
    ps_ticket pending;
    int pending_tier;
    int fills;
    int32_t cached; /* disk slot + 1 whose data it still holds, 0: none */
} ps_buf;

typedef struct ps_mem {
    ebb_tier tier;
    int32_t count;
    ps_buf *buf;
    int32_t slots;
    int32_t *map;
} ps_mem;

typedef enum ps_phase { PS_FORWARD, PS_TURNED, PS_REVERSE } ps_phase;

typedef struct ps_sim {
    const ebb_plan_problem *p;
    double now;
    double free_at[EBB_PLAN_CHANNEL_COUNT]; /* the disk's two share free_at[HOST_TO_DISK] */
    double pace_next;                       /* the disk pacer's next allowed start */
    ps_ticket last_in[EBB_TIER_COUNT];      /* the last transfer into each tier */

    ps_mem host, gpu;
    ps_mem *state;
    int32_t disk_slots;
    ps_ticket *disk_pending;
    int32_t *disk_cache;
    int32_t live, prev, xn;
    int64_t live_step, computed;
    int32_t in_use[EBB_TIER_COUNT];
    ps_phase phase;

    /* the action source: a schedule or the async generator */
    ebb_schedule *schedule;
    rt_async *async;
    ebb_tier async_tier[3];
    int online;           /* n learnt when the forward reaches it */
    int64_t steps;        /* n */
    rt_window win;           /* as the runtime's (window.h) */
    int32_t ahead_buf, ahead_slot;
    int64_t ahead_step;
    int64_t advance_at;

    ebb_plan_prediction *out; /* counts and times accumulate here */
} ps_sim;

/* planner_setup.c: fills out->schedule, tiers, slots, period and creates the
 * source and the buffer tables in *s; out->fits = 0 with why_not when the
 * strategy does not fit (EBB_OK all the same). */
ebb_status ps_setup(ps_sim *s, const ebb_plan_problem *p, ebb_config_strategy strategy,
                    ebb_plan_prediction *out);
void ps_free(ps_sim *s);

/* planner_sim.c */
ebb_status ps_mem_init(ps_mem *m, ebb_tier tier, int32_t count, int32_t slots);
void ps_mem_free(ps_mem *m);
ebb_status ps_execute(ps_sim *s, const ebb_action *a);
/* One forward step from the live state x_k (keep_prev: x_k survives it). */
ebb_status ps_forward_step(ps_sim *s, int64_t k, int keep_prev);
int ps_reserved(const ps_sim *s, const ps_mem *m, int32_t b);
int ps_idle(const ps_sim *s, ps_buf *x);
ebb_status ps_take(ps_sim *s, ps_mem *m, int32_t *out);
void ps_remember(ps_sim *s, int32_t b, int32_t slot);
void ps_drain(ps_sim *s);
/* Starts a transfer of one state on `channel` now; returns its ticket. */
ps_ticket ps_submit(ps_sim *s, ebb_plan_channel_id channel);
int ps_done(const ps_sim *s, const ps_ticket *t);

/* planner_drive.c: both sweeps; fills the times of s->out. */
ebb_status ps_drive(ps_sim *s);
ebb_status ps_source_next(void *sim, ebb_action *out, size_t cap, size_t *count);

#endif
