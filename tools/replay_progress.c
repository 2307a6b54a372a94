/* A schedule replay's progress line (replay_progress.h). */
#include "tools/replay_progress.h"

#include <stdio.h>
#include <unistd.h>

#include "tools/cli.h"

#define FIRST_AFTER_S 0.5 /* a short replay shows nothing */
#define EVERY_S 0.2

void replay_progress_begin(replay_progress *p, const char *label, int64_t n,
                           ebb_action_visitor inner, void *inner_user)
{
    *p = (replay_progress){.label = label, .on = isatty(STDERR_FILENO), .n = n,
                           .inner = inner, .inner_user = inner_user};
    p->t0 = p->last = cli_now();
}

static void show(replay_progress *p, double now)
{
    double spent = now - p->t0;
    if (p->reversed == 0) {
        fprintf(stderr, "\r%s: forward step %lld of %lld, %.0f s  ", p->label,
                (long long)p->forward_at, (long long)p->n, spent);
    } else {
        /* the reverse sweep's rate so far (its recomputations included) */
        double rate = (double)p->reversed / (now - p->reverse_t0 > 0 ? now - p->reverse_t0 : 1e-9);
        double left = (double)(p->n - p->reversed) / rate;
        fprintf(stderr, "\r%s: reverse step %lld of %lld, %.0f s, about %.0f s left  ",
                p->label, (long long)p->reversed, (long long)p->n, spent, left);
    }
    fflush(stderr);
    p->shown = 1;
    p->last = now;
}

ebb_status replay_progress_visit(void *user, const ebb_action *a, size_t count)
{
    replay_progress *p = user;
    for (size_t i = 0; i < count; i++) {
        if (a[i].kind == EBB_ACT_ADVANCE && p->reversed == 0 && a[i].to > p->forward_at)
            p->forward_at = a[i].to;
        else if (a[i].kind == EBB_ACT_REVERSE && p->reversed++ == 0)
            p->reverse_t0 = cli_now();
    }
    if (p->on) {
        double now = cli_now();
        if (now - p->t0 >= FIRST_AFTER_S && now - p->last >= EVERY_S)
            show(p, now);
    }
    return p->inner ? p->inner(p->inner_user, a, count) : EBB_OK;
}

void replay_progress_end(replay_progress *p)
{
    if (p->shown)
        fprintf(stderr, "\r%*s\r", 100, "");
    p->shown = 0;
}
