/*
 * Revolve offline: the binomial schedule (Griewank & Walther 2000) with C
 * slots. The same schedule serves multistage, which only maps its D least
 * used stack levels to the slow tier (map_levels below).
 */
#include <stdlib.h>

#include "common/error_internal.h"
#include "common/populate.h"
#include "schedules/revolve_core.h"
#include "schedules/schedule_internal.h"

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

/* Dry runs longer than this keep the bottom levels on the slow tier. */
enum { USES_BUDGET = 1 << 22 };

/* Puts the `slow` least used of `used` levels on the slow tier. Usually
 * these are the bottom levels (x_0's is written once), but when n is small
 * next to the slots the top levels are used less: then a dry run counts the
 * uses of each level (ties go to the lower level). */
static ebb_status map_levels(const ebb_schedule_options *o, int32_t used, int32_t slow,
                             ebb_revolve_core *core)
{
    for (int32_t k = 0; k < used; k++)
        core->tier_of[k] = (int16_t)o->fast_tier;
    if (slow == 0) {
        for (int32_t k = 0; k < used; k++)
            core->slot_of[k] = k;
        return EBB_OK;
    }
    int64_t *uses = malloc((size_t)used * sizeof *uses);
    if (!uses)
        return ebb_fail(EBB_ERR_NO_MEMORY, "cannot count the uses of %d levels", used);
    int counted = 0;
    ebb_status st = ebb_revolve_core_level_uses(o->steps, used, USES_BUDGET, uses, &counted);
    if (st != EBB_OK) {
        free(uses);
        return st;
    }
    for (int32_t picked = 0; picked < slow; picked++) {
        int32_t best = picked; /* without counts: the bottom levels */
        if (counted) {
            best = -1;
            for (int32_t k = 0; k < used; k++)
                if (core->tier_of[k] == (int16_t)o->fast_tier && (best < 0 || uses[k] < uses[best]))
                    best = k;
        }
        core->tier_of[best] = (int16_t)o->slow_tier;
    }
    free(uses);
    int32_t next[EBB_TIER_COUNT] = {0};
    for (int32_t k = 0; k < used; k++)
        core->slot_of[k] = next[core->tier_of[k]]++;
    return EBB_OK;
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
    if (st != EBB_OK)
        return ebb_schedule_discard(out, st);
    /* n is known and every level is used: the sweep's pushes fault no page */
    ebb_populate(p->core.stack, (size_t)used * sizeof *p->core.stack);
    /* Fewer levels than slots are useful when n is small: fill memory first. */
    int64_t fast = levels - slow_levels;
    int32_t slow = used > fast ? (int32_t)(used - fast) : 0;
    if (slow > slow_levels)
        slow = slow_levels;
    st = map_levels(o, used, slow, &p->core);
    if (st != EBB_OK)
        return ebb_schedule_discard(out, st);
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
