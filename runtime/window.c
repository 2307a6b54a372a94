/* The window of actions (window.h). */
#include <string.h>

#include "common/error_internal.h"
#include "runtime/window.h"

ebb_status rt_window_peek(rt_window *w, rt_source_fn next, void *ctx, const ebb_action **a)
{
    if (w->pos == w->len) {
        size_t got = 0;
        ebb_status st = next(ctx, w->batch, sizeof w->batch / sizeof *w->batch, &got);
        if (st != EBB_OK)
            return st;
        if (got == 0)
            return ebb_fail(EBB_ERR_INTERNAL, "the schedule produced no action");
        w->len = got;
        w->pos = 0;
        w->scan = 0;
        w->wait_past = 0;
        w->ended = w->batch[got - 1].kind == EBB_ACT_END;
    }
    *a = &w->batch[w->pos];
    return EBB_OK;
}

ebb_status rt_window_refill(rt_window *w, size_t keep, rt_source_fn next, void *ctx)
{
    size_t cap = sizeof w->batch / sizeof *w->batch;
    size_t rem = w->len - w->pos;
    if (rem >= keep || w->ended)
        return EBB_OK;
    memmove(w->batch, w->batch + w->pos, rem * sizeof *w->batch);
    w->scan = w->scan > w->pos ? w->scan - w->pos : 0;
    w->wait_past = w->wait_past > w->pos ? w->wait_past - w->pos : 0;
    w->pos = 0;
    w->len = rem;
    size_t got = 0;
    ebb_status st = next(ctx, w->batch + rem, cap - rem, &got);
    if (st != EBB_OK)
        return st;
    w->len += got;
    if (got && w->batch[w->len - 1].kind == EBB_ACT_END)
        w->ended = 1;
    return EBB_OK;
}

/* Whether a writes slot `slot` of `tier`. */
static int writes_slot(const ebb_action *a, int tier, int32_t slot)
{
    if (a->kind == EBB_ACT_STORE)
        return a->tier == tier && a->slot == slot;
    if (a->kind == EBB_ACT_PREFETCH || a->kind == EBB_ACT_EVICT)
        return a->tier_to == tier && a->slot_to == slot;
    return 0;
}

static int reads_slower(const ebb_action *a, int host_restores)
{
    if (a->kind == EBB_ACT_RESTORE)
        return a->tier == EBB_TIER_DISK || (host_restores && a->tier == EBB_TIER_HOST);
    if (a->kind == EBB_ACT_PREFETCH || a->kind == EBB_ACT_EVICT)
        return a->tier == EBB_TIER_DISK && a->tier_to != EBB_TIER_DISK;
    return 0;
}

const ebb_action *rt_window_next_read(rt_window *w, int host_restores, int *blocked)
{
    *blocked = 0;
    if (w->scan < w->pos)
        w->scan = w->pos;
    if (w->wait_past > w->pos) { /* the writer found last time has not run yet */
        *blocked = 1;
        return &w->batch[w->scan];
    }
    w->wait_past = 0;
    while (w->scan < w->len && !reads_slower(&w->batch[w->scan], host_restores))
        w->scan++;
    if (w->scan >= w->len)
        return NULL;
    const ebb_action *a = &w->batch[w->scan];
    for (size_t i = w->scan; i-- > w->pos;)
        if (writes_slot(&w->batch[i], a->tier, a->slot)) {
            *blocked = 1;
            w->wait_past = i + 1;
            break;
        }
    return a;
}
