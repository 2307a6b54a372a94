/*
 * Revolve offline: the binomial schedule (Griewank & Walther 2000) with C
 * slots. The same schedule serves multistage, which only maps its lowest
 * stack levels to the slow tier (multistage.c).
 */
#include "common/error_internal.h"
#include "revolve/revolve_core.h"
#include "revolve/schedule_internal.h"

typedef struct {
    struct ebb_schedule base;
    ebb_revolve_core core;
} revolve;

static size_t fill(ebb_schedule *s, ebb_action *out, size_t capacity)
{
    revolve *p = (revolve *)s;
    if (ebb_revolve_core_done(&p->core))
        return (size_t)(ebb_emit(out, EBB_ACT_END, 0, 0, 0, 0) - out);
    return (size_t)(ebb_revolve_core_fill(&p->core, out, out + capacity - EBB_GROUP_MAX) - out);
}

static void destroy(ebb_schedule *s) { ebb_revolve_core_free(&((revolve *)s)->core); }

static const ebb_schedule_ops ops = {.fill = fill, .destroy = destroy};

int32_t ebb_useful_levels(int64_t steps, int64_t levels)
{
    int64_t cap = steps > 1 ? steps - 1 : 1;
    return (int32_t)(levels < cap ? levels : cap);
}

ebb_status ebb_binomial_create(const ebb_schedule_options *o, int64_t levels, int32_t slow_levels,
                               ebb_schedule **out)
{
    ebb_status st = ebb_schedule_alloc(sizeof(revolve), &ops, o, out);
    if (st != EBB_OK)
        return st;
    revolve *p = (revolve *)*out;
    int32_t used = ebb_useful_levels(o->steps, levels);
    st = ebb_revolve_core_alloc(&p->core, used);
    if (st != EBB_OK) {
        ebb_schedule_destroy(*out);
        *out = NULL;
        return st;
    }
    /* Fewer levels than slots are useful when n is small: fill memory first. */
    int64_t fast = levels - slow_levels;
    int32_t slow = used > fast ? (int32_t)(used - fast) : 0;
    if (slow > slow_levels)
        slow = slow_levels;
    for (int32_t k = 0; k < used; k++) {
        int on_slow = k < slow;
        p->core.tier_of[k] = (int16_t)(on_slow ? o->slow_tier : o->fast_tier);
        p->core.slot_of[k] = on_slow ? k : k - slow;
    }
    ebb_revolve_core_begin(&p->core, 0, o->steps, used, 0, 0, 1);
    (*out)->tier_slots[o->fast_tier] = used - slow;
    if (slow > 0)
        (*out)->tier_slots[o->slow_tier] = slow;
    return EBB_OK;
}

ebb_status ebb_revolve_create(const ebb_schedule_options *o, ebb_schedule **out)
{
    return ebb_binomial_create(o, o->slots, 0, out);
}
