/* The schedule object's allocation and release; see schedule_base.h. */
#include "schedules/schedule_base.h"

#include <stdlib.h>
#include <string.h>

#include "common/error_internal.h"

/* The defaults live here, below the strategies, for those (chain.c) that
 * make a schedule of another inside their own. */
void ebb_schedule_options_init(ebb_schedule_options *o)
{
    memset(o, 0, sizeof *o);
    o->strategy = EBB_STRATEGY_REVOLVE;
    o->steps = 0;
    o->slots = 0;
    o->disk_slots = -1;
    o->period = 0;
    o->io_ratio = 0.0;
    o->fast_tier = EBB_TIER_HOST;
    o->slow_tier = EBB_TIER_DISK;
    o->write_cost = 1.0;
    o->read_cost = 1.0;
    o->reverse_cost = 1.0;
}

ebb_status ebb_schedule_alloc(size_t size, const ebb_schedule_ops *ops,
                              const ebb_schedule_options *o, ebb_schedule **out)
{
    ebb_schedule *s = calloc(1, size);
    if (!s)
        return ebb_fail(EBB_ERR_NO_MEMORY, "cannot allocate a %s schedule",
                        ebb_strategy_name(o->strategy));
    s->ops = ops;
    s->options = *o;
    *out = s;
    return EBB_OK;
}

ebb_status ebb_schedule_discard(ebb_schedule **out, ebb_status st)
{
    ebb_schedule_destroy(*out);
    *out = NULL;
    return st;
}

void ebb_schedule_destroy(ebb_schedule *s)
{
    if (!s)
        return;
    if (s->ops->destroy)
        s->ops->destroy(s);
    free(s);
}
