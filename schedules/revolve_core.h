/*
 * The binomial reversal engine shared by revolve, multistage, disk-revolve and
 * the reverse sweep of online checkpointing.
 *
 * It reverses the steps of [start, end) with `levels` checkpoint slots, keeping
 * a stack of stored states (O(levels) memory) and choosing every checkpoint
 * with ebb_revolve_split, so the forward count is exactly T(end-start, levels)
 * (+1 when the first sweep must reach x_end and turn). Stack level k lives in
 * (tier_of[k], slot_of[k]); the caller decides that mapping.
 */
#ifndef EBB_SCHEDULES_REVOLVE_CORE_H
#define EBB_SCHEDULES_REVOLVE_CORE_H

#include "ebb/schedule.h"

typedef struct ebb_revolve_core {
    int64_t start;     /* first step of the interval */
    int64_t cur;       /* start of the sub-interval being worked on */
    int64_t end;       /* steps >= end are reversed */
    int64_t live;      /* index of the live state */
    int32_t levels;    /* slots available, the one holding x_start included */
    int32_t depth;     /* states on the stack */
    int turn_pending;  /* the first advance to `end` is followed by TURN(end) */
    int64_t *stack;    /* positions, `levels` entries */
    int16_t *tier_of;  /* level -> tier */
    int32_t *slot_of;  /* level -> slot */
} ebb_revolve_core;

/* Allocates the stack and mapping arrays for up to `levels` levels. */
ebb_status ebb_revolve_core_alloc(ebb_revolve_core *core, int32_t levels);
void ebb_revolve_core_free(ebb_revolve_core *core);

/* Starts reversing [start, end) with `levels` levels (<= allocated). The live
 * state is x_live. If start_stored, x_start already sits at level 0. With
 * turn, the live state is x_start and the first sweep advances to x_end, then
 * TURN(end). The mapping arrays must be set before the first fill. */
void ebb_revolve_core_begin(ebb_revolve_core *core, int64_t start, int64_t end, int32_t levels,
                            int64_t live, int start_stored, int turn);

/* 1 once every step of the interval is reversed (and its slots freed). */
static inline int ebb_revolve_core_done(const ebb_revolve_core *core)
{
    return core->end <= core->start;
}

/* Writes groups of at most 4 actions while out <= limit and the interval is
 * not done; returns the new end of out. */
ebb_action *ebb_revolve_core_fill(ebb_revolve_core *core, ebb_action *out,
                                  const ebb_action *limit);

/* Stores plus restores of each level when reversing steps 0 .. steps-1 with
 * `levels` levels (the first sweep turning at x_steps), counted by a dry run
 * of at most about `budget` actions: *counted is 0 if it ran out first. */
ebb_status ebb_revolve_core_level_uses(int64_t steps, int32_t levels, int64_t budget,
                                       int64_t *uses, int *counted);

/* Slots beyond n - 1 are never used: the levels worth allocating. */
int32_t ebb_useful_levels(int64_t steps, int64_t levels);

#endif
