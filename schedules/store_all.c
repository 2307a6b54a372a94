/* Store-all: keep x_0 .. x_{n-2} (x_{n-1} comes back by TURN); n forward steps. */
#include "common/error_internal.h"
#include "schedules/schedule_internal.h"

typedef struct {
    struct ebb_schedule base;
    int64_t i;     /* forward: next state to store; reverse: next step to reverse */
    int reversing;
} store_all;

static size_t fill(ebb_schedule *s, ebb_action *out, size_t capacity)
{
    store_all *p = (store_all *)s;
    int64_t n = s->options.steps;
    int tier = s->options.fast_tier;
    ebb_action *a = out;
    (void)capacity; /* one group per call */
    if (!p->reversing) {
        int64_t i = p->i;
        if (i < n - 1)
            a = ebb_emit(a, EBB_ACT_STORE, tier, (int32_t)i, i, 0);
        if (i < n - 2) {
            a = ebb_emit(a, EBB_ACT_ADVANCE, 0, 0, i, i + 1);
            p->i = i + 1;
        } else {
            a = ebb_emit(a, EBB_ACT_ADVANCE, 0, 0, i, n);
            a = ebb_emit(a, EBB_ACT_TURN, 0, 0, n, 0);
            a = ebb_emit(a, EBB_ACT_REVERSE, 0, 0, n - 1, 0);
            p->reversing = 1;
            p->i = n - 2;
        }
    } else if (p->i >= 0) {
        int64_t i = p->i--;
        a = ebb_emit(a, EBB_ACT_RESTORE, tier, (int32_t)i, i, 0);
        a = ebb_emit(a, EBB_ACT_REVERSE, 0, 0, i, 0);
        a = ebb_emit(a, EBB_ACT_FREE, tier, (int32_t)i, i, 0);
    } else {
        a = ebb_emit(a, EBB_ACT_END, 0, 0, 0, 0);
    }
    return (size_t)(a - out);
}

static const ebb_schedule_ops ops = {.fill = fill};

ebb_status ebb_store_all_create(const ebb_schedule_options *o, ebb_schedule **out)
{
    int64_t need = o->steps - 1;
    if (need > INT32_MAX)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "store-all cannot keep %lld states: at most %d slots are addressable",
                        (long long)need, INT32_MAX);
    if (o->slots < need)
        return ebb_fail(EBB_ERR_INVALID_ARG,
                        "store-all needs %lld slots for %lld steps, got %d (it keeps x_0 .. x_n-2)",
                        (long long)need, (long long)o->steps, o->slots);
    ebb_status st = ebb_schedule_alloc(sizeof(store_all), &ops, o, out);
    if (st == EBB_OK)
        (*out)->tier_slots[o->fast_tier] = (int32_t)(need > 0 ? need : 1);
    return st;
}
