/*
 * The window of actions the runtime (and the planner, which replays the
 * runtime in simulated time) works through: a batch fetched from the action
 * source, the current action, and how far the read ahead has looked.
 */
#ifndef EBB_RUNTIME_WINDOW_H
#define EBB_RUNTIME_WINDOW_H

#include <stddef.h>
#include <stdint.h>

#include "ebb/schedule.h"

typedef ebb_status (*rt_source_fn)(void *ctx, ebb_action *out, size_t cap, size_t *count);

typedef struct rt_window {
    ebb_action batch[1024];
    size_t len, pos; /* actions fetched; the current one */
    size_t scan;     /* the read ahead looked up to here */
    size_t wait_past; /* the read at scan waits until pos passes this writer (+1; 0: none) */
    int ended;       /* the batch holds END */
} rt_window;

/* The current action, fetching a batch when the last one is used up. */
ebb_status rt_window_peek(rt_window *w, rt_source_fn next, void *ctx, const ebb_action **a);

/* Keeps at least `keep` actions from the current one on, moving the rest to
 * the front and fetching more (nothing after END). */
ebb_status rt_window_refill(rt_window *w, size_t keep, rt_source_fn next, void *ctx);

/* The next action from w->scan on that reads a disk slot into memory (a
 * RESTORE from disk, a PREFETCH or EVICT out of it) or, with `host_restores`,
 * restores a host slot (to a gpu state), w->scan left on it; NULL if none in
 * the window. *blocked = 1 when an action before it (from the current one)
 * writes that slot first. The caller moves w->scan past it once it is dealt
 * with. */
const ebb_action *rt_window_next_read(rt_window *w, int host_restores, int *blocked);

#endif
