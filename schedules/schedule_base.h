/*
 * What every strategy builds on: the schedule object, the one interface a
 * strategy implements (ops), its allocation and the action emitters. A
 * strategy fills a buffer with whole groups of actions (at most
 * EBB_GROUP_MAX per call of fill), so batch generation needs no per-action
 * bookkeeping in the caller. Nothing here knows any strategy: strategies sit
 * above this file, the dispatcher (schedule.c) above them.
 */
#ifndef EBB_SCHEDULES_SCHEDULE_BASE_H
#define EBB_SCHEDULES_SCHEDULE_BASE_H

#include "ebb/schedule.h"

/* Most actions one call of fill may write. */
enum { EBB_GROUP_MAX = 8 };
/* Internal queue for ebb_schedule_next (single actions). */
enum { EBB_QUEUE_CAP = 256 };

typedef struct ebb_schedule_ops {
    /* Writes at least one and at most `capacity` actions to out (capacity >=
     * EBB_GROUP_MAX) and returns how many; 0 only after END was written.
     * Sets s->yield when the caller must stop batching (online forward). */
    size_t (*fill)(ebb_schedule *s, ebb_action *out, size_t capacity);
    /* Online only: the forward stopped at x_n. */
    ebb_status (*set_steps)(ebb_schedule *s, int64_t steps);
    /* Online only: the forward steps' costs, n of them, checked finite and
     * >= 0 (ebb_schedule_set_forward_costs). */
    ebb_status (*set_forward_costs)(ebb_schedule *s, const double *costs, int64_t count);
    /* Releases what create allocated beyond the struct itself. */
    void (*destroy)(ebb_schedule *s);
} ebb_schedule_ops;

struct ebb_schedule {
    const ebb_schedule_ops *ops;
    ebb_schedule_options options;
    int32_t tier_slots[EBB_TIER_COUNT]; /* budget per tier */
    int done;                           /* END was produced */
    int yield;                          /* stop the current batch here */
    ebb_action queue[EBB_QUEUE_CAP];    /* actions made but not yet handed out */
    size_t queue_head, queue_len;
};

/* Allocates a zeroed schedule of `size` bytes (a strategy's struct that
 * begins with struct ebb_schedule) and sets its ops and options. */
ebb_status ebb_schedule_alloc(size_t size, const ebb_schedule_ops *ops,
                              const ebb_schedule_options *o, ebb_schedule **out);

/* For a constructor whose setup after ebb_schedule_alloc failed: destroys
 * *out (ops->destroy must cope with what setup left half done), sets it to
 * NULL and returns st. */
ebb_status ebb_schedule_discard(ebb_schedule **out, ebb_status st);

static inline ebb_action *ebb_emit(ebb_action *a, int32_t kind, int tier, int32_t slot,
                                   int64_t step, int64_t to)
{
    a->kind = kind;
    a->tier = (int16_t)tier;
    a->tier_to = 0;
    a->slot = slot;
    a->slot_to = 0;
    a->step = step;
    a->to = to;
    return a + 1;
}

static inline ebb_action *ebb_emit_move(ebb_action *a, int32_t kind, int64_t step, int tier,
                                        int32_t slot, int tier_to, int32_t slot_to)
{
    a->kind = kind;
    a->tier = (int16_t)tier;
    a->tier_to = (int16_t)tier_to;
    a->slot = slot;
    a->slot_to = slot_to;
    a->step = step;
    a->to = 0;
    return a + 1;
}

#endif
