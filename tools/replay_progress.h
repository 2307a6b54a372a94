/* The progress of a schedule's replay (`ebb plan`, `ebb demo`), which runs
 * for hours on 2^31 steps: on a terminal a line on standard error, shown
 * once the replay has run half a second and rewritten in place at most five
 * times a second (the forward sweep's step, then the reverse steps done of
 * n, the time so far and an estimate of what is left), erased at the end;
 * nothing when standard error is not a terminal (a log or a pipe), as `ebb
 * run`'s. */
#ifndef EBB_TOOLS_REPLAY_PROGRESS_H
#define EBB_TOOLS_REPLAY_PROGRESS_H

#include <stdint.h>

#include "ebb/schedule.h"

typedef struct replay_progress {
    const char *label;   /* "ebb plan: revolve" */
    int on;              /* standard error is a terminal */
    int64_t n;           /* the steps */
    int64_t forward_at;  /* the first sweep's last step so far */
    int64_t reversed;    /* reverse steps so far */
    double t0, last, reverse_t0;
    int shown;           /* a line is on the terminal */
    ebb_action_visitor inner; /* the visitor it wraps (the action printer), or NULL */
    void *inner_user;
} replay_progress;

/* Starts counting for a replay of n steps; `inner` (NULL: none) still sees
 * every batch. */
void replay_progress_begin(replay_progress *p, const char *label, int64_t n,
                           ebb_action_visitor inner, void *inner_user);
/* The visitor to hand the replay, with p as its user. */
ebb_status replay_progress_visit(void *user, const ebb_action *actions, size_t count);
/* Erases the line, if one was shown. */
void replay_progress_end(replay_progress *p);

#endif
