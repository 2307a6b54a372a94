/*
 * Synchronous multistage (Stumm & Walther, "MultiStage Approaches for Optimal
 * Offline Checkpointing", SIAM J. Sci. Comput. 31(3), 2009): the binomial
 * schedule with C + D slots, the D least used on disk. In the binomial
 * schedule a stack level is written and read less the nearer it is to the
 * bottom (x_0's level is written once), so levels 0 .. D-1 go to the slow
 * tier. The forward count is Revolve's with C + D slots.
 */
#include "common/error_internal.h"
#include "revolve/revolve_core.h"
#include "revolve/schedule_internal.h"

typedef struct {
    struct ebb_schedule base;
    ebb_revolve_core core;
} multistage;


static size_t fill(ebb_schedule *s, ebb_action *out, size_t capacity)
{
    multistage *p = (multistage *)s;
    if (ebb_revolve_core_done(&p->core))
        return (size_t)(ebb_emit(out, EBB_ACT_END, 0, 0, 0, 0) - out);
    return (size_t)(ebb_revolve_core_fill(&p->core, out, out + capacity - EBB_GROUP_MAX) - out);
}

static void destroy(ebb_schedule *s) { ebb_revolve_core_free(&((multistage *)s)->core); }

static const ebb_schedule_ops ops = {.fill = fill, .destroy = destroy};

ebb_status ebb_multistage_create(const ebb_schedule_options *o, ebb_schedule **out)
{
    if (o->disk_slots < 0)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "multistage needs the number of disk slots (disk_slots >= 0, "
                        "--disk-slots D), got %d",
                        o->disk_slots);
    int64_t total = (int64_t)o->slots + o->disk_slots;
    if (total > INT32_MAX)
        return ebb_fail(EBB_ERR_INVALID_ARG, "multistage: %d + %d slots is too many", o->slots,
                        o->disk_slots);
    ebb_status st = ebb_schedule_alloc(sizeof(multistage), &ops, o, out);
    if (st != EBB_OK)
        return st;
    multistage *p = (multistage *)*out;
    int32_t levels = ebb_useful_levels(o->steps, total);
    st = ebb_revolve_core_alloc(&p->core, levels);
    if (st != EBB_OK) {
        ebb_schedule_destroy(*out);
        *out = NULL;
        return st;
    }
    int32_t disk = o->disk_slots < levels ? o->disk_slots : levels;
    for (int32_t k = 0; k < levels; k++) {
        int on_disk = k < disk;
        p->core.tier_of[k] = (int16_t)(on_disk ? o->slow_tier : o->fast_tier);
        p->core.slot_of[k] = on_disk ? k : k - disk;
    }
    ebb_revolve_core_begin(&p->core, 0, o->steps, levels, 0, 0, 1);
    (*out)->tier_slots[o->fast_tier] = levels - disk > 0 ? levels - disk : 0;
    (*out)->tier_slots[o->slow_tier] = disk;
    return EBB_OK;
}
