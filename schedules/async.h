/*
 * The asynchronous strategy's action generator (async.c).
 *
 * Forward sweep: x_0 is stored in the next slower tier, then after each step
 * the live state x_i too whenever the channel to it is free (asked through
 * `idle`), so the spacing of stored states follows the
 * measured compute/transfer ratio. With a third tier, the middle tier keeps
 * the most recent states and its oldest one is evicted down when the channel
 * below is free. When every slow slot is full, every other stored state is
 * dropped and the least spacing doubles, so any n fits.
 *
 * Reverse sweep: the intervals between stored states are taken from the
 * last; each is reversed by Revolve over all the fast slots, starting from
 * its stored state, or, told the steps' costs, by the chain program over
 * the interval's costs (the least recomputation cost with those slots).
 *
 * The generator knows nothing of time: the runtime answers `idle` from its
 * transfers' tickets, the planner from its simulated channels, so both see
 * the same decisions for the same channel timings.
 */
#ifndef EBB_SCHEDULES_ASYNC_H
#define EBB_SCHEDULES_ASYNC_H

#include <stddef.h>
#include <stdint.h>

#include "ebb/schedule.h"

typedef struct rt_async rt_async;

/* Asked once per store decision, at x_step: *idle = 1 when every channel in
 * `mask` is free for a new transfer (bit l: the channel from tiers[l] to
 * tiers[l + 1]; bit 0 always, bit 1 when the middle tier must evict). Its
 * answer may be agreed between processes (runtime/agree.h), hence one
 * question per decision; an error stops the run. */
typedef ebb_status (*rt_async_idle_fn)(void *ctx, int mask, int64_t step, int *idle);

typedef struct rt_async_options {
    int64_t steps;                 /* n, 0 = unknown (learnt from rt_async_set_steps) */
    int tiers;                     /* 2 or 3 */
    ebb_tier tier[3];              /* fastest first: the fast tier, then the slower ones */
    int32_t slots[3];              /* slots per tier, each >= 1 */
} rt_async_options;

/* The fast tier with its slots (no more than n are of use). */
void rt_async_options_init(rt_async_options *o, int64_t steps, ebb_tier fast, int32_t slots);
/* Adds a slower tier with `slots` slots, fewer where the run cannot use them
 * (n known: x_0 .. x_{n-1} in all; n unknown: every slot given, thinning
 * keeps any n within them). 0 when nothing is left to add (the tier is not
 * added) or three tiers are there. The runtime and the planner both set up
 * with it. */
int rt_async_add_tier(rt_async_options *o, ebb_tier tier, int32_t slots);

ebb_status rt_async_create(const rt_async_options *o, rt_async **out);
void rt_async_destroy(rt_async *a);

/* Up to `cap` next actions. In the forward sweep a batch ends after each
 * ADVANCE (one step), so that each store decision sees the channels as they
 * are after that step; `idle` is called only there. */
ebb_status rt_async_next_batch(rt_async *a, ebb_action *out, size_t cap, size_t *count,
                               rt_async_idle_fn idle, void *ctx);

/* n unknown: the forward stopped at x_n, right after the ADVANCE that made it. */
ebb_status rt_async_set_steps(rt_async *a, int64_t steps);

/* The n forward steps' costs (copied; each >= 0 and finite, as the caller
 * checked), for the reverse sweep: once n is known, before the reverse
 * begins. Intervals of 3 to EBB_CHAIN_MAX_STEPS steps with 2 fast slots or
 * more are then reversed by the chain program over their costs. */
ebb_status rt_async_set_forward_costs(rt_async *a, const double *costs, int64_t count);

/* Slots the generator may use per tier (indexed by ebb_tier). */
void rt_async_tier_slots(const rt_async *a, int32_t slots[EBB_TIER_COUNT]);

#endif
